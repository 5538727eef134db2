// SQL of the events outbox (Part C). Rows are written in the transaction of the change they report; the
// webhooks work delivers them in `sequence` order.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB, EventsTable } from './schema.js';

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
