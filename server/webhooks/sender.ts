// One webhook attempt: POST the signed body to the endpoint and report what happened (Part C, "Delivery
// behavior"). Outbound only: no database. The caller (the delivery job, or the test route) signs the body and
// records the result.
//
// - The URL rules are checked again now (`unsafe_target`, `dns_failed`), and the connection goes to the
//   addresses just checked: the request's `lookup` hands them to the socket, so the name is never resolved a
//   second time (no DNS rebinding). TLS still checks SNI and the certificate against the host name.
// - One deadline (10 s by default) covers resolution, connection, TLS, the answer's headers and its body:
//   past it the attempt is a `timeout`.
// - Redirects are never followed: any status outside 2xx is `http_status` with the status. Node's parser takes
//   any three digits; one outside 100-599 is no HTTP status (RFC 9110), so it is `http_status` with none.
// - The answer's body is read and dropped, at most RESPONSE_BODY_CAP bytes.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import { resolveTargets, type TargetAddress, type TargetPolicy } from './targets.js';

export type AttemptError =
  'http_status' | 'timeout' | 'dns_failed' | 'connection_failed' | 'tls_failed' | 'unsafe_target';

/** A delivered attempt has no error; one that was not has one. */
export type AttemptResult =
  | { delivered: true; responseStatus: number; error: null; durationMs: number }
  | { delivered: false; responseStatus: number | null; error: AttemptError; durationMs: number };

export const USER_AGENT = 'Service-Webhooks/1.0';
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Bytes of the answer's body read before the attempt stops listening (the body is ignored anyway). */
export const RESPONSE_BODY_CAP = 64 * 1024;

/** The headers of a delivery (Part C, "Headers sent with each delivery"). */
export function deliveryHeaders(
  event: { id: string; type: string },
  attempt: number,
  signature: string,
): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'Service-Signature': signature,
    'Service-Event-Id': event.id,
    'Service-Event-Type': event.type,
    'Service-Delivery-Attempt': String(attempt),
  };
}

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'HOSTNAME_MISMATCH',
  'EPROTO',
]);

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'ENODATA']);

/** Maps a request error to the attempt error (anything not DNS or TLS is a failed connection). */
export function classifyRequestError(error: unknown): AttemptError {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== 'string') return 'connection_failed';
  if (DNS_CODES.has(code)) return 'dns_failed';
  if (
    TLS_CODES.has(code) ||
    code.startsWith('CERT_') ||
    code.startsWith('CRL_') ||
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_')
  ) {
    return 'tls_failed';
  }
  if (code === 'ETIMEDOUT') return 'timeout';
  return 'connection_failed';
}

function checkedLookup(addresses: readonly TargetAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) {
      callback(
        null,
        addresses.map((a) => ({ address: a.address, family: a.family })),
      );
    } else {
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    }
  };
}

interface AttemptInput {
  url: string;
  body: string;
  headers: Record<string, string>;
  policy: TargetPolicy;
  timeoutMs?: number;
}

/** Sends one attempt. Never throws for the endpoint's faults: every outcome is an AttemptResult. */
export async function postEvent(input: AttemptInput): Promise<AttemptResult> {
  const started = performance.now();
  const timeoutMs = input.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));

  const target = await resolveTargets(input.url, input.policy, timeoutMs).catch(() => null);
  if (target === null || (!target.ok && performance.now() - started >= timeoutMs)) {
    // The resolver was still busy at the deadline (or failed in an unexpected way): no answer in time.
    return { delivered: false, responseStatus: null, error: 'timeout', durationMs: elapsed() };
  }
  if (!target.ok) return { delivered: false, responseStatus: null, error: target.error, durationMs: elapsed() };

  const remaining = Math.max(1, timeoutMs - (performance.now() - started));
  const body = Buffer.from(input.body, 'utf8');
  const secure = target.url.protocol === 'https:';
  return request(secure ? https : http, requestOptions(input, target, body), body, remaining, elapsed);
}

/** The request to the addresses just checked, with the delivery's headers and, for https, the test CA if any. */
function requestOptions(
  input: AttemptInput,
  { url, hostname, addresses }: { url: URL; hostname: string; addresses: readonly TargetAddress[] },
  body: Buffer,
): https.RequestOptions {
  const secure = url.protocol === 'https:';
  const options: https.RequestOptions = {
    method: 'POST',
    host: hostname,
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers: { ...input.headers, Host: url.host, 'Content-Length': String(body.length) },
    agent: false,
    lookup: checkedLookup(addresses),
  };
  if (secure) {
    options.rejectUnauthorized = true;
    if (input.policy.ca !== undefined) options.ca = [...tls.rootCertificates, input.policy.ca];
  }
  return options;
}

/** Sends the request and reads the answer until it ends, breaks, passes the cap or the deadline (`remaining` ms). */
function request(
  transport: typeof http | typeof https,
  options: https.RequestOptions,
  body: Buffer,
  remaining: number,
  elapsed: () => number,
): Promise<AttemptResult> {
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    let status: number | null = null;
    let timedOut = false;
    const statusResult = (code: number | null): AttemptResult =>
      code !== null && code >= 200 && code < 300
        ? { delivered: true, responseStatus: code, error: null, durationMs: elapsed() }
        : { delivered: false, responseStatus: code, error: 'http_status', durationMs: elapsed() };
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
      req.destroy();
    };

    const req = transport.request(options, (res) => {
      const code =
        res.statusCode !== undefined && res.statusCode >= 100 && res.statusCode <= 599 ? res.statusCode : null;
      status = code;
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > RESPONSE_BODY_CAP) finish(statusResult(code));
      });
      res.on('end', () => finish(statusResult(code)));
      res.on('error', () => {});
      res.on('close', () => {
        if (timedOut) return;
        if (res.complete) finish(statusResult(code));
        // The connection broke in the middle of the answer.
        else finish({ delivered: false, responseStatus: code, error: 'connection_failed', durationMs: elapsed() });
      });
    });
    const timer = setTimeout(() => {
      timedOut = true;
      finish({ delivered: false, responseStatus: status, error: 'timeout', durationMs: elapsed() });
    }, remaining);
    req.on('error', (error) => {
      if (timedOut) return;
      finish({ delivered: false, responseStatus: status, error: classifyRequestError(error), durationMs: elapsed() });
    });
    req.end(body);
  });
}
