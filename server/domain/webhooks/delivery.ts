// The delivery engine (Part C, "Delivery behavior"): one attempt of one delivery per `webhook.deliver` job.
//
// 1. Begin (one transaction, under a row lock on the endpoint): stop if the delivery is no longer pending or not
//    yet due; fail it with `endpoint_disabled` (endpoint disabled or deleted) or `account_disabled` (suspended,
//    API off; not retried); take an in-flight slot (`in_flight_until`, a lease: at most `maxInFlight` attempts
//    of one endpoint at once, else the job waits for a slot: parked on the endpoint's slot key, it costs no
//    query until an attempt of that endpoint finishes and wakes it, or the earliest slot lease runs out should
//    that attempt's worker have died) and respect the pacing (about
//    `pacePerMinute` attempt starts per endpoint and minute, counted in `rate_counters`); read the event and
//    build the envelope (a message event other than `message.updated` carries the message as read now).
// 2. Send, outside any transaction: signed afresh (`t` = the attempt moment from the clock; the current secret
//    plus the previous one until it expires), through `postEvent`, which re-checks the URL rules and keeps the
//    10-second deadline.
// 3. Finish (one transaction, which also completes the job): attempts + 1, the outcome, the next attempt by the
//    schedule (../../retries.ts: 1 min, 5 min, 30 min, 2 h, 5 h, then 10 h; failed after the 10th), the slot released,
//    `failing_since` kept, the oldest job waiting for a slot woken, and an endpoint failing for 3 days
//    disabled (reason `failing`, its pending deliveries failed with `endpoint_disabled`, the owner told through
//    `account_notifications` and the log).
//
// Steps 1 and 3 run in batches (issue 37, ./batches.ts): the jobs that start together share one begin transaction,
// the attempts that end while a finish commits share the next one; each rule above holds per delivery. A finish
// that frees slots hands them to the jobs parked for them and begins those jobs in its own transaction, so a slot's
// next attempt is sent as soon as that transaction commits.
//
// At least once: the job is deleted only in the finishing transaction, so a worker that dies after sending and
// before that commit leaves the job to run again when its lease expires, and the event goes out again with the
// same id (and the same attempt number, which was not counted).
import { randomUUID } from 'node:crypto';
import { pruneRunHistory } from '../workflows/runs.js';
import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import { webhookRetryDelayMs, type Random } from '../../retries.js';
import { countDeliveryOutcome, type DeliveryOutcome } from '../../metrics.js';
import { DELIVER_JOB, PRUNE_JOB } from '../../job-kinds.js';
import {
  completeJobs,
  enqueue,
  enqueueJobs,
  parkJobs,
  type ClaimedJob,
  type JobClaim,
  type NewJob,
} from '../../store/jobs.js';
import type { DB } from '../../store/schema.js';
import {
  deleteOtherIdleJobs,
  lockDeliveriesWithEndpoints,
  hasJobOfKind,
  insertAccountNotification,
  lockPeriodicJob,
  pruneDeliveries,
  recordAttempts,
  takeSlots,
  type AttemptRecord,
  type LockedDelivery,
  pruneEvents,
  prunePacingCounters,
  updateDelivery,
  updateDeliveryEndpoint,
  type HandedJob,
  type DeliveryEndpointRow,
  type DeliveryEventRow,
  type DeliveryRow,
} from '../../store/webhook-deliveries.js';
import { signatureHeader } from '../../webhooks/signing.js';
import { DEFAULT_TIMEOUT_MS, deliveryHeaders, postEvent, type AttemptResult } from '../../webhooks/sender.js';
import type { TargetPolicy } from '../../webhooks/targets.js';
import { isRecord } from '../../guards.js';
import { signingSecrets } from './endpoints.js';
import { withEnvelopes } from './envelope.js';
import { dropPendingDeliveries, releaseAbandonedSlot, slotKey } from './slots.js';
import { GroupCommit } from './batches.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** An endpoint whose attempts have all failed for this long is disabled (reason `failing`). */
export const FAILING_DISABLE_MS = 72 * HOUR;
/** Deliveries are kept 7 days. */
export const RETENTION_MS = 7 * 24 * HOUR;
export const PRUNE_EVERY_MS = HOUR;
/** The slot lease outlives the attempt's deadline by this much (a worker that died frees its slot then). */
const LEASE_MARGIN_MS = 30_000;
const PACE_WINDOW_MS = MINUTE;

/** Enqueues the attempt of `delivery` at `at`, in `trx` (the transaction that makes the delivery pending). */
export async function scheduleAttempt(
  trx: Transaction<DB>,
  delivery: { id: string; account_id: string },
  at: Date | string,
  now: Date | string,
): Promise<void> {
  // The job is made at the caller's `now` (its read of the clock), not a later one.
  const atNow = { now: () => new Date(now) };
  await enqueue(trx, atNow, {
    kind: DELIVER_JOB,
    accountId: delivery.account_id,
    payload: { delivery_id: delivery.id },
    runAt: at,
  });
}

export interface DeliveryDeps {
  /** The URL rules at send (dev targets or strict), and a test CA. */
  targets: TargetPolicy;
  /** The service's public base URL (attachment URLs of message data). */
  baseUrl: string;
  /** Attempts of one endpoint at once. */
  maxInFlight: number;
  /** Attempt starts per endpoint and minute; 0 = no pacing. */
  pacePerMinute: number;
  /** The answer deadline; default 10 s. */
  timeoutMs?: number;
}

/** What the attempt needs from the job worker (server/jobs JobContext). */
export interface AttemptContext {
  db: Kysely<DB>;
  clock: Clock;
  logger: Logger;
  /** Deletes the job in `trx`; throws when its lease was taken over (the transaction then rolls back). */
  complete(trx: Transaction<DB>): Promise<void>;
  /** Puts the job to wait for `key` until woken or `until`; throws like `complete`. */
  park(trx: Transaction<DB>, wait: { key: string; until: Date | string }): Promise<void>;
}

interface Attempt {
  delivery: DeliveryRow;
  url: string;
  body: string;
  headers: Record<string, string>;
  attempt: number;
  attemptAt: Date;
}

const iso = (d: Date) => d.toISOString();
const isLater = (a: string | null, now: Date) => a !== null && Date.parse(a) > now.getTime();

/** What an attempt's job also needs: the source its retry wait is drawn from (server/retries.ts), and the worker's
 * word that the batch ended the claim (server/jobs JobContext.ended). */
export interface DeliveryContext extends AttemptContext {
  random: Random;
  ended(how: 'completed' | 'parked'): void;
  /** The worker running the job (server/jobs JobContext.worker): the slots its attempts free are handed to it. */
  worker?: { id: string; leaseMs(kind: string): number; run(jobs: readonly ClaimedJob[]): void };
}

/** A `webhook.deliver` job as its claim (the batch's statements end many claims at once). */
export type DeliveryJob = JobClaim & { payload: unknown };

/** How a job's start ended: an attempt to send, or nothing to send (done, dropped, parked), or its lease lost. */
type Began = Attempt | 'done' | 'dropped' | 'parked' | 'lost';
/** How a job's finish ended: its outcome (none: the delivery was deleted meanwhile), or its lease lost. */
type Finished = { outcome: DeliveryOutcome | null; disabled: Disabled | null } | 'lost';

interface Start {
  job: DeliveryJob;
  ctx: DeliveryContext;
}
interface End extends Start {
  attempt: Attempt;
  result: AttemptResult;
}

/** The largest batch one transaction carries (a worker runs 32 jobs at once by default). */
const MAX_BATCH = 128;

/** The begin and finish batches of the jobs run with one set of settings on one database. */
class Drain {
  readonly begins: GroupCommit<Start, Began>;
  readonly finishes: GroupCommit<End, Finished>;

  constructor(db: Kysely<DB>, deps: DeliveryDeps) {
    const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.begins = new GroupCommit(
      (starts) => db.transaction().execute((trx) => beginBatch(trx, starts, deps, timeoutMs)),
      MAX_BATCH,
    );
    this.finishes = new GroupCommit(async (ends) => {
      const { finished, handed } = await db.transaction().execute((trx) => finishBatch(trx, ends, deps, timeoutMs));
      // Committed: the deliveries handed the freed slots, already begun, send now on the worker that freed them.
      const worker = ends[0]?.ctx.worker;
      if (worker && handed.length > 0) {
        for (const { job, began } of handed) begunAtHandOver.set(job, began);
        worker.run(handed.map((h) => h.job));
      }
      return finished;
    }, MAX_BATCH);
  }
}

/**
 * The jobs handed a slot by the attempt that freed it (`finishBatch`): their slot is already theirs (taken in that
 * statement), so their start does not count it against them, nor put them back for it.
 */
const reservedSlots = new WeakSet<object>();

/**
 * The jobs handed a slot, begun in the very transaction that freed it (`finishBatch`): their run goes straight to
 * the send, without a begin transaction of its own (issue 37: one transaction less per slot's turn).
 */
const begunAtHandOver = new WeakMap<object, Began>();

/** The start `job` was given at its hand-over, if any (taken: a run of the job uses it once). */
function takeBegunAtHandOver(job: DeliveryJob): Began | undefined {
  const began = begunAtHandOver.get(job);
  begunAtHandOver.delete(job);
  return began;
}

const drains = new WeakMap<DeliveryDeps, WeakMap<Kysely<DB>, Drain>>();

function drainOf(db: Kysely<DB>, deps: DeliveryDeps): Drain {
  let byDb = drains.get(deps);
  if (!byDb) drains.set(deps, (byDb = new WeakMap()));
  let drain = byDb.get(db);
  if (!drain) byDb.set(db, (drain = new Drain(db, deps)));
  return drain;
}

/**
 * Runs one `webhook.deliver` job; its outcome is counted (server/metrics.ts) once its transaction committed. Its
 * start and its finish each join the batch of the jobs that reach that step at the same time (./batches.ts).
 */
export async function runDeliveryJob(job: DeliveryJob, ctx: DeliveryContext, deps: DeliveryDeps): Promise<void> {
  const drain = drainOf(ctx.db, deps);
  const began = takeBegunAtHandOver(job) ?? (await drain.begins.submit({ job, ctx }));
  // Lost: the worker's own completion finds the job taken over and says so.
  if (began === 'lost') return;
  if (began === 'dropped') countDeliveryOutcome('dropped');
  if (began === 'parked') return ctx.ended('parked');
  if (began === 'done' || began === 'dropped') return ctx.ended('completed');
  const attempt = began;

  const result = await postEvent({
    url: attempt.url,
    body: attempt.body,
    headers: attempt.headers,
    policy: deps.targets,
    timeoutMs: deps.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  });

  const finished = await drain.finishes.submit({ job, ctx, attempt, result });
  if (finished === 'lost') return;
  ctx.ended('completed');
  const { outcome, disabled } = finished;
  if (outcome) countDeliveryOutcome(outcome);
  ctx.logger.debug(
    {
      delivery: attempt.delivery.id,
      webhook: attempt.delivery.webhook_id,
      event: attempt.delivery.event_id,
      attempt: attempt.attempt,
      delivered: result.delivered,
      status: result.responseStatus,
      error: result.error,
      duration_ms: result.durationMs,
    },
    'webhook attempt',
  );
  if (disabled)
    ctx.logger.warn(
      { account: attempt.delivery.account_id, webhook: attempt.delivery.webhook_id, ...disabled },
      'webhook endpoint disabled after failing for 3 days: the account owner is notified',
    );
}

const deliveryIdOf = (job: DeliveryJob): string | undefined => {
  const id = isRecord(job.payload) ? job.payload.delivery_id : undefined;
  return typeof id === 'string' ? id : undefined;
};

/** The job of a later attempt of `delivery` (a pace's turn, a lease's end, a retry). */
const laterAttempt = (delivery: DeliveryRow, at: Date | string): NewJob<typeof DELIVER_JOB> => ({
  kind: DELIVER_JOB,
  accountId: delivery.account_id,
  payload: { delivery_id: delivery.id },
  runAt: at,
});

/** What a batch's starts come to, filled in as each start is looked at. */
interface BatchPlan {
  began: Began[];
  /** The jobs with nothing to send: completed in one statement. */
  toComplete: Map<number, JobClaim>;
  /** The jobs waiting for their endpoint's slot: parked in one statement. */
  toPark: { index: number; claim: JobClaim; key: string; until: string }[];
  /** The later attempts: one statement. */
  later: NewJob<typeof DELIVER_JOB>[];
  /** The deliveries handed a slot that end here without an attempt: the slot given back (rare, one each). */
  unreserve: string[];
}

/** A batch's moment: its transaction, its time, the lease its attempts take and the pacing window it is in. */
interface BatchMoment {
  trx: Transaction<DB>;
  deps: DeliveryDeps;
  now: Date;
  leaseUntil: Date;
  windowStart: number;
}

/** A delivery that cannot be sent (its endpoint or account off): failed, never retried. */
async function failDelivery(
  trx: Transaction<DB>,
  delivery: DeliveryRow,
  lastError: 'endpoint_disabled' | 'account_disabled',
): Promise<'dropped'> {
  await updateDelivery(trx, delivery.id, {
    status: 'failed',
    last_error: lastError,
    next_attempt_at: null,
    in_flight_until: null,
  });
  return 'dropped';
}

/**
 * The starts of a batch, in one transaction: checks each delivery, takes the slots the endpoints have free (in the
 * batch's order, within the pace) and builds the requests; the jobs with nothing to send now are completed, parked
 * on their endpoint's slot key, or put back for later, each kind in one statement.
 */
async function beginBatch(
  trx: Transaction<DB>,
  starts: readonly Start[],
  deps: DeliveryDeps,
  timeoutMs: number,
): Promise<Began[]> {
  const [first] = starts;
  if (!first) return [];
  const now = first.ctx.clock.now();
  const moment: BatchMoment = {
    trx,
    deps,
    now,
    leaseUntil: new Date(now.getTime() + timeoutMs + LEASE_MARGIN_MS),
    windowStart: Math.floor(now.getTime() / PACE_WINDOW_MS) * PACE_WINDOW_MS,
  };
  const plan: BatchPlan = {
    began: starts.map(() => 'done'),
    toComplete: new Map(),
    toPark: [],
    later: [],
    unreserve: [],
  };
  const candidates = await screenStarts(moment, starts, plan);
  await openAttempts(moment, starts, candidates, plan);
  for (const id of plan.unreserve) await releaseAbandonedSlot(trx, id);
  const completed = await completeJobs(trx, [...plan.toComplete.values()]);
  for (const [index, claim] of plan.toComplete) if (!completed.has(claim.id)) plan.began[index] = 'lost';
  const parked = await parkJobs(trx, plan.toPark);
  for (const { index, claim } of plan.toPark) if (!parked.has(claim.id)) plan.began[index] = 'lost';
  await enqueueJobs(trx, plan.later, now);
  return plan.began;
}

/**
 * The starts that may send, under their endpoints' locks: the others are done (gone, no longer pending, not yet
 * due), failed (endpoint or account off) or put back (another run of the delivery holds a slot).
 */
async function screenStarts(moment: BatchMoment, starts: readonly Start[], plan: BatchPlan): Promise<Candidate[]> {
  const { trx, now, leaseUntil } = moment;
  const ids = starts.map((s) => deliveryIdOf(s.job));
  // The deliveries, their endpoints and accounts in one statement; the endpoints' locks serialise their attempts'
  // slot counting across workers.
  const locked = await lockDeliveriesWithEndpoints(
    trx,
    ids.filter((id) => id !== undefined),
  );
  const candidates: Candidate[] = [];
  const starting = new Set<string>();
  for (const [index, { job, ctx }] of starts.entries()) {
    plan.toComplete.set(index, job);
    const id = ids[index];
    if (id === undefined) {
      ctx.logger.error({ job: job.id }, 'webhook.deliver job without a delivery_id: dropped');
      continue;
    }
    const row = locked.get(id);
    const reserved = reservedSlots.has(job);
    // Gone (its endpoint was deleted), no longer pending (succeeded, failed, dropped), or not yet due (the job of
    // a later attempt exists): nothing to do (a slot handed to it goes back).
    if (!row || row.delivery.status !== 'pending' || isLater(row.delivery.next_attempt_at, now)) {
      if (reserved && row?.delivery.in_flight_until) plan.unreserve.push(id);
      continue;
    }
    const { delivery, endpoint, account } = row;
    if (endpoint.deleted_at !== null || endpoint.status !== 'enabled') {
      plan.began[index] = await failDelivery(trx, delivery, 'endpoint_disabled');
      continue;
    }
    if (account.suspended || !account.api_enabled) {
      plan.began[index] = await failDelivery(trx, delivery, 'account_disabled');
      continue;
    }
    // Another run of this delivery holds a slot (a repeated job, also one in this very batch): look again when
    // its lease ends. A slot handed to this job is its own (no other start takes a delivery's slot while it runs).
    const leaseEnd = delivery.in_flight_until;
    if (leaseEnd !== null && isLater(leaseEnd, now) && !reserved) {
      plan.later.push(laterAttempt(delivery, leaseEnd));
      continue;
    }
    if (starting.has(id)) {
      plan.later.push(laterAttempt(delivery, leaseUntil));
      continue;
    }
    starting.add(id);
    plan.toComplete.delete(index);
    candidates.push({ index, locked: row, reserved });
  }
  // The starts handed a slot first: each endpoint's slots go to its starts in this order.
  return [...candidates.filter((c) => c.reserved), ...candidates.filter((c) => !c.reserved)];
}

/** A start that may send: its place in the batch, its rows, whether its slot was handed to it. */
interface Candidate {
  index: number;
  locked: LockedDelivery;
  reserved: boolean;
}

/**
 * Counts the slots, then (for the starts that fit) the pacing window, then takes the slots the pace allows, in one
 * statement for the batch; each start that got one gets its signed request, the others park or wait their turn.
 */
async function openAttempts(
  moment: BatchMoment,
  starts: readonly Start[],
  candidates: readonly Candidate[],
  plan: BatchPlan,
): Promise<void> {
  const { trx, deps, now, leaseUntil, windowStart } = moment;
  const slots = await takeSlots(trx, {
    starts: candidates.map(({ locked: { delivery }, reserved }) => ({
      deliveryId: delivery.id,
      webhookId: delivery.webhook_id,
      eventId: delivery.event_id,
      reserved,
    })),
    now: iso(now),
    leaseUntil: iso(leaseUntil),
    maxInFlight: deps.maxInFlight,
    pace: deps.pacePerMinute > 0 ? { perMinute: deps.pacePerMinute, windowStart: iso(new Date(windowStart)) } : null,
  });
  const opening: { index: number; row: LockedDelivery; event: DeliveryEventRow }[] = [];
  for (const { index, locked: row } of candidates) {
    const { delivery, endpoint } = row;
    const start = starts[index];
    if (!start) continue;
    const slot = slots.get(delivery.id);
    if (!slot) throw new Error(`the slot statement left out delivery ${delivery.id}`);
    if (!slot.slotFree) {
      // Woken by the first attempt of this endpoint to finish (under this same endpoint lock, so no wake-up is
      // lost), or when the earliest slot lease runs out if its worker died (this batch's own, at the latest).
      plan.toPark.push({
        index,
        claim: start.job,
        key: slotKey(endpoint.id),
        until: slot.firstFreeAt ?? iso(leaseUntil),
      });
      plan.began[index] = 'parked';
      continue;
    }
    plan.toComplete.set(index, start.job);
    // Past the window's allowance: a turn in a later window (each window takes the next `pacePerMinute`).
    if (slot.paced !== null && slot.paced > deps.pacePerMinute) {
      const turn = windowStart + Math.floor((slot.paced - 1) / deps.pacePerMinute) * PACE_WINDOW_MS;
      plan.later.push(laterAttempt(delivery, new Date(turn)));
      continue;
    }
    const event = slot.event;
    if (!event) {
      plan.began[index] = await failDelivery(trx, delivery, 'endpoint_disabled'); // cannot happen (foreign key); never retried forever
      continue;
    }
    plan.toComplete.delete(index);
    opening.push({ index, row, event });
  }
  await signAttempts(moment, opening, plan);
}

/** The requests of the attempts that took a slot: their bodies built together (one read of their messages). */
async function signAttempts(
  moment: BatchMoment,
  opening: readonly { index: number; row: LockedDelivery; event: DeliveryEventRow }[],
  plan: BatchPlan,
): Promise<void> {
  const { trx, deps, now } = moment;
  for (const { index, row, event, body } of await withEnvelopes(trx, opening, (o) => o.event, deps.baseUrl)) {
    const { delivery, endpoint } = row;
    const attempt = delivery.attempts + 1;
    const signature = signatureHeader(body, signingSecrets(endpoint, now), Math.floor(now.getTime() / 1000));
    plan.began[index] = {
      delivery,
      url: endpoint.url,
      body,
      headers: deliveryHeaders({ id: event.id, type: event.type }, attempt, signature),
      attempt,
      attemptAt: now,
    };
  }
}

/** What finishing an attempt disabled: the endpoint failing since then, and the owner's notification. */
type Disabled = { failing_since: string; notification_id: string };

/**
 * The ends of a batch of attempts, in one transaction: the jobs completed first (an attempt whose lease was taken
 * over is not recorded: the other run counts), then each outcome recorded, the next attempts scheduled, as many
 * jobs waiting for each endpoint's slots woken as the batch freed, and the endpoints followed.
 */
async function finishBatch(
  trx: Transaction<DB>,
  ends: readonly End[],
  deps: DeliveryDeps,
  timeoutMs: number,
): Promise<{ finished: Finished[]; handed: (HandedJob & { began: Began })[] }> {
  const [first] = ends;
  if (!first) return { finished: [], handed: [] };
  const held = await completeJobs(
    trx,
    ends.map((e) => e.job),
  );
  const now = first.ctx.clock.now();
  const locked = await lockDeliveriesWithEndpoints(
    trx,
    ends.filter((e) => held.has(e.job.id)).map((e) => e.attempt.delivery.id),
  );
  const finished: Finished[] = [];
  const records: AttemptRecord[] = [];
  const freed = new Map<string, number>();
  const later: NewJob<typeof DELIVER_JOB>[] = [];
  for (const { job, ctx, attempt, result } of ends) {
    const row = held.has(job.id) ? locked.get(attempt.delivery.id) : undefined;
    if (!held.has(job.id) || !row) {
      finished.push(held.has(job.id) ? { outcome: null, disabled: null } : 'lost'); // deleted with its endpoint
      continue;
    }
    const { delivery } = row;
    const { changes, next } = attemptOutcome(delivery, attempt, result, now, ctx.random);
    records.push({
      deliveryId: delivery.id,
      status: delivery.status,
      next_attempt_at: delivery.next_attempt_at,
      last_error: delivery.last_error,
      delivered_at: delivery.delivered_at,
      ...changes,
    });
    freed.set(delivery.webhook_id, (freed.get(delivery.webhook_id) ?? 0) + 1);
    if (next) later.push(laterAttempt(delivery, next));
    finished.push({ outcome: result.delivered ? 'succeeded' : next ? 'retrying' : 'failed', disabled: null });
  }
  // The outcomes recorded and, their slots being free, as many waiting jobs handed them (claimed for this worker,
  // their slots taken: they start at once after the commit) or, outside a worker, woken: one statement.
  const wakes = [...freed].map(([webhookId, limit]) => ({ key: slotKey(webhookId), limit }));
  const worker = first.ctx.worker;
  const handOver = worker && {
    workerId: worker.id,
    lockedUntil: iso(new Date(now.getTime() + worker.leaseMs(DELIVER_JOB))),
    slotUntil: iso(new Date(now.getTime() + timeoutMs + LEASE_MARGIN_MS)),
    now: iso(now),
  };
  const handed = await recordAttempts(trx, records, wakes, handOver);
  await enqueueJobs(trx, later, now);
  // Each endpoint followed through its attempts in the order they ended, as one attempt after the other would.
  const endpoints = new Map<string, DeliveryEndpointRow>();
  for (const [i, { attempt, result }] of ends.entries()) {
    const out = finished[i];
    const row = locked.get(attempt.delivery.id);
    if (!out || out === 'lost' || out.outcome === null || !row) continue;
    const endpoint = endpoints.get(row.endpoint.id) ?? row.endpoint;
    endpoints.set(endpoint.id, endpoint);
    out.disabled = await followEndpoint(trx, endpoint, row.delivery, attempt, result, now);
  }
  return { finished, handed: await beginHanded(trx, handed, first.ctx, deps, timeoutMs) };
}

/**
 * The jobs handed the freed slots, begun in the transaction that handed them (still under their endpoints' locks):
 * each rule of a start holds as in `beginBatch`, which does it; the slot taken at the hand-over is not counted
 * again.
 */
async function beginHanded(
  trx: Transaction<DB>,
  handed: readonly HandedJob[],
  ctx: DeliveryContext,
  deps: DeliveryDeps,
  timeoutMs: number,
): Promise<(HandedJob & { began: Began })[]> {
  if (handed.length === 0) return [];
  for (const { job, reserved } of handed) if (reserved) reservedSlots.add(job);
  const began = await beginBatch(
    trx,
    handed.map(({ job }) => ({ job, ctx })),
    deps,
    timeoutMs,
  );
  return handed.map((h, i) => ({ ...h, began: began[i] ?? 'lost' }));
}

/**
 * The endpoint after an attempt: failing since its first failure, well again on a success, disabled at 3 days.
 * `endpoint` is the batch's copy, kept as written for the next attempt of the batch.
 */
async function followEndpoint(
  trx: Transaction<DB>,
  endpoint: DeliveryEndpointRow,
  delivery: DeliveryRow,
  a: Attempt,
  result: AttemptResult,
  now: Date,
): Promise<Disabled | null> {
  if (endpoint.deleted_at !== null || endpoint.status !== 'enabled') return null;
  if (result.delivered) {
    if (endpoint.failing_since !== null) {
      await updateDeliveryEndpoint(trx, endpoint.account_id, endpoint.id, { failing_since: null });
      endpoint.failing_since = null;
    }
    return null;
  }
  if (delivery.status !== 'pending') return null;
  if (endpoint.failing_since === null) {
    endpoint.failing_since = iso(a.attemptAt);
    await updateDeliveryEndpoint(trx, endpoint.account_id, endpoint.id, { failing_since: endpoint.failing_since });
    return null;
  }
  if (a.attemptAt.getTime() - Date.parse(endpoint.failing_since) < FAILING_DISABLE_MS) return null;
  endpoint.status = 'disabled';
  return disableFailingEndpoint(trx, endpoint, endpoint.failing_since, result, now);
}

/** What an attempt changes on its delivery: always its count, time, answer and slot; the rest when it ends or moves. */
type Outcome = Pick<AttemptRecord, 'attempts' | 'last_attempt_at' | 'last_response_status' | 'in_flight_until'> &
  Partial<Pick<AttemptRecord, 'status' | 'next_attempt_at' | 'last_error' | 'delivered_at'>>;

/** The attempt's outcome on the delivery (counted, answered, retried or failed) and the next attempt's time, if any. */
function attemptOutcome(
  delivery: DeliveryRow,
  a: Attempt,
  result: AttemptResult,
  now: Date,
  random: Random,
): { changes: Outcome; next: Date | null } {
  const attempts = delivery.attempts + 1;
  const common = {
    attempts,
    last_attempt_at: iso(a.attemptAt),
    last_response_status: result.responseStatus,
    in_flight_until: null,
  };
  if (result.delivered) {
    const changes: Outcome = {
      ...common,
      status: 'succeeded',
      last_error: null,
      next_attempt_at: null,
      delivered_at: iso(now),
    };
    return { changes, next: null };
  }
  if (delivery.status === 'pending') {
    // Drawn in the window of Part C's table (server/retries.ts): never later than it states.
    const delay = webhookRetryDelayMs(attempts, random);
    const next = delay === null ? null : new Date(a.attemptAt.getTime() + delay);
    const changes: Outcome = {
      ...common,
      status: next ? 'pending' : 'failed',
      last_error: result.error,
      next_attempt_at: next ? iso(next) : null,
    };
    return { changes, next };
  }
  // Failed meanwhile (its endpoint was disabled during the attempt): that reason stays.
  return { changes: common, next: null };
}

/** Failing for 3 days: disabled, its pending deliveries (this one included) dropped, the owner told. */
async function disableFailingEndpoint(
  trx: Transaction<DB>,
  endpoint: DeliveryEndpointRow,
  failingSince: string,
  result: Extract<AttemptResult, { delivered: false }>,
  now: Date,
): Promise<Disabled> {
  await updateDeliveryEndpoint(trx, endpoint.account_id, endpoint.id, {
    status: 'disabled',
    disabled_reason: 'failing',
    disabled_at: iso(now),
    updated_at: iso(now),
  });
  const dropped = await dropPendingDeliveries(trx, endpoint.account_id, endpoint.id, 'endpoint_disabled');
  const notificationId = randomUUID();
  await insertAccountNotification(trx, {
    id: notificationId,
    accountId: endpoint.account_id,
    kind: 'webhook_disabled',
    subjectType: 'webhook',
    subjectId: endpoint.id,
    details: {
      reason: 'failing',
      url: endpoint.url,
      failing_since: failingSince,
      last_error: result.error,
      last_response_status: result.responseStatus,
      dropped_deliveries: dropped,
    },
    at: iso(now),
  });
  return { failing_since: failingSince, notification_id: notificationId };
}

// ------------------------------------------------------------------------------------------------ retention

/** Makes sure one retention job exists (a process starting its workers calls it). */
export async function ensurePruneJob(db: Kysely<DB>, clock: Clock): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockPeriodicJob(trx, PRUNE_JOB);
    if (!(await hasJobOfKind(trx, PRUNE_JOB)))
      await enqueue(trx, clock, { kind: PRUNE_JOB, accountId: null, payload: {} });
  });
}

/**
 * Deletes deliveries older than 7 days, the outbox events no delivery refers to any more, stale pacing counters
 * and automation runs ended over 90 days ago, then enqueues the next run an hour later, leaving exactly one
 * waiting (a second one, from two processes starting at once, is removed).
 */
export async function runPruneJob(ctx: AttemptContext): Promise<{ deliveries: number }> {
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    await lockPeriodicJob(trx, PRUNE_JOB);
    const before = iso(new Date(now.getTime() - RETENTION_MS));
    const deliveries = await pruneDeliveries(trx, before);
    // The outbox keeps an event as long as a delivery of it is kept.
    const events = await pruneEvents(trx, before);
    await prunePacingCounters(trx, iso(new Date(now.getTime() - 2 * PACE_WINDOW_MS)));
    // The same hourly retention pass prunes the automations' run history (its rule is the workflows domain's).
    const runs = await pruneRunHistory(trx, now);
    if (runs > 0) ctx.logger.info({ runs }, 'automation runs ended over 90 days ago pruned');
    await deleteOtherIdleJobs(trx, PRUNE_JOB, null);
    await enqueue(trx, ctx.clock, {
      kind: PRUNE_JOB,
      accountId: null,
      payload: {},
      runAt: new Date(now.getTime() + PRUNE_EVERY_MS),
    });
    await ctx.complete(trx);
    if (deliveries + events > 0)
      ctx.logger.info({ deliveries, events }, 'webhook deliveries and events older than 7 days pruned');
    return { deliveries };
  });
}
