// The events outbox: every change that Part C reports writes its event here, in the change's own transaction
// (pass the transaction as `db`). The webhooks work delivers from it; nothing else sends events.
//
// The fan-out happens here too, in the same transaction: one pending delivery per enabled endpoint of the
// account subscribed to the event's type, each with its `webhook.deliver` job (server/domain/webhooks/delivery.ts).
// While the account is suspended or has the API off nothing is recorded at all: what happens then generates no
// event, not even after the account returns (Part C).
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { insertEventsWithDeliveries, type JobWithEvents, type NewEvent } from '../../store/events.js';
import type { JobRow } from '../../store/jobs.js';
import type { DB } from '../../store/schema.js';
import { DELIVER_JOB } from '../../job-kinds.js';

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
 * Writes the events, in order, with the moment `at` of the change, and their deliveries, in one statement.
 * Nothing when the account is suspended or has the API off.
 */
export async function recordEvents(
  db: Kysely<DB>,
  accountId: string,
  at: string,
  events: readonly OutboxEvent[],
): Promise<void> {
  if (events.length === 0) return;
  await insertEventsWithDeliveries(db, { accountId, at, events: eventRows(events), deliverJobKind: DELIVER_JOB });
}

/**
 * `recordEvents` with the job of the change (an inbound message's) in the same statement, which is written
 * whatever becomes of the events: the job as stored.
 */
export async function recordEventsWithJob(
  db: Kysely<DB>,
  accountId: string,
  at: string,
  events: readonly OutboxEvent[],
  job: JobWithEvents,
): Promise<JobRow> {
  const row = await insertEventsWithDeliveries(db, {
    accountId,
    at,
    events: eventRows(events),
    deliverJobKind: DELIVER_JOB,
    job,
  });
  if (!row) throw new Error(`the ${job.kind} job written with the events was not returned`);
  return row;
}

const eventRows = (events: readonly OutboxEvent[]) =>
  events.map((e) => ({
    id: randomUUID(),
    type: e.type,
    resourceType: e.resource.type,
    resourceId: e.resource.id,
    data: e.data,
  }));
