// The body of a webhook delivery (Part C, "Event envelope"): `{id, type, api_version, created_at, data}`.
//
// `data` is the stored data of the event (as of the change: the tags put on, the values changed), except for
// message events other than `message.updated`, whose `data` is the message as the API reads it at the attempt:
// a message deleted before its event is delivered arrives deleted (`is_removed` true, `text` null), while
// `message.updated` keeps the message as it was at that change.
import type { Kysely } from 'kysely';
import type { MessageRow } from '../../store/messaging.js';
import { findEventMessages } from '../../store/webhook-deliveries.js';
import type { DB } from '../../store/schema.js';
import { messageView } from '../messaging/views.js';

export const API_VERSION = 'v1';

export interface EventEnvelope {
  id: string;
  type: string;
  api_version: typeof API_VERSION;
  created_at: string;
  data: unknown;
}

/** The event as the outbox stores it (the columns the envelope needs). */
export interface StoredEvent {
  id: string;
  account_id: string;
  type: string;
  resource_type: string;
  resource_id: string;
  data: unknown;
  created_at: string;
}

export function eventEnvelope(event: { id: string; type: string; created_at: string }, data: unknown): EventEnvelope {
  return { id: event.id, type: event.type, api_version: API_VERSION, created_at: event.created_at, data };
}

/** Whether the event's `data` is read afresh at each attempt (the message as the API returns it now). */
export const readsResourceNow = (event: Pick<StoredEvent, 'type' | 'resource_type'>): boolean =>
  event.resource_type === 'message' && event.type !== 'message.updated';

/**
 * Each of `items` with the envelope of its event as sent (`body`: the exact bytes the signature covers), in their
 * order: the messages the message events carry are read in one statement (none when no event reads its resource
 * now), not one per event.
 */
export async function withEnvelopes<T>(
  db: Kysely<DB>,
  items: readonly T[],
  eventOf: (item: T) => StoredEvent,
  baseUrl: string,
): Promise<(T & { body: string })[]> {
  const reading = items.map(eventOf).filter(readsResourceNow);
  const messages = await findEventMessages(
    db,
    reading.map((e) => ({ accountId: e.account_id, messageId: e.resource_id })),
  );
  return items.map((item) => {
    const event = eventOf(item);
    const message: MessageRow | undefined = readsResourceNow(event)
      ? messages.get(`${event.account_id}:${event.resource_id}`)
      : undefined;
    // A message row is never deleted while its account exists; the stored data is the fallback all the same.
    const data = message ? messageView(message, baseUrl) : event.data;
    return { ...item, body: JSON.stringify(eventEnvelope(event, data)) };
  });
}
