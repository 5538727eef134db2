// One webhook attempt: POST the signed body to the endpoint and report what happened (Part C, "Delivery
// behavior"). Outbound only: no database. The caller (the delivery job, or the test route) signs the body and
// records the result.
//
// - The URL rules are checked again now (`unsafe_target`, `dns_failed`), and the connection goes to the
//   addresses just checked: the request's `lookup` hands them to the socket, so the name is never resolved a
//   second time (no DNS rebinding). TLS still checks SNI and the certificate against the host name. The
//   connection is kept alive for the next attempt to the same origin and the same checked addresses only.
// - One deadline (10 s by default) covers resolution, connection, TLS, the answer's headers and its body:
//   past it the attempt is a `timeout`.
// - Redirects are never followed: any status outside 2xx is `http_status` with the status. Node's parser takes
//   any three digits; one outside 100-599 is no HTTP status (RFC 9110), so it is `http_status` with none.
// - The answer's body is read and dropped, at most RESPONSE_BODY_CAP bytes.
import { performance } from 'node:perf_hooks';
import { exchange, sharedPools, type AttemptError } from './outbound.js';
import { resolveTargets, type TargetPolicy } from './targets.js';

export { classifyRequestError, type AttemptError } from './outbound.js';

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
  const answer = await exchange({
    target,
    method: 'POST',
    headers: input.headers,
    body: Buffer.from(input.body, 'utf8'),
    ca: input.policy.ca,
    remainingMs: remaining,
    bodyCap: RESPONSE_BODY_CAP,
    // Keep-alive per endpoint origin and checked addresses (outbound.ts): no new connection per attempt.
    pools: sharedPools,
  });
  const durationMs = elapsed();
  if (answer.error) return { delivered: false, responseStatus: answer.status, error: answer.error, durationMs };
  return answer.status !== null && answer.status >= 200 && answer.status < 300
    ? { delivered: true, responseStatus: answer.status, error: null, durationMs }
    : { delivered: false, responseStatus: answer.status, error: 'http_status', durationMs };
}
