// The request a piece of work runs for, kept across awaits and callbacks (AsyncLocalStorage). The request-id
// middleware sets it; the process-level handlers of main.ts read it, so an unhandled rejection or exception
// that comes from serving a request is logged with that request's id. It also carries the request's deadline:
// the database layer refuses a statement or a commit of a request past it (./store/deadline.ts), so no request
// can keep PGlite's single session or a pooled PostgreSQL connection, and its row locks, past its deadline.
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import { ApiError } from './errors.js';

export interface RequestContext {
  requestId: string;
  /** `performance.now()` past which the request's database work is refused; none: no deadline. */
  deadline?: number;
  /** Set once the deadline passed or the server stops waiting for the request: every statement is refused. */
  expired?: boolean;
  /** What to call when the request expires: cancels the PostgreSQL statements it has in flight. */
  cancels?: Set<() => void>;
  /** Whether the request's handler committed a change (its outcome is then no longer "nothing ran"). */
  committed?: boolean;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

/** The id of the request the current code runs for, if any. */
export const currentRequestId = (): string | undefined => requestContext.getStore()?.requestId;

/** The request's answer at its deadline, and the error of a statement it tries after it. */
export const deadlinePassed = (seconds: number) =>
  new ApiError(
    503,
    'service_unavailable',
    `The request did not finish within its ${seconds} s deadline and was stopped; what it had not committed was ` +
      'rolled back. Retry (with the same Idempotency-Key).',
  );

/** The error thrown by a statement of an expired request (its answer already left). */
export class DeadlineExceededError extends Error {
  constructor() {
    super('the request passed its deadline: statement refused');
    this.name = 'DeadlineExceededError';
  }
}

/**
 * Throws when the current request (if any) is past its deadline. Checked against the time, not only the flag
 * a timer sets: a request that loops on PGlite, which answers within microtasks, never lets a timer run.
 */
export function assertBeforeDeadline(): void {
  const context = requestContext.getStore();
  if (!context) return;
  if (!context.expired && (context.deadline === undefined || performance.now() <= context.deadline)) return;
  expire(context);
  throw new DeadlineExceededError();
}

/** Marks the request expired and cancels what it has in flight (once). */
export function expire(context: RequestContext): void {
  if (context.expired) return;
  context.expired = true;
  for (const cancel of context.cancels ?? []) cancel();
}

/** Marks the current request's handler as started: only what commits from now on is the request's effect. */
export function handlerStarted(): void {
  const context = requestContext.getStore();
  if (context) context.committed = false;
}

/** The requests being served, so a stopping server can expire those it will not wait for. */
const inFlight = new Set<RequestContext>();

/** Runs `next` as the request `context`, counted in flight until `done` is called. */
export function serveRequest(context: RequestContext, next: () => void): () => void {
  inFlight.add(context);
  requestContext.run(context, next);
  return () => inFlight.delete(context);
}

/** Expires every request in flight (shutdown past its drain time): their database work ends now. */
export function expireAll(): number {
  const count = inFlight.size;
  for (const context of inFlight) expire(context);
  return count;
}
