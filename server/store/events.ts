// SQL of the events outbox (Part C). Rows are written in the transaction of the change they report; the
// webhooks work delivers them in `sequence` order.
import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import { JOBS_READY_CHANNEL, type JobRow } from './jobs.js';
import type { DB, EventsTable } from './schema.js';
import { DELIVERIES_CHANGED_CHANNEL } from './webhook-deliveries.js';

export type EventRow = Selectable<EventsTable>;

export interface NewEvent {
  id: string;
  accountId: string;
  type: EventRow['type'];
  resourceType: string;
  resourceId: string;
  data: unknown;
  at: string;
}

/**
 * The channel notified when events are recorded, at the commit of their transaction: the admin event stream
 * (server/http/event-stream.ts) reads what is new then, rather than polling.
 */
export const EVENTS_RECORDED_CHANNEL = 'events_recorded';

export async function insertEvents(db: Kysely<DB>, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  // One notification per transaction: PostgreSQL folds identical ones, and delivers them at the commit only.
  await db
    .insertInto('events')
    .values(
      events.map((e) => ({
        id: e.id,
        account_id: e.accountId,
        type: e.type,
        resource_type: e.resourceType,
        resource_id: e.resourceId,
        data: JSON.stringify(e.data),
        created_at: e.at,
      })),
    )
    .returning(sql<string>`pg_notify(${EVENTS_RECORDED_CHANNEL}, '')`.as('notified'))
    .execute();
}

/** A job written in the statement of the events (the job of the change they report). */
export interface JobWithEvents {
  kind: string;
  accountId: string | null;
  /** The payload as stored (JSON text). */
  payload: string;
  runAt: string;
  createdAt: string;
  /** Claimed at insert for a worker of this process (then nobody is woken for it), or left to the loops. */
  claim: { lockedBy: string; lockedUntil: string } | null;
}

/**
 * The events of a change, in order, with the moment `at`, and their fan-out, in one statement: one pending
 * delivery (due at `at`) per enabled endpoint of the account subscribed to the event's type, each with its job
 * of kind `deliverJobKind` (payload `{delivery_id}`). Nothing of it while the account is suspended or has the
 * API off. `job`, when given, is written in the same statement whatever becomes of the events, and answered as
 * stored. The commit notifies EVENTS_RECORDED_CHANNEL, DELIVERIES_CHANGED_CHANNEL per delivery and
 * JOBS_READY_CHANNEL when a job due now and unclaimed was added (as insertEvents, insertDeliveriesWithJobs and
 * enqueue do).
 */
export async function insertEventsWithDeliveries(
  db: Kysely<DB>,
  write: {
    accountId: string;
    at: string;
    events: readonly Omit<NewEvent, 'accountId' | 'at'>[];
    deliverJobKind: string;
    job?: JobWithEvents;
  },
): Promise<JobRow | undefined> {
  const { accountId, at, events, deliverJobKind, job } = write;
  if (events.length === 0 && !job) return undefined;
  const eventRows = events.map(
    (e, i) =>
      sql`(${i}::int, ${e.id}::uuid, ${e.type}::text, ${e.resourceType}::text, ${e.resourceId}::text, ${JSON.stringify(e.data)}::jsonb)`,
  );
  const types = [...new Set(events.map((e) => e.type))];
  const fanOut: RawBuilder<unknown> =
    events.length === 0
      ? sql``
      : sql`
    account as (
      select id from accounts where id = ${accountId}::uuid and not suspended and api_enabled
    ),
    event as (
      insert into events (id, account_id, type, resource_type, resource_id, data, created_at)
      select v.id, account.id, v.type, v.resource_type, v.resource_id, v.data, ${at}::timestamptz
      from account, (values ${sql.join(eventRows)}) as v (ord, id, type, resource_type, resource_id, data)
      order by v.ord
      returning id, type, sequence, pg_notify(${EVENTS_RECORDED_CHANNEL}, '') as notified
    ),
    endpoint as (
      select id, event_types from webhook_endpoints
      where account_id = ${accountId}::uuid and deleted_at is null and status = 'enabled'
        and event_types && ${sql.val(types)}::text[]
    ),
    delivery as (
      insert into webhook_deliveries
        (id, account_id, webhook_id, event_id, event_type, event_created_at, status, attempts, next_attempt_at,
         created_at)
      select gen_random_uuid(), ${accountId}::uuid, endpoint.id, event.id, event.type, ${at}::timestamptz,
        'pending', 0, ${at}::timestamptz, ${at}::timestamptz
      from event join endpoint on event.type = any(endpoint.event_types)
      order by event.sequence, endpoint.id
      returning id, pg_notify(${DELIVERIES_CHANGED_CHANNEL}, account_id::text || ':' || id::text) as notified
    ),
    deliver_job as (
      insert into jobs (kind, account_id, payload, run_at, created_at)
      select ${deliverJobKind}::text, ${accountId}::uuid, jsonb_build_object('delivery_id', delivery.id),
        ${at}::timestamptz, ${at}::timestamptz
      from delivery
      returning pg_notify(${JOBS_READY_CHANNEL}, '') as notified
    )`;
  const jobCte = job
    ? sql`
    job as (
      insert into jobs (kind, account_id, payload, run_at, created_at, attempts, locked_by, locked_until)
      values (${job.kind}::text, ${job.accountId}::uuid, ${job.payload}::jsonb, ${job.runAt}::timestamptz,
        ${job.createdAt}::timestamptz, ${job.claim ? 1 : 0}::int, ${job.claim?.lockedBy ?? null}::text,
        ${job.claim?.lockedUntil ?? null}::timestamptz)
      returning *${job.claim ? sql`` : sql`, pg_notify(${JOBS_READY_CHANNEL}, '') as notified`}
    )`
    : sql``;
  // Every part is read by the main query, so each runs to its end whatever the planner would skip.
  const counts =
    events.length === 0
      ? sql``
      : sql`(select count(*) from event) as event_count, (select count(*) from deliver_job) as deliver_job_count`;
  const statement = job
    ? sql<JobRow>`with ${fanOut}${events.length === 0 ? sql`` : sql`,`}${jobCte}
      select job.*${events.length === 0 ? sql`` : sql`, `}${counts} from job`
    : sql<JobRow>`with ${fanOut} select ${counts}`;
  const { rows } = await statement.execute(db);
  return job ? rows[0] : undefined;
}

/** The account's events after the sequence `after` (exclusive), in sequence order, at most `limit`. */
export async function eventsAfter(
  db: Kysely<DB>,
  accountId: string,
  after: string,
  limit: number,
): Promise<EventRow[]> {
  return db
    .selectFrom('events')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('sequence', '>', after)
    .orderBy('sequence')
    .limit(limit)
    .execute();
}

/** The sequence of the account's latest event, or '0' when it has none. */
export async function lastEventSequence(db: Kysely<DB>, accountId: string): Promise<string> {
  const row = await db
    .selectFrom('events')
    .select('sequence')
    .where('account_id', '=', accountId)
    .orderBy('sequence', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.sequence ?? '0';
}
