// What a real channel reports of a message the account sent (whatsapp's `statuses`): `sent`, `delivered` and
// `read` change nothing the API shows (the seeds show no such states); `failed` makes the message read `failed`
// with `message.failed` (./failures.ts), carrying the channel's code and message. Statuses only move forward:
// each message keeps the highest one seen (sent 1, delivered 2, read 3, failed 4), and a repeat, or one that
// arrives after a later one, is a no-op: never an error, never a second event.
import type { Kysely } from 'kysely';
import { STATUS_RANK } from '../../channels/whatsapp-cloud/inbound.js';
import type { WhatsAppStatus } from '../../channels/whatsapp-cloud/decode.js';
import type { Clock } from '../../clock.js';
import { findMessageByProviderId, updateMessage } from '../../store/messaging.js';
import type { DB } from '../../store/schema.js';
import { failSentMessage, type ProviderFailure } from './failures.js';

export type ProviderStatus = WhatsAppStatus;

export type StatusApplied = 'applied' | 'failed' | 'stale' | 'unknown_message';

/** Applies a status the channel reported for its message `providerMessageId` on the connection, in `db`. */
export async function applyProviderStatus(
  db: Kysely<DB>,
  clock: Clock,
  connectionId: string,
  report: { providerMessageId: string; status: ProviderStatus; failure: ProviderFailure | null },
  baseUrl: string,
): Promise<StatusApplied> {
  return db.transaction().execute(async (tx) => {
    const message = await findMessageByProviderId(tx, connectionId, 'outbound', report.providerMessageId, {
      forUpdate: true,
    });
    if (!message) return 'unknown_message';
    const rank = STATUS_RANK[report.status];
    if (rank <= message.provider_status_rank) return 'stale';
    await updateMessage(tx, message.account_id, message.id, { provider_status_rank: rank });
    if (report.status !== 'failed' || message.status !== 'sent') return 'applied';
    const failure = report.failure ?? { provider_code: null, provider_message: null };
    await failSentMessage(tx, clock, message.account_id, message.id, failure, baseUrl);
    return 'failed';
  });
}
