// The account's events as the console follows them (the admin event stream): each as the envelope a webhook
// endpoint subscribed to its type would receive, in the order they were recorded.
import type { Kysely } from 'kysely';
import { EVENTS_RECORDED_CHANNEL, eventsAfter, lastEventSequence } from '../../store/events.js';
import type { DB } from '../../store/schema.js';
import { withEnvelopes } from '../webhooks/envelope.js';

/** Notified at the commit of every transaction that records events (any account). */
export const EVENTS_CHANNEL = EVENTS_RECORDED_CHANNEL;

export interface FedEvent {
  sequence: bigint;
  type: string;
  /** The envelope, serialized as a delivery would send it. */
  body: string;
}

/** Where a stream that was given no position starts: after the account's latest event. */
export async function feedStart(db: Kysely<DB>, accountId: string): Promise<bigint> {
  return BigInt(await lastEventSequence(db, accountId));
}

/**
 * The account's events after the sequence `after`, at most `limit` read, with their envelopes; those `known`
 * names (sent already) are left out before their envelopes are made.
 */
export async function feedAfter(
  db: Kysely<DB>,
  accountId: string,
  page: { after: bigint; limit: number; known: (sequence: bigint) => boolean },
  baseUrl: string,
): Promise<{ read: number; events: FedEvent[] }> {
  const rows = await eventsAfter(db, accountId, page.after.toString(), page.limit);
  const unsent = rows.filter((row) => !page.known(BigInt(row.sequence)));
  const enveloped = await withEnvelopes(db, unsent, (row) => row, baseUrl);
  return {
    read: rows.length,
    events: enveloped.map(({ sequence, type, body }) => ({ sequence: BigInt(sequence), type, body })),
  };
}
