// SQL of the events outbox (Part C). Rows are written in the transaction of the change they report; the
// webhooks work delivers them in `sequence` order.
import type { Kysely, Selectable } from 'kysely';
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

export async function insertEvents(db: Kysely<DB>, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
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
    .execute();
}
