// SQL of webhook deliveries (Part C): the fan-out of the outbox, the attempt's reads and writes, the in-flight
// slots and pacing of an endpoint, the automatic disabling of a failing endpoint, the owner notifications and the
// 7-day retention.
//
// A delivery is created in the transaction that records its event, with its `webhook.deliver` job. An attempt
// takes a slot (`in_flight_until`, a lease) counted under a row lock on the endpoint, so at most N attempts of
// one endpoint run at once across every worker process.
import { sql, type Kysely, type Selectable } from 'kysely';
import {
  claimedJobFromRow,
  enqueueJobs,
  handOverJobsOfKeysStatement,
  wakeJobsOfKeysStatement,
  type ClaimedJob,
  type JobRow,
} from './jobs.js';
import type { MessageRow } from './messaging.js';
import type {
  AccountNotificationsTable,
  DB,
  EventsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
} from './schema.js';

export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type DeliveryEndpointRow = Selectable<WebhookEndpointsTable>;
export type DeliveryEventRow = Selectable<EventsTable>;
export type AccountNotificationRow = Selectable<AccountNotificationsTable>;

// ------------------------------------------------------------------------------------------------ fan-out

/** Whether the account may record and deliver events: not suspended, API on. Undefined when it does not exist. */
export async function accountEventState(
  db: Kysely<DB>,
  accountId: string,
): Promise<{ suspended: boolean; api_enabled: boolean } | undefined> {
  return db.selectFrom('accounts').select(['suspended', 'api_enabled']).where('id', '=', accountId).executeTakeFirst();
}

export interface NewDelivery {
  id: string;
  accountId: string;
  webhookId: string;
  eventId: string;
  eventType: DB['webhook_deliveries']['event_type'];
  eventCreatedAt: string;
}

/**
 * Inserts pending deliveries, due at `now`, and one job of kind `jobKind` (payload `{delivery_id}`, run now) for
 * each: two statements whatever the number of deliveries. Call in the event's transaction; its commit wakes
 * the idle workers (JOBS_READY_CHANNEL).
 */
/**
 * The channel notified (at the commit) each time one of an account's deliveries is recorded or changes, with the
 * payload `<account id>:<delivery id>`: the admin event stream pushes the delivery to the console then.
 */
export const DELIVERIES_CHANGED_CHANNEL = 'webhook_deliveries_changed';

/** A RETURNING column that notifies DELIVERIES_CHANGED_CHANNEL for each row written. */
export const notifyDeliveryChanged = () =>
  sql<string>`pg_notify(${DELIVERIES_CHANGED_CHANNEL}, account_id::text || ':' || id::text)`.as('notified');

export async function insertDeliveriesWithJobs(
  db: Kysely<DB>,
  deliveries: readonly NewDelivery[],
  jobKind: string,
  now: string,
): Promise<void> {
  if (deliveries.length === 0) return;
  await db
    .insertInto('webhook_deliveries')
    .values(
      deliveries.map((d) => ({
        id: d.id,
        account_id: d.accountId,
        webhook_id: d.webhookId,
        event_id: d.eventId,
        event_type: d.eventType,
        event_created_at: d.eventCreatedAt,
        status: 'pending' as const,
        attempts: 0,
        next_attempt_at: now,
        created_at: now,
      })),
    )
    .returning(notifyDeliveryChanged())
    .execute();
  // The jobs, due now: their commit wakes the idle workers (server/store/jobs.ts).
  await enqueueJobs(
    db,
    deliveries.map((d) => ({ kind: jobKind, accountId: d.accountId, payload: { delivery_id: d.id }, runAt: now })),
    new Date(now),
  );
}

// ------------------------------------------------------------------------------------------------ the attempt

export async function findDelivery(
  db: Kysely<DB>,
  deliveryId: string,
  options: { forUpdate?: boolean } = {},
): Promise<DeliveryRow | undefined> {
  let q = db.selectFrom('webhook_deliveries').selectAll().where('id', '=', deliveryId);
  if (options.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** Ends every in-flight slot lease (their attempts' process is gone); returns how many. */
export async function clearInFlightSlots(db: Kysely<DB>): Promise<number> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ in_flight_until: null })
    .where('in_flight_until', 'is not', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Ends the in-flight slot of one delivery (its attempt's process is gone); its endpoint, or null when none. */
export async function clearInFlightSlot(db: Kysely<DB>, deliveryId: string): Promise<string | null> {
  const row = await db
    .updateTable('webhook_deliveries')
    .set({ in_flight_until: null })
    .where('id', '=', deliveryId)
    .where('in_flight_until', 'is not', null)
    .returning('webhook_id')
    .executeTakeFirst();
  return row?.webhook_id ?? null;
}

const paceBucket = (webhookId: string) => `webhook:${webhookId}:attempts`;

/** A delivery with its endpoint (deleted or not) and its account's state, as an attempt reads them under lock. */
export interface LockedDelivery {
  delivery: DeliveryRow;
  endpoint: DeliveryEndpointRow;
  account: { suspended: boolean; api_enabled: boolean };
}

/**
 * The deliveries, each with its endpoint and its account, in one statement, the endpoint then the delivery locked
 * (`FOR NO KEY UPDATE`: the lock that serialises the endpoint's slot counting, then the row the attempt writes),
 * rows locked in the order of endpoint then delivery, so two batches never take them in opposite orders. After a
 * wait for a lock the statement returns the newest versions. A delivery that is gone is missing from the map.
 */
export async function lockDeliveriesWithEndpoints(
  db: Kysely<DB>,
  deliveryIds: readonly string[],
): Promise<Map<string, LockedDelivery>> {
  const locked = new Map<string, LockedDelivery>();
  if (deliveryIds.length === 0) return locked;
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', (join) =>
      join.onRef('e.account_id', '=', 'd.account_id').onRef('e.id', '=', 'd.webhook_id'),
    )
    .innerJoin('accounts as a', 'a.id', 'd.account_id')
    .selectAll('d')
    .select([
      'e.url as e_url',
      'e.description as e_description',
      'e.event_types as e_event_types',
      'e.status as e_status',
      'e.disabled_reason as e_disabled_reason',
      'e.disabled_at as e_disabled_at',
      'e.failing_since as e_failing_since',
      'e.secret as e_secret',
      'e.previous_secret as e_previous_secret',
      'e.previous_secret_expires_at as e_previous_secret_expires_at',
      'e.created_at as e_created_at',
      'e.updated_at as e_updated_at',
      'e.deleted_at as e_deleted_at',
      'a.suspended as a_suspended',
      'a.api_enabled as a_api_enabled',
    ])
    .where('d.id', 'in', [...new Set(deliveryIds)])
    .orderBy('d.webhook_id')
    .orderBy('d.id')
    .forNoKeyUpdate(['e', 'd'])
    .execute();
  for (const row of rows) {
    const {
      e_url,
      e_description,
      e_event_types,
      e_status,
      e_disabled_reason,
      e_disabled_at,
      e_failing_since,
      e_secret,
      e_previous_secret,
      e_previous_secret_expires_at,
      e_created_at,
      e_updated_at,
      e_deleted_at,
      a_suspended,
      a_api_enabled,
      ...delivery
    } = row;
    locked.set(delivery.id, {
      delivery,
      endpoint: {
        id: delivery.webhook_id,
        account_id: delivery.account_id,
        url: e_url,
        description: e_description,
        event_types: e_event_types,
        status: e_status,
        disabled_reason: e_disabled_reason,
        disabled_at: e_disabled_at,
        failing_since: e_failing_since,
        secret: e_secret,
        previous_secret: e_previous_secret,
        previous_secret_expires_at: e_previous_secret_expires_at,
        created_at: e_created_at,
        updated_at: e_updated_at,
        deleted_at: e_deleted_at,
      },
      account: { suspended: a_suspended, api_enabled: a_api_enabled },
    });
  }
  return locked;
}

/** What `takeSlots` found and did for one delivery. */
export interface SlotTaking {
  /** The endpoint's slots taken before this batch (leases running past `now`), and when the first of them ends. */
  taken: number;
  firstFreeAt: string | null;
  /** The batch's starts of this endpoint that found a slot (and were counted in the pacing window). */
  counted: number;
  /** Whether this start found a slot (its rank among the endpoint's starts of the batch is within the free slots). */
  slotFree: boolean;
  /** The attempt starts counted in the pacing window up to this one (null: no pacing, or no slot). */
  paced: number | null;
  /** The slot is this attempt's now (`in_flight_until` set), and its event (read only then). */
  event: DeliveryEventRow | null;
}

/** One start of an attempt for `takeSlots`: starts of one endpoint are served in the order given. */
export interface SlotRequest {
  deliveryId: string;
  webhookId: string;
  eventId: string;
  /**
   * Its slot was taken for it when the last one freed (`recordAttempts`' hand-over): kept if it still gets one
   * here (its own slot is not counted against it; give such starts first), given back otherwise.
   */
  reserved: boolean;
}

/**
 * One statement for the starts of a batch of attempts, under their endpoints' locks (`lockDeliveriesWithEndpoints`,
 * so its snapshot sees every slot committed before the locks were granted): counts each endpoint's slots; the
 * first starts of each endpoint that fit in its free slots are counted in the pacing window (when `pace` is given);
 * those the pace allows take their slot (`in_flight_until` = `leaseUntil`, notified) and read their event.
 * Returns what it did for each delivery.
 */
export async function takeSlots(
  db: Kysely<DB>,
  input: {
    starts: readonly SlotRequest[];
    now: string;
    leaseUntil: string;
    maxInFlight: number;
    pace: { perMinute: number; windowStart: string } | null;
  },
): Promise<Map<string, SlotTaking>> {
  const taking = new Map<string, SlotTaking>();
  if (input.starts.length === 0) return taking;
  const pace = input.pace;
  const starts = rankedStarts(input.starts);
  const { rows } = await sql<SlotRow>`
    with req as (
      select * from jsonb_to_recordset(${JSON.stringify(starts)}::jsonb)
        as r(delivery_id uuid, webhook_id uuid, event_id uuid, bucket text, rn integer, reserved boolean)
    ),
    slots as (
      select w.webhook_id, w.bucket, w.wanted, count(d.id)::integer as taken, min(d.in_flight_until) as first_free_at
      from (select webhook_id, min(bucket) as bucket, count(*)::integer as wanted from req group by webhook_id) w
      left join webhook_deliveries d
        on d.webhook_id = w.webhook_id and d.in_flight_until is not null and d.in_flight_until > ${input.now}
        and d.id not in (select delivery_id from req)
      group by w.webhook_id, w.bucket, w.wanted
    ),
    counted as (
      select webhook_id, bucket, taken, first_free_at,
        least(greatest(${input.maxInFlight}::integer - taken, 0), wanted) as counted
      from slots
    ),
    paced as (
      insert into rate_counters (bucket, window_start, count)
      select bucket, ${pace?.windowStart ?? input.now}, counted
      from counted where ${pace !== null} and counted > 0
      on conflict (bucket, window_start) do update set count = rate_counters.count + excluded.count
      returning bucket, count
    ),
    decided as (
      select req.delivery_id, req.event_id, req.reserved, c.taken, c.first_free_at, c.counted,
        req.rn <= c.counted as slot_free,
        case when req.rn <= c.counted then p.count - c.counted + req.rn end as paced
      from req join counted c on c.webhook_id = req.webhook_id
      left join paced p on p.bucket = c.bucket
    ),
    took as (
      update webhook_deliveries set in_flight_until =
        case when decided.slot_free and coalesce(decided.paced, 0) <= ${pace?.perMinute ?? 0}
          then ${input.leaseUntil}::timestamptz end
      from decided
      where webhook_deliveries.id = decided.delivery_id
        and (decided.slot_free and coalesce(decided.paced, 0) <= ${pace?.perMinute ?? 0} or decided.reserved)
      returning webhook_deliveries.id, webhook_deliveries.in_flight_until is not null as took, ${notifyDeliveryChanged()}
    )
    select decided.delivery_id, decided.taken, decided.first_free_at, decided.counted, decided.slot_free,
      decided.paced, ev.*
    from decided
    left join took on took.id = decided.delivery_id
    left join events ev on ev.id = decided.event_id and took.took
  `.execute(db);
  for (const row of rows) {
    const { delivery_id, taken, first_free_at, counted, slot_free, paced, id, ...event } = row;
    taking.set(delivery_id, {
      taken: Number(taken),
      firstFreeAt: first_free_at,
      counted: Number(counted),
      slotFree: slot_free,
      paced: paced === null ? null : Number(paced),
      event: id === null ? null : { ...event, id },
    });
  }
  return taking;
}

/** A row of `takeSlots`: what it did for one delivery, and its event when the slot was taken (else all null). */
type SlotRow = Omit<DeliveryEventRow, 'id'> & {
  id: string | null;
  delivery_id: string;
  taken: number;
  first_free_at: string | null;
  counted: number;
  slot_free: boolean;
  paced: number | null;
};

/** The starts as `takeSlots`' statement reads them: each with its rank among its endpoint's starts (from 1). */
function rankedStarts(starts: readonly SlotRequest[]) {
  const rank = new Map<string, number>();
  return starts.map((s) => {
    const rn = (rank.get(s.webhookId) ?? 0) + 1;
    rank.set(s.webhookId, rn);
    return {
      delivery_id: s.deliveryId,
      webhook_id: s.webhookId,
      event_id: s.eventId,
      bucket: paceBucket(s.webhookId),
      rn,
      reserved: s.reserved,
    };
  });
}

/**
 * The messages of a batch of message events, each of its own account, in one statement: keyed
 * `<account id>:<message id>`; a message that is gone is missing.
 */
export async function findEventMessages(
  db: Kysely<DB>,
  refs: readonly { accountId: string; messageId: string }[],
): Promise<Map<string, MessageRow>> {
  const found = new Map<string, MessageRow>();
  if (refs.length === 0) return found;
  const rows = await db
    .selectFrom('messages')
    .selectAll()
    .where('account_id', 'in', [...new Set(refs.map((r) => r.accountId))])
    .where('id', 'in', [...new Set(refs.map((r) => r.messageId))])
    .execute();
  // The pairs asked for only (an id of one account never reads another's message).
  const asked = new Set(refs.map((r) => `${r.accountId}:${r.messageId}`));
  for (const row of rows) {
    const key = `${row.account_id}:${row.id}`;
    if (asked.has(key)) found.set(key, row);
  }
  return found;
}

export async function updateDelivery(
  db: Kysely<DB>,
  deliveryId: string,
  changes: Partial<
    Pick<
      DeliveryRow,
      | 'status'
      | 'attempts'
      | 'next_attempt_at'
      | 'last_attempt_at'
      | 'last_response_status'
      | 'last_error'
      | 'delivered_at'
      | 'in_flight_until'
    >
  >,
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set(changes)
    .where('id', '=', deliveryId)
    .returning(notifyDeliveryChanged())
    .execute();
}

/** What recording an attempt changes on its delivery. */
export type AttemptChanges = Parameters<typeof updateDelivery>[2];

/** An attempt's outcome as `recordAttempts` writes it: every column given (the row's own value to keep it). */
export type AttemptRecord = Required<AttemptChanges> & { deliveryId: string };

/**
 * Hands the slots a batch of attempts freed to the deliveries waiting for them (`recordAttempts`): each waiter is
 * claimed for `workerId` (leased until `lockedUntil`) and, when its delivery can start now (pending, due, no slot
 * of its own), its slot is taken for it (`in_flight_until` = `slotUntil`) in the same statement, so no other start
 * takes it between this commit and that attempt's.
 */
export interface SlotHandOver {
  workerId: string;
  lockedUntil: string;
  slotUntil: string;
  now: string;
}

/** A waiting job claimed by `recordAttempts`' hand-over, and whether its delivery's slot was taken for it. */
export interface HandedJob {
  job: ClaimedJob;
  reserved: boolean;
}

const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

/**
 * Records the outcomes of a batch of attempts on their deliveries and, for each key of `wakes`, gives that many
 * jobs waiting for it the slots the batch freed: woken for any worker (`wakeJobsOfKeysStatement` of ./jobs.ts), or
 * with `handOver` claimed for its worker with their slots taken (returned). One statement. Call under the
 * endpoints' locks, like the parking it answers.
 */
export async function recordAttempts(
  db: Kysely<DB>,
  records: readonly AttemptRecord[],
  wakes: readonly { key: string; limit: number }[],
  handOver?: SlotHandOver,
): Promise<HandedJob[]> {
  if (records.length === 0) return [];
  const input = records.map(({ deliveryId, ...changes }) => ({ ...changes, delivery_id: deliveryId }));
  const recorded = recordedStatement(db, input);
  if (!handOver) {
    await sql`with woken as (${wakeJobsOfKeysStatement(db, wakes)}) ${recorded}`.execute(db);
    return [];
  }
  const recordedIds = JSON.stringify(records.map((r) => r.deliveryId));
  const now = handOver.now;
  const { rows } = await sql<JobRow & { reserved: boolean }>`
    with handed as (${handOverJobsOfKeysStatement(db, wakes, handOver)}),
    reserved as (
      update webhook_deliveries d set in_flight_until = ${handOver.slotUntil}
      where d.id in (select (h.payload->>'delivery_id')::uuid from handed h
          where h.payload->>'delivery_id' ~* ${UUID_PATTERN})
        and d.status = 'pending' and (d.next_attempt_at is null or d.next_attempt_at <= ${now})
        and (d.in_flight_until is null or d.in_flight_until <= ${now})
        and d.id not in (select jsonb_array_elements_text(${recordedIds}::jsonb)::uuid)
      returning d.id, ${notifyDeliveryChanged()}
    ),
    recorded as (${recorded})
    select h.*, exists (select 1 from reserved r where r.id::text = lower(h.payload->>'delivery_id')) as reserved
    from handed h
  `.execute(db);
  return rows.map(({ reserved, ...job }) => ({ job: claimedJobFromRow(job), reserved }));
}

/** The update of `recordAttempts`: every outcome from one `jsonb_to_recordset`, each row written notified. */
function recordedStatement(db: Kysely<DB>, input: readonly (AttemptChanges & { delivery_id: string })[]) {
  return db
    .updateTable('webhook_deliveries')
    .from(
      sql<AttemptChanges & { delivery_id: string }>`jsonb_to_recordset(${JSON.stringify(input)}::jsonb)`.as(
        sql`v(delivery_id uuid, status text, attempts integer, next_attempt_at timestamptz, last_attempt_at timestamptz,
          last_response_status integer, last_error text, delivered_at timestamptz, in_flight_until timestamptz)`,
      ),
    )
    .set((eb) => ({
      status: eb.ref('v.status'),
      attempts: eb.ref('v.attempts'),
      next_attempt_at: eb.ref('v.next_attempt_at'),
      last_attempt_at: eb.ref('v.last_attempt_at'),
      last_response_status: eb.ref('v.last_response_status'),
      last_error: eb.ref('v.last_error'),
      delivered_at: eb.ref('v.delivered_at'),
      in_flight_until: eb.ref('v.in_flight_until'),
    }))
    .where(sql<boolean>`webhook_deliveries.id = v.delivery_id`)
    .returning(notifyDeliveryChanged());
}

export async function updateDeliveryEndpoint(
  db: Kysely<DB>,
  accountId: string,
  webhookId: string,
  changes: Partial<
    Pick<DeliveryEndpointRow, 'status' | 'disabled_reason' | 'disabled_at' | 'failing_since' | 'updated_at'>
  >,
): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', webhookId)
    .execute();
}

// ------------------------------------------------------------------------------------------------ notifications

export interface NewAccountNotification {
  id: string;
  accountId: string;
  kind: DB['account_notifications']['kind'];
  subjectType: DB['account_notifications']['subject_type'];
  subjectId: string;
  details: AccountNotificationRow['details'];
  at: string;
}

export async function insertAccountNotification(db: Kysely<DB>, n: NewAccountNotification): Promise<void> {
  await db
    .insertInto('account_notifications')
    .values({
      id: n.id,
      account_id: n.accountId,
      kind: n.kind,
      subject_type: n.subjectType,
      subject_id: n.subjectId,
      details: JSON.stringify(n.details ?? null),
      created_at: n.at,
    })
    .execute();
}

/** The account's notifications, newest first. */
export async function listAccountNotifications(db: Kysely<DB>, accountId: string): Promise<AccountNotificationRow[]> {
  return db
    .selectFrom('account_notifications')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

// ------------------------------------------------------------------------------------------------ retention

/** Deletes deliveries created before `before`; returns how many. */
export async function pruneDeliveries(db: Kysely<DB>, before: string): Promise<number> {
  const result = await db.deleteFrom('webhook_deliveries').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes outbox events older than `before` that no delivery refers to any more. */
export async function pruneEvents(db: Kysely<DB>, before: string): Promise<number> {
  const result = await db
    .deleteFrom('events')
    .where('created_at', '<', before)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'events.id'))),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes the endpoints' pacing counters of windows that started before `before`. */
export async function prunePacingCounters(db: Kysely<DB>, before: string): Promise<number> {
  const result = await db
    .deleteFrom('rate_counters')
    .where('bucket', 'like', 'webhook:%')
    .where('window_start', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Removes the unclaimed jobs of `kind` other than `keepId` (so one periodic job stays); returns how many. */
export async function deleteOtherIdleJobs(db: Kysely<DB>, kind: string, keepId: string | null): Promise<number> {
  let q = db.deleteFrom('jobs').where('kind', '=', kind).where('locked_by', 'is', null).where('failed_at', 'is', null);
  if (keepId !== null) q = q.where('id', '!=', keepId);
  const result = await q.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Whether a job of `kind` is waiting or running. */
export async function hasJobOfKind(db: Kysely<DB>, kind: string): Promise<boolean> {
  const row = await db
    .selectFrom('jobs')
    .select('id')
    .where('kind', '=', kind)
    .where('failed_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Serialises the transactions that manage the periodic job `kind` (a transaction-scoped advisory lock). */
export async function lockPeriodicJob(db: Kysely<DB>, kind: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${kind}))`.execute(db);
}
