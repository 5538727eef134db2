// SQL of webhook deliveries (Part C): the fan-out of the outbox, the attempt's reads and writes, the in-flight
// slots and pacing of an endpoint, the automatic disabling of a failing endpoint, the owner notifications and the
// 7-day retention.
//
// A delivery is created in the transaction that records its event, with its `webhook.deliver` job. An attempt
// takes a slot (`in_flight_until`, a lease) counted under a row lock on the endpoint, so at most N attempts of
// one endpoint run at once across every worker process.
import { sql, type Kysely, type Selectable } from 'kysely';
import { enqueueJobs, wakeJobsStatement } from './jobs.js';
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
 * The delivery, its endpoint and its account in one statement, the endpoint then the delivery locked (`FOR NO KEY
 * UPDATE`, in that order: the lock that serialises the endpoint's slot counting, then the row the attempt writes).
 * After a wait for either lock the statement returns their newest versions. Undefined when the delivery is gone.
 */
export async function lockDeliveryWithEndpoint(
  db: Kysely<DB>,
  deliveryId: string,
): Promise<LockedDelivery | undefined> {
  const row = await db
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
    .where('d.id', '=', deliveryId)
    .forNoKeyUpdate(['e', 'd'])
    .executeTakeFirst();
  if (!row) return undefined;
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
  return {
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
  };
}

/** What `takeSlot` found and did. */
export interface SlotTaking {
  /** The endpoint's slots taken before this one (leases running past `now`), and when the first of them ends. */
  taken: number;
  firstFreeAt: string | null;
  /** The attempt starts counted in the pacing window, this one included (null: no pacing, or no slot). */
  paced: number | null;
  /** The slot is this attempt's now (`in_flight_until` set), and its event (read only then). */
  event: DeliveryEventRow | null;
}

/**
 * One statement for the start of an attempt, under the endpoint lock (`lockDeliveryWithEndpoint`): counts the
 * endpoint's slots; if one is free, counts the start in the pacing window (when `pace` is given); if the pace
 * allows it, takes the slot (`in_flight_until` = `leaseUntil`, notified) and reads the event.
 */
export async function takeSlot(
  db: Kysely<DB>,
  input: {
    deliveryId: string;
    webhookId: string;
    eventId: string;
    now: string;
    leaseUntil: string;
    maxInFlight: number;
    pace: { perMinute: number; windowStart: string } | null;
  },
): Promise<SlotTaking> {
  const pace = input.pace;
  const { rows } = await sql<
    Omit<DeliveryEventRow, 'id'> & {
      id: string | null;
      taken: number | string;
      first_free_at: string | null;
      paced: number | null;
    }
  >`
    with slots as (
      select count(*) as taken, min(in_flight_until) as first_free_at
      from webhook_deliveries
      where webhook_id = ${input.webhookId} and in_flight_until is not null and in_flight_until > ${input.now}
    ),
    paced as (
      insert into rate_counters (bucket, window_start, count)
      select ${paceBucket(input.webhookId)}, ${pace?.windowStart ?? input.now}, 1
      from slots where ${pace !== null} and slots.taken < ${input.maxInFlight}
      on conflict (bucket, window_start) do update set count = rate_counters.count + 1
      returning count
    ),
    took as (
      update webhook_deliveries set in_flight_until = ${input.leaseUntil}
      where id = ${input.deliveryId}
        and (select taken from slots) < ${input.maxInFlight}
        and coalesce((select count from paced), 0) <= ${pace?.perMinute ?? 0}
      returning ${notifyDeliveryChanged()}
    )
    select slots.taken, slots.first_free_at, (select count from paced) as paced, ev.*
    from slots left join events ev on ev.id = ${input.eventId} and exists (select 1 from took)
  `.execute(db);
  const row = rows[0];
  if (!row) throw new Error('the slot statement returned no row');
  const { taken, first_free_at, paced, id, ...event } = row;
  return {
    taken: Number(taken),
    firstFreeAt: first_free_at,
    paced,
    event: id === null ? null : { ...event, id },
  };
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

/**
 * Records an attempt's outcome on its delivery and wakes the oldest job waiting for `waitKey` (the slot it freed,
 * `wakeJobsStatement` of ./jobs.ts): one statement. Call under the endpoint lock, like the parking it answers.
 */
export async function recordAttempt(
  db: Kysely<DB>,
  deliveryId: string,
  changes: AttemptChanges,
  waitKey: string,
): Promise<void> {
  await db
    .with('woken', (qb) => wakeJobsStatement(qb, waitKey, 1))
    .updateTable('webhook_deliveries')
    .set(changes)
    .where('id', '=', deliveryId)
    .returning(notifyDeliveryChanged())
    .execute();
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
