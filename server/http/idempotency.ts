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
import type { Logger } from 'pino';
import { ApiError, serviceUnavailable } from '../errors.js';
import { requestContext } from '../request-context.js';
import {
  SqlIdempotencyStore,
  type IdempotencyRow,
  type IdempotencyStore,
  type StoredAnswer,
} from '../store/idempotency.js';
import { replayerOf, type AppContext, type Caller, type Operation, type Replayers } from './context.js';

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** Set on an answer that comes from the key (a replay), never on the first one. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_BATCH = 1000;

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

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** The `context.code` of an error envelope, if `body` is one. */
function errorCode(body: unknown): unknown {
  return isRecord(body) && isRecord(body.context) ? body.context.code : undefined;
}

/** The stored headers of an answer (all strings: `settle` wrote them so). */
function storedHeaders(value: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  if (isRecord(value)) for (const [name, v] of Object.entries(value)) if (typeof v === 'string') headers[name] = v;
  return headers;
}

/** The key store with the settings of the middleware: lease, heartbeat, the timeout of rule 5. */
interface KeyStore {
  store: IdempotencyStore;
  logger: Logger;
  leaseMs: number;
  heartbeatMs: number;
  maxBeats: number;
  /** A store call that fails or hangs is rule 5: 503. `late` undoes a call that lands after the timeout. */
  guarded<T>(call: Promise<T>, late?: (value: T) => Promise<unknown>): Promise<T>;
  /** Deletes expired keys, at most once an hour, in the background. */
  prune(now: Date): void;
}

class KeyStoreTimeout extends Error {}

function keyStoreOf(ctx: AppContext): KeyStore {
  const options = ctx.idempotency ?? {};
  const store = options.store ?? new SqlIdempotencyStore(ctx.database.db);
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const timeoutMs = options.storeTimeoutMs ?? 5_000;
  let nextPruneAt = 0;
  return {
    store,
    logger: ctx.logger,
    leaseMs: options.leaseMs ?? 60_000,
    heartbeatMs,
    maxBeats: Math.ceil((options.maxHoldMs ?? 600_000) / heartbeatMs),
    async guarded<T>(call: Promise<T>, late?: (value: T) => Promise<unknown>): Promise<T> {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_ok, fail) => {
        timer = setTimeout(
          () => fail(new KeyStoreTimeout(`the idempotency key store did not answer in ${timeoutMs} ms`)),
          timeoutMs,
        );
      });
      try {
        return await Promise.race([call, timeout]);
      } catch (error) {
        if (error instanceof KeyStoreTimeout && late) call.then(late).catch(() => undefined);
        ctx.logger.error({ err: error }, 'idempotency key store unavailable');
        throw serviceUnavailable('The Idempotency-Key could not be checked. Nothing ran; retry.');
      } finally {
        clearTimeout(timer);
      }
    },
    prune(now: Date): void {
      if (now.getTime() < nextPruneAt) return;
      nextPruneAt = now.getTime() + PRUNE_EVERY_MS;
      store
        .prune(now.toISOString(), PRUNE_BATCH)
        .catch((error: unknown) => ctx.logger.warn({ err: error }, 'pruning idempotency keys failed'));
    },
  };
}

function replay(res: Response, answer: StoredAnswer): void {
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  // As Stripe does: the answer the key keeps, not a new run (a client can tell a retry's replay by it).
  res.setHeader(REPLAYED_HEADER, 'true');
  res.status(answer.status);
  if (answer.body === null || answer.body === undefined) res.end();
  else res.json(answer.body);
}

/** One request holding one key: whose, which key, which request. */
interface Held {
  keys: KeyStore;
  accountId: string;
  key: string;
  hash: string;
}

/** Renews the lease of a running request, until `maxBeats` renewals (a hung handler ends as outcome_unknown). */
function heartbeat({ keys, accountId, key, hash }: Held, clock: AppContext['clock']): NodeJS.Timeout {
  let beats = 0;
  const timer = setInterval(() => {
    if (++beats > keys.maxBeats) return clearInterval(timer);
    const lockedUntil = new Date(clock.now().getTime() + keys.leaseMs).toISOString();
    keys.store
      .renew(accountId, key, hash, lockedUntil)
      .catch((error: unknown) => keys.logger.warn({ err: error }, 'renewing an idempotency lease failed'));
  }, keys.heartbeatMs);
  timer.unref();
  return timer;
}

/** Stores the answer under the key (a success, or outcome_unknown) or releases the key (another failure). */
async function settle(held: Held, answer: StoredAnswer): Promise<void> {
  const { keys, accountId, key, hash } = held;
  // A request stopped at its deadline after it committed something: whether it took effect is unknown, so the
  // key is neither kept nor released; its lease runs out and it answers outcome_unknown (rule 4).
  const context = requestContext.getStore();
  if (context?.expired && context.committed) return;
  // Outside the request: its deadline must not refuse the key's own bookkeeping.
  await requestContext.exit(async () => {
    try {
      if (answer.status < 400 || errorCode(answer.body) === 'outcome_unknown') {
        const kept = await keys.guarded(keys.store.complete(accountId, key, hash, answer));
        if (!kept) keys.logger.warn({ key }, 'idempotency key was taken as stopped before its request answered');
      } else await keys.guarded(keys.store.release(accountId, key, hash));
    } catch {
      // Already logged. The answer still goes out; an unstored key ends as outcome_unknown when its lease ends.
    }
  });
}

/**
 * Catches the answer as it leaves (res.json, or a bodyless res.end), so `store` runs before it goes out: a
 * client that got an answer and repeats gets the replay.
 */
function beforeAnswer(res: Response, next: NextFunction, store: (body: unknown) => Promise<void>): void {
  const { json, end } = res;
  let settled = false;
  const restore = () => {
    settled = true;
    res.json = json;
    res.end = end;
  };
  res.json = (body?: unknown) => {
    if (settled) return json.call(res, body);
    restore();
    // store never fails; sending may (a body that cannot be serialised): the error envelope takes over.
    store(body ?? null)
      .then(() => json.call(res, body))
      .catch(next);
    return res;
  };
  res.end = (...args: unknown[]) => {
    if (settled) return Reflect.apply(end, res, args);
    restore();
    store(null)
      .then(() => Reflect.apply(end, res, args))
      .catch(next);
    return res;
  };
}

/** Runs the handler under the key, and stores or releases the key as its answer leaves. */
function proceed(ctx: AppContext, held: Held, res: Response, next: NextFunction): void {
  const timer = heartbeat(held, ctx.clock);
  const before = new Set(Object.keys(res.getHeaders()));
  beforeAnswer(res, next, async (body) => {
    clearInterval(timer);
    // The headers of the answer (Cache-Control, ETag…), not the gateway's (request id, rate limit).
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(res.getHeaders()))
      if (!before.has(name) && value !== undefined) headers[name] = String(value);
    await settle(held, { status: res.statusCode, body, headers });
  });
  next();
}

/** The request of a key already held: its replay, or 422, 409, or outcome_unknown once its lease ran out. */
async function answerFromKey(
  ctx: AppContext,
  held: Held,
  found: { row: IdempotencyRow; now: Date; replay: (answer: StoredAnswer) => Promise<StoredAnswer> },
): Promise<StoredAnswer | undefined> {
  const { keys, accountId, key, hash } = held;
  const { row, now } = found;
  if (row.request_hash !== hash) throw reused();
  if (row.state === 'done') {
    const stored: StoredAnswer = {
      status: row.response_status ?? 500,
      body: row.response_body ?? null,
      headers: storedHeaders(row.response_headers),
    };
    return stored.status < 400 ? found.replay(stored) : stored;
  }
  if (Date.parse(row.locked_until) > now.getTime()) throw inProgress();
  // The lease ran out with no answer: the first request's process stopped. From now on the key answers so.
  const stopped = stoppedAnswer();
  if (await keys.guarded(keys.store.markStopped(accountId, key, hash, now.toISOString(), stopped))) return stopped;
  return undefined;
}

/** `replayers`: the replayers of the route table, by operation (app.ts passes them). */
export function idempotency(ctx: AppContext, replayers: Replayers): RequestHandler {
  const keys = keyStoreOf(ctx);

  /** Claims the key, or answers from it; a few turns at most: the row can change between the claim and the look. */
  async function decide(req: Request, res: Response, next: NextFunction, operation: Operation, caller: Caller) {
    const key = req.get('Idempotency-Key');
    // Missing on a route that requires it: the validator has already answered 400.
    if (key === undefined) return next();
    const held: Held = {
      keys,
      accountId: caller.account.id,
      key,
      hash: requestHash(operation.id, res.locals.params ?? {}, req),
    };
    const replayer = replayerOf(replayers, operation.id);
    const rewrite = async (stored: StoredAnswer) => (replayer ? replayer(stored, { app: ctx, caller }) : stored);
    for (let turn = 0; turn < 3; turn++) {
      const now = ctx.clock.now();
      keys.prune(now);
      const claim = {
        operationId: operation.id,
        requestHash: held.hash,
        now: now.toISOString(),
        expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
        lockedUntil: new Date(now.getTime() + keys.leaseMs).toISOString(),
      };
      const claimed = await keys.guarded(keys.store.claim(held.accountId, key, claim), (won) =>
        won ? keys.store.release(held.accountId, key, held.hash) : Promise.resolve(),
      );
      if (claimed) return proceed(ctx, held, res, next);
      const row = await keys.guarded(keys.store.find(held.accountId, key));
      if (!row || Date.parse(row.expires_at) <= now.getTime()) continue;
      const answer = await answerFromKey(ctx, held, { row, now, replay: rewrite });
      if (answer) return replay(res, answer);
    }
    // The key changed under every look (released, expired, taken again): a bounded loop, logged when it ends.
    ctx.logger.error({ key, operation: operation.id }, 'idempotency key kept changing: answered in progress');
    throw inProgress();
  }

  return (req, res, next) => {
    const { operation, caller } = res.locals;
    if (!operation || !caller || operation.idempotency === 'none') return next();
    decide(req, res, next, operation, caller).catch(next);
  };
}
