// invoke (Part B): one attempt of the block's HTTP call, with no database: the address rules checked at every
// hop on the address actually connected (webhooks/targets.ts and the pinned exchange of webhooks/outbound.ts,
// shared with webhook deliveries), up to 5 redirects, one deadline for the attempt (60 s), secrets resolved for
// the host of each hop and masked in the answer's excerpt.
import { performance } from 'node:perf_hooks';
import { exchange } from '../../../webhooks/outbound.js';
import { resolveTargets, type TargetPolicy } from '../../../webhooks/targets.js';
import type { InvokeRequest } from '../../../store/schema.js';
import { bodyEscape, headerEscape, joinSegments, jsonEscaped } from './evaluate.js';

export const INVOKE_USER_AGENT = 'Service-Automations/1.0';
export const INVOKE_TIMEOUT_MS = 60_000;
export const MAX_REDIRECTS = 5;
/** Bytes of the answer read (its fields are read from them); the step shows EXCERPT_CHARS of it. */
export const INVOKE_BODY_CAP = 1024 * 1024;
export const EXCERPT_CHARS = 500;

/** A secret the request names: its value goes only to its domain. */
export interface SecretValue {
  name: string;
  value: string;
  domain: string;
}

export type CallError =
  | 'timeout'
  | 'dns_failed'
  | 'connection_failed'
  | 'tls_failed'
  | 'unsafe_target'
  | 'too_many_redirects'
  | 'http_status';

export interface AttemptOutcome {
  status: number | null;
  error: CallError | null;
  /** The answer's body (up to INVOKE_BODY_CAP bytes); null without an answer. */
  body: string | null;
  durationMs: number;
  /** The secret values the attempt sent (the excerpt masks them). */
  sent: string[];
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface AttemptInput {
  request: InvokeRequest;
  secrets: readonly SecretValue[];
  idempotencyKey: string;
  policy: TargetPolicy;
  timeoutMs?: number;
}

/** One attempt: the request, and the redirects it meets. Never throws for the endpoint's faults. */
export async function attemptCall(input: AttemptInput): Promise<AttemptOutcome> {
  const started = performance.now();
  const timeoutMs = input.timeoutMs ?? INVOKE_TIMEOUT_MS;
  const remaining = () => timeoutMs - (performance.now() - started);
  const sent = new Set<string>();
  const done = (status: number | null, error: CallError | null, body: string | null = null): AttemptOutcome => ({
    status,
    error,
    body,
    durationMs: Math.max(0, Math.round(performance.now() - started)),
    sent: [...sent],
  });
  let hop = { url: input.request.url, method: input.request.method, withBody: true };
  for (let redirects = 0; ; redirects += 1) {
    const target = await resolveTargets(hop.url, input.policy, Math.max(1, remaining())).catch(() => null);
    if (remaining() <= 0 || target === null) return done(null, 'timeout');
    if (!target.ok) return done(null, target.error);
    const secrets = new Map(input.secrets.filter((s) => s.domain === target.hostname).map((s) => [s.name, s.value]));
    for (const name of secretNamesSent(input.request, hop.withBody)) {
      const value = secrets.get(name);
      if (value) sent.add(value).add(jsonEscaped(value));
    }
    const body = hop.withBody && input.request.body ? requestBody(input.request, secrets) : null;
    const answer = await exchange({
      target,
      method: hop.method,
      headers: requestHeaders(input, secrets, body !== null),
      body: body === null ? null : Buffer.from(body, 'utf8'),
      ca: input.policy.ca,
      remainingMs: Math.max(1, remaining()),
      bodyCap: INVOKE_BODY_CAP,
    });
    if (answer.error) return done(answer.status, answer.error);
    const location = answer.headers.location;
    if (answer.status !== null && REDIRECTS.has(answer.status) && location) {
      if (redirects >= MAX_REDIRECTS) return done(answer.status, 'too_many_redirects');
      hop = nextHop(hop, answer.status, location);
      continue;
    }
    const ok = answer.status !== null && answer.status >= 200 && answer.status < 300;
    return done(answer.status, ok ? null : 'http_status', answer.body.toString('utf8'));
  }
}

/** Where a redirect goes: 303 (and 301/302 after a POST, as browsers do) turns into a GET without the body. */
function nextHop(hop: { url: string; method: string; withBody: boolean }, status: number, location: string) {
  const url = new URL(location, hop.url).href;
  const toGet = status === 303 || ((status === 301 || status === 302) && hop.method === 'POST');
  return toGet ? { url, method: 'GET', withBody: false } : { ...hop, url };
}

const secretNamesSent = (request: InvokeRequest, withBody: boolean) =>
  [...request.headers.flatMap((h) => h.value), ...(withBody ? (request.body ?? []) : [])].flatMap((s) =>
    typeof s === 'string' ? [] : [s.secret],
  );

function requestBody(request: InvokeRequest, secrets: ReadonlyMap<string, string>): string {
  return joinSegments(request.body ?? [], secrets, bodyEscape(request.json));
}

/** The service's headers (User-Agent, Idempotency-Key, a JSON Content-Type by default), then the block's. */
function requestHeaders(input: AttemptInput, secrets: ReadonlyMap<string, string>, withBody: boolean) {
  const headers: Record<string, string> = { 'User-Agent': INVOKE_USER_AGENT, 'Idempotency-Key': input.idempotencyKey };
  const own = input.request.headers.filter((h) => withBody || h.name.toLowerCase() !== 'content-type');
  if (withBody && !own.some((h) => h.name.toLowerCase() === 'content-type'))
    headers['Content-Type'] = 'application/json';
  for (const h of own) {
    // A block's header replaces the service's of the same name (User-Agent), whatever its letter case.
    for (const name of Object.keys(headers)) if (name.toLowerCase() === h.name.toLowerCase()) delete headers[name];
    headers[h.name] = joinSegments(h.value, secrets, headerEscape);
  }
  return headers;
}

/** The answer's first EXCERPT_CHARS characters, every secret value the request carried masked. */
export function excerptOf(body: string | null, sent: readonly string[]): string | null {
  if (body === null) return null;
  let masked = body;
  for (const value of [...sent].sort((a, b) => b.length - a.length)) masked = masked.split(value).join('***');
  return masked.slice(0, EXCERPT_CHARS);
}
