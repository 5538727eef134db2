// The events outbox: every change that Part C reports writes its event here, in the change's own transaction
// (pass the transaction as `db`). The webhooks work delivers from it; nothing else sends events.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { insertEvents } from '../../store/events.js';
import type { DB } from '../../store/schema.js';

export const CONTACT_EVENT_TYPES = [
  'contact.created',
  'contact.tagged',
  'contact.untagged',
  'contact.custom_fields_updated',
] as const;
export type ContactEventType = (typeof CONTACT_EVENT_TYPES)[number];

export interface OutboxEvent {
  type: string;
  /** The resource the event is about, so a delivery can read it as it is at that moment. */
  resource: { type: 'contact' | 'message' | 'connection' | 'workflow_run'; id: string };
  /** The event's `data` as of the change. */
  data: unknown;
}

/** Writes the events, in order, with the moment `at` of the change. */
export async function recordEvents(
  db: Kysely<DB>,
  accountId: string,
  at: string,
  events: readonly OutboxEvent[],
): Promise<void> {
  await insertEvents(
    db,
    events.map((e) => ({
      id: randomUUID(),
      accountId,
      type: e.type,
      resourceType: e.resource.type,
      resourceId: e.resource.id,
      data: e.data,
      at,
    })),
  );
}
