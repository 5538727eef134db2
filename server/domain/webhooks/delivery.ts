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
import { enqueue } from '../../store/jobs.js';
import type { DB } from '../../store/schema.js';
import {
  deleteOtherIdleJobs,
  lockDeliveryWithEndpoint,
  hasJobOfKind,
  insertAccountNotification,
  lockPeriodicJob,
  pruneDeliveries,
  recordAttempt,
  takeSlot,
  type AttemptChanges,
  pruneEvents,
  prunePacingCounters,
  updateDelivery,
  updateDeliveryEndpoint,
  type DeliveryEndpointRow,
  type DeliveryRow,
} from '../../store/webhook-deliveries.js';
import { signatureHeader } from '../../webhooks/signing.js';
import { DEFAULT_TIMEOUT_MS, deliveryHeaders, postEvent, type AttemptResult } from '../../webhooks/sender.js';
import type { TargetPolicy } from '../../webhooks/targets.js';
import { isRecord } from '../../guards.js';
import { signingSecrets } from './endpoints.js';
import { envelopeBody } from './envelope.js';
import { dropPendingDeliveries, slotKey } from './slots.js';

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
const later = (a: string | null, now: Date) => a !== null && Date.parse(a) > now.getTime();

/** What an attempt's job also needs: the source its retry wait is drawn from (server/retries.ts). */
export interface DeliveryContext extends AttemptContext {
  random: Random;
}

/** Runs one `webhook.deliver` job; its outcome is counted (server/metrics.ts) once its transaction committed. */
export async function runDeliveryJob(
  job: { id: string; payload: unknown },
  ctx: DeliveryContext,
  deps: DeliveryDeps,
): Promise<void> {
  const deliveryId = isRecord(job.payload) ? job.payload.delivery_id : undefined;
  if (typeof deliveryId !== 'string') {
    ctx.logger.error({ job: job.id }, 'webhook.deliver job without a delivery_id: dropped');
    await ctx.db.transaction().execute((trx) => ctx.complete(trx));
    return;
  }
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const attempt = await ctx.db.transaction().execute((trx) => begin(trx, ctx, deps, deliveryId, timeoutMs));
  if (attempt === 'dropped') countDeliveryOutcome('dropped');
  if (!attempt || attempt === 'dropped') return;

  const result = await postEvent({
    url: attempt.url,
    body: attempt.body,
    headers: attempt.headers,
    policy: deps.targets,
    timeoutMs,
  });

  const { disabled, outcome } = await ctx.db.transaction().execute((trx) => finish(trx, ctx, attempt, result));
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

/**
 * Checks, takes a slot and builds the request; null when there is nothing to send now (the job is then done),
 * `dropped` when the delivery failed without an attempt (its endpoint or account is off).
 */
async function begin(
  trx: Transaction<DB>,
  ctx: AttemptContext,
  deps: DeliveryDeps,
  deliveryId: string,
  timeoutMs: number,
): Promise<Attempt | 'dropped' | null> {
  const now = ctx.clock.now();
  const done = async () => {
    await ctx.complete(trx);
    return null;
  };
  // The delivery, its endpoint and its account in one statement; the endpoint's lock serialises its attempts'
  // slot counting across workers.
  const locked = await lockDeliveryWithEndpoint(trx, deliveryId);
  // Gone (its endpoint was deleted), no longer pending (succeeded, failed, dropped), or not yet due (the job of
  // a later attempt exists): nothing to do.
  if (!locked || locked.delivery.status !== 'pending' || later(locked.delivery.next_attempt_at, now)) return done();
  const { delivery, endpoint, account } = locked;

  const fail = async (lastError: 'endpoint_disabled' | 'account_disabled') => {
    await updateDelivery(trx, delivery.id, {
      status: 'failed',
      last_error: lastError,
      next_attempt_at: null,
      in_flight_until: null,
    });
    await done();
    return 'dropped' as const;
  };
  if (endpoint.deleted_at !== null || endpoint.status !== 'enabled') return fail('endpoint_disabled');
  if (account.suspended || !account.api_enabled) return fail('account_disabled');

  const comeBackAt = async (at: Date | string) => {
    await scheduleAttempt(trx, delivery, at, now);
    return done();
  };
  // Another run of this delivery holds a slot (a repeated job): look again when its lease ends.
  const leaseEnd = delivery.in_flight_until;
  if (leaseEnd !== null && later(leaseEnd, now)) return comeBackAt(leaseEnd);
  const windowStart = Math.floor(now.getTime() / PACE_WINDOW_MS) * PACE_WINDOW_MS;
  // Counts the slots, then (one free) the pacing window, then (the pace allows it) takes the slot: one statement.
  const slot = await takeSlot(trx, {
    deliveryId: delivery.id,
    webhookId: endpoint.id,
    eventId: delivery.event_id,
    now: iso(now),
    leaseUntil: iso(new Date(now.getTime() + timeoutMs + LEASE_MARGIN_MS)),
    maxInFlight: deps.maxInFlight,
    pace:
      deps.pacePerMinute > 0
        ? { perMinute: deps.pacePerMinute, windowStart: new Date(windowStart).toISOString() }
        : null,
  });
  // maxInFlight is at least 1, so when the slots are full some lease is running and firstFreeAt is its end.
  if (slot.taken >= deps.maxInFlight && slot.firstFreeAt !== null) {
    // Woken by the first attempt of this endpoint to finish (under this same endpoint lock, so no wake-up is
    // lost), or when the earliest slot lease runs out if its worker died.
    await ctx.park(trx, { key: slotKey(endpoint.id), until: slot.firstFreeAt });
    return null;
  }
  // Past the window's allowance: a turn in a later window (each window takes the next `pacePerMinute`).
  if (slot.paced !== null && slot.paced > deps.pacePerMinute)
    return comeBackAt(new Date(windowStart + Math.floor((slot.paced - 1) / deps.pacePerMinute) * PACE_WINDOW_MS));

  const event = slot.event;
  if (!event) return fail('endpoint_disabled'); // cannot happen (foreign key); never retried forever
  const body = await envelopeBody(trx, event, deps.baseUrl);
  const attempt = delivery.attempts + 1;
  const signature = signatureHeader(body, signingSecrets(endpoint, now), Math.floor(now.getTime() / 1000));
  return {
    delivery,
    url: endpoint.url,
    body,
    headers: deliveryHeaders({ id: event.id, type: event.type }, attempt, signature),
    attempt,
    attemptAt: now,
  };
}

/** What finishing an attempt disabled: the endpoint failing since then, and the owner's notification. */
type Disabled = { failing_since: string; notification_id: string };

/**
 * Records the outcome, schedules the next attempt, completes the job; returns the outcome (none: the delivery
 * was deleted meanwhile) and what was disabled, if anything.
 */
async function finish(
  trx: Transaction<DB>,
  ctx: DeliveryContext,
  a: Attempt,
  result: AttemptResult,
): Promise<{ outcome: DeliveryOutcome | null; disabled: Disabled | null }> {
  // First: if this run's lease was taken over, everything below rolls back and the other run counts.
  await ctx.complete(trx);
  const now = ctx.clock.now();
  const locked = await lockDeliveryWithEndpoint(trx, a.delivery.id);
  if (!locked) return { outcome: null, disabled: null }; // deleted with its endpoint meanwhile
  const { delivery, endpoint } = locked;

  const { changes, next } = attemptOutcome(delivery, a, result, now, ctx.random);
  // The outcome recorded and, the slot being free, the oldest job waiting for one woken: one statement.
  await recordAttempt(trx, delivery.id, changes, slotKey(delivery.webhook_id));
  if (next) await scheduleAttempt(trx, delivery, next, now);
  const outcome = result.delivered ? 'succeeded' : next ? 'retrying' : 'failed';
  return { outcome, disabled: await followEndpoint(trx, endpoint, delivery, a, result, now) };
}

/** The endpoint after an attempt: failing since its first failure, well again on a success, disabled at 3 days. */
async function followEndpoint(
  trx: Transaction<DB>,
  endpoint: DeliveryEndpointRow | undefined,
  delivery: DeliveryRow,
  a: Attempt,
  result: AttemptResult,
  now: Date,
): Promise<Disabled | null> {
  if (!endpoint || endpoint.deleted_at !== null || endpoint.status !== 'enabled') return null;
  if (result.delivered) {
    if (endpoint.failing_since !== null)
      await updateDeliveryEndpoint(trx, endpoint.account_id, endpoint.id, { failing_since: null });
    return null;
  }
  if (delivery.status !== 'pending') return null;
  if (endpoint.failing_since === null) {
    await updateDeliveryEndpoint(trx, endpoint.account_id, endpoint.id, { failing_since: iso(a.attemptAt) });
    return null;
  }
  if (a.attemptAt.getTime() - Date.parse(endpoint.failing_since) < FAILING_DISABLE_MS) return null;
  return disableFailingEndpoint(trx, endpoint, endpoint.failing_since, result, now);
}

/** The attempt's outcome on the delivery (counted, answered, retried or failed) and the next attempt's time, if any. */
function attemptOutcome(
  delivery: DeliveryRow,
  a: Attempt,
  result: AttemptResult,
  now: Date,
  random: Random,
): { changes: AttemptChanges; next: Date | null } {
  const attempts = delivery.attempts + 1;
  const common = {
    attempts,
    last_attempt_at: iso(a.attemptAt),
    last_response_status: result.responseStatus,
    in_flight_until: null,
  };
  if (result.delivered) {
    const changes: AttemptChanges = {
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
    const changes: AttemptChanges = {
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
