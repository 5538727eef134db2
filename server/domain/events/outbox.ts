// The events outbox: every change that Part C reports writes its event here, in the change's own transaction
// (pass the transaction as `db`). The webhooks work delivers from it; nothing else sends events.
//
// The fan-out happens here too, in the same transaction: one pending delivery per enabled endpoint of the
// account subscribed to the event's type, each with its `webhook.deliver` job (server/domain/webhooks/delivery.ts).
// While the account is suspended or has the API off nothing is recorded at all: what happens then generates no
// event, not even after the account returns (Part C).
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { insertEvents, type NewEvent } from '../../store/events.js';
import type { DB } from '../../store/schema.js';
import { DELIVER_JOB } from '../../job-kinds.js';
import {
  accountEventState,
  insertDeliveriesWithJobs,
  subscribedEndpoints,
  type NewDelivery,
} from '../../store/webhook-deliveries.js';

export const CONTACT_EVENT_TYPES = [
  'contact.created',
  'contact.tagged',
  'contact.untagged',
  'contact.custom_fields_updated',
] as const;
export type ContactEventType = (typeof CONTACT_EVENT_TYPES)[number];

export interface OutboxEvent {
  type: NewEvent['type'];
  /** The resource the event is about, so a delivery can read it as it is at that moment. */
  resource: { type: 'contact' | 'message' | 'connection' | 'workflow_run' | 'tracked_link'; id: string };
  /** The event's `data` as of the change. */
  data: unknown;
}

/**
 * Writes the events, in order, with the moment `at` of the change, and their deliveries. Nothing when the
 * account is suspended or has the API off.
 */
export async function recordEvents(
  db: Kysely<DB>,
  accountId: string,
  at: string,
  events: readonly OutboxEvent[],
): Promise<void> {
  if (events.length === 0) return;
  const account = await accountEventState(db, accountId);
  if (!account || account.suspended || !account.api_enabled) return;
  const rows: NewEvent[] = events.map((e) => ({
    id: randomUUID(),
    accountId,
    type: e.type,
    resourceType: e.resource.type,
    resourceId: e.resource.id,
    data: e.data,
    at,
  }));
  await insertEvents(db, rows);
  const endpoints = await subscribedEndpoints(db, accountId, [...new Set(rows.map((e) => e.type))]);
  if (endpoints.length === 0) return;
  const deliveries: NewDelivery[] = [];
  for (const event of rows)
    for (const endpoint of endpoints)
      if (endpoint.event_types.includes(event.type))
        deliveries.push({
          id: randomUUID(),
          accountId,
          webhookId: endpoint.id,
          eventId: event.id,
          eventType: event.type,
          eventCreatedAt: at,
        });
  await insertDeliveriesWithJobs(db, deliveries, DELIVER_JOB, at);
}
