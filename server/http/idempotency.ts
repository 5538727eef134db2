// Idempotency-Key on mutating routes (Part A, idempotency rules; 24 hours per account):
// 1. same key, same request → the first answer (status, body, the headers the handler set), handler not run,
//    with `Idempotent-Replayed: true`;
// 2. same key, another request → 422 idempotency_key_reused;
// 3. same key while the first request runs → 409 idempotency_in_progress;
// 4. a failed request (any 4xx or 5xx) releases the key, except outcome_unknown, which the key keeps; a first
//    request that stopped before answering (its lease ran out: the process died) → 409 outcome_unknown for good;
// 5. key store unreachable → 503 service_unavailable, and nothing runs.
// Placed after validation (a malformed request never takes a key) and right before the handler. Handlers
// answer through app.ts with res.json or a bodyless res.end; both are caught here to store the answer before
// it leaves, so a client that got an answer and repeats gets the replay.
// An operation whose replay must show the resource as it is now (a repeated webhook register answers the
// endpoint with its current secret, or 404 once it is deleted) has a replayer: it rewrites the stored success
// before it goes out, and may throw an ApiError instead. The app assembly (app.ts) hands this middleware the
// replayers of its route table, so the middleware knows no route.
import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { OperationId, OperationInfo } from '../../generated/operations.js';
import { ApiError, serviceUnavailable } from '../errors.js';
import { requestContext } from '../request-context.js';
import { SqlIdempotencyStore, type IdempotencyStore, type StoredAnswer } from '../store/idempotency.js';
import type { AppContext, Caller, HandlerResult } from './context.js';

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** Set on an answer that comes from the key (a replay), never on the first one. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

export interface IdempotencyOptions {
  /** The key store; default the `idempotency_keys` table. */
  store?: IdempotencyStore;
  /** How long a running request holds its key without renewing it (default 60 s). */
  leaseMs?: number;
  /** How often a running request renews its lease (real time, default 15 s). */
  heartbeatMs?: number;
  /** A request running longer than this stops renewing, so a hung handler ends as outcome_unknown (10 min). */
  maxHoldMs?: number;
  /** A key store slower than this counts as unreachable (default 5 s). */
  storeTimeoutMs?: number;
}

/** The stored answer of a success of operation `Id`: what its handler answered, back from JSON. */
export type StoredSuccess<Id extends OperationId> = HandlerResult<Id> & { headers: Record<string, string> };

/** Turns the stored answer of a success into the answer of its replay (or throws an ApiError). */
export type Replayer<Id extends OperationId> = (
  answer: StoredSuccess<Id>,
  input: { app: AppContext; caller: Caller },
) => Promise<StoredAnswer>;
export type Replayers = { [Id in OperationId]?: Replayer<Id> };

type UntypedReplayer = (answer: StoredAnswer, input: { app: AppContext; caller: Caller }) => Promise<StoredAnswer>;

/** The replayer of `id`, for a stored success: only this operation's handler wrote an answer under its key. */
const replayerOf = (replayers: Replayers, id: OperationId) => replayers[id] as UntypedReplayer | undefined;

const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_BATCH = 1000;
const timedOut = Symbol('timed out');

const reused = () =>
  new ApiError(422, 'idempotency_key_reused', 'This Idempotency-Key was already used with another request.');
const inProgress = () =>
  new ApiError(409, 'idempotency_in_progress', 'The first request with this Idempotency-Key is still running.');
const stoppedAnswer = (): StoredAnswer => ({
  status: 409,
  body: {
    type: 'error',
    message:
      'The first request with this Idempotency-Key stopped before answering: whether it took effect cannot be ' +
      'known. Check the result, then retry with a new key.',
    context: { code: 'outcome_unknown' },
  },
  headers: {},
});

/**
 * Operation, path parameters, query, body with its keys sorted, and If-Match: what makes a request. The
 * parameters are the canonical ones (ids in lower case), so one request spelt two ways is one request.
 */
export function requestHash(operationId: string, params: Record<string, string>, req: Request): string {
  const parts = [operationId, params, req.query ?? {}, req.body ?? null, req.get('if-match') ?? null];
  return createHash('sha256').update(canonicalJson(parts)).digest('hex');
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** `replayers`: the replayers of the route table, by operation (app.ts passes them). */
export function idempotency(ctx: AppContext, replayers: Replayers): RequestHandler {
  const options = ctx.idempotency ?? {};
  const store = options.store ?? new SqlIdempotencyStore(ctx.database.db);
  const leaseMs = options.leaseMs ?? 60_000;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const maxBeats = Math.ceil((options.maxHoldMs ?? 600_000) / heartbeatMs);
  const timeoutMs = options.storeTimeoutMs ?? 5_000;
  let nextPruneAt = 0;

  /** A store call that fails or hangs is rule 5: 503. `late` undoes a call that lands after the timeout. */
  async function guarded<T>(call: Promise<T>, late?: (value: T) => Promise<unknown>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<typeof timedOut>((ok) => (timer = setTimeout(() => ok(timedOut), timeoutMs)));
    try {
      const result = await Promise.race([call, timeout]);
      if (result === timedOut) {
        if (late) call.then(late).catch(() => undefined);
        throw new Error(`the idempotency key store did not answer in ${timeoutMs} ms`);
      }
      return result as T;
    } catch (error) {
      ctx.logger.error({ err: error }, 'idempotency key store unavailable');
      throw serviceUnavailable('The Idempotency-Key could not be checked. Nothing ran; retry.');
    } finally {
      clearTimeout(timer);
    }
  }

  function prune(now: Date): void {
    if (now.getTime() < nextPruneAt) return;
    nextPruneAt = now.getTime() + PRUNE_EVERY_MS;
    store
      .prune(now.toISOString(), PRUNE_BATCH)
      .catch((error: unknown) => ctx.logger.warn({ err: error }, 'pruning idempotency keys failed'));
  }

  function replay(res: Response, answer: StoredAnswer): void {
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
    // As Stripe does: the answer the key keeps, not a new run (a client can tell a retry's replay by it).
    res.setHeader(REPLAYED_HEADER, 'true');
    res.status(answer.status);
    if (answer.body === null || answer.body === undefined) res.end();
    else res.json(answer.body);
  }

  /** Runs the handler under the key, and stores or releases the key as its answer leaves. */
  function proceed(res: Response, accountId: string, key: string, hash: string, next: NextFunction): void {
    let beats = 0;
    const heartbeat = setInterval(() => {
      if (++beats > maxBeats) return clearInterval(heartbeat);
      const lockedUntil = new Date(ctx.clock.now().getTime() + leaseMs).toISOString();
      store
        .renew(accountId, key, hash, lockedUntil)
        .catch((error: unknown) => ctx.logger.warn({ err: error }, 'renewing an idempotency lease failed'));
    }, heartbeatMs);
    heartbeat.unref();

    const before = new Set(Object.keys(res.getHeaders()));
    const json = res.json;
    const end = res.end;
    let settled = false;

    const settle = async (status: number, body: unknown): Promise<void> => {
      clearInterval(heartbeat);
      // The headers of the answer (Cache-Control, ETag…), not the gateway's (request id, rate limit).
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.getHeaders()))
        if (!before.has(name) && value !== undefined) headers[name] = String(value);
      const code = (body as { context?: { code?: unknown } } | null)?.context?.code;
      // A request stopped at its deadline after it committed something: whether it took effect is unknown, so the
      // key is neither kept nor released; its lease runs out and it answers outcome_unknown (rule 4).
      const context = requestContext.getStore();
      if (context?.expired && context.committed) return;
      // Outside the request: its deadline must not refuse the key's own bookkeeping.
      await requestContext.exit(async () => {
        try {
          if (status < 400 || code === 'outcome_unknown') {
            const kept = await guarded(store.complete(accountId, key, hash, { status, body, headers }));
            if (!kept) ctx.logger.warn({ key }, 'idempotency key was taken as stopped before its request answered');
          } else await guarded(store.release(accountId, key, hash));
        } catch {
          // Already logged. The answer still goes out; an unstored key ends as outcome_unknown when its lease ends.
        }
      });
    };

    res.json = function (body: unknown) {
      if (settled) return json.call(res, body);
      settled = true;
      res.json = json;
      res.end = end;
      // settle never fails; sending may (a body that cannot be serialised): the error envelope takes over.
      settle(res.statusCode, body ?? null)
        .then(() => json.call(res, body))
        .catch(next);
      return res;
    } as Response['json'];
    res.end = function (...args: unknown[]) {
      if (settled) return (end as (...a: unknown[]) => Response).apply(res, args);
      settled = true;
      res.json = json;
      res.end = end;
      settle(res.statusCode, null)
        .then(() => (end as (...a: unknown[]) => Response).apply(res, args))
        .catch(next);
      return res;
    } as Response['end'];
    next();
  }

  return (req, res, next) => {
    const { operation, caller, params } = res.locals as {
      operation?: OperationInfo & { id: OperationId };
      caller?: Caller;
      params?: Record<string, string>;
    };
    if (!operation || !caller || operation.idempotency === 'none') return next();
    // Missing on a route that requires it: the validator has already answered 400.
    const key = req.get('Idempotency-Key');
    if (key === undefined) return next();
    const accountId = caller.account.id;
    const hash = requestHash(operation.id, params ?? {}, req);

    const decide = async (): Promise<void> => {
      // A few turns at most: the row can be released or expire between the claim and the look.
      for (let turn = 0; turn < 3; turn++) {
        const now = ctx.clock.now();
        prune(now);
        const claim = {
          operationId: operation.id,
          requestHash: hash,
          now: now.toISOString(),
          expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
          lockedUntil: new Date(now.getTime() + leaseMs).toISOString(),
        };
        const claimed = await guarded(store.claim(accountId, key, claim), (won) =>
          won ? store.release(accountId, key, hash) : Promise.resolve(),
        );
        if (claimed) return proceed(res, accountId, key, hash, next);

        const row = await guarded(store.find(accountId, key));
        if (!row || Date.parse(row.expires_at) <= now.getTime()) continue;
        if (row.request_hash !== hash) throw reused();
        if (row.state === 'done') {
          const stored: StoredAnswer = {
            status: row.response_status ?? 500,
            body: row.response_body ?? null,
            headers: (row.response_headers ?? {}) as Record<string, string>,
          };
          const replayer = stored.status < 400 ? replayerOf(replayers, operation.id) : undefined;
          return replay(res, replayer ? await replayer(stored, { app: ctx, caller }) : stored);
        }
        if (Date.parse(row.locked_until) > now.getTime()) throw inProgress();
        // The lease ran out with no answer: the first request's process stopped. From now on the key answers so.
        const stopped = stoppedAnswer();
        if (await guarded(store.markStopped(accountId, key, hash, now.toISOString(), stopped)))
          return replay(res, stopped);
      }
      // The key changed under every look (released, expired, taken again): a bounded loop, logged when it ends.
      ctx.logger.error({ key, operation: operation.id }, 'idempotency key kept changing: answered in progress');
      throw inProgress();
    };
    decide().catch(next);
  };
}
