// A whatsapp send the channel reports as undelivered after accepting it (Part A: Message sent → failed,
// whatsapp only, a `message.failed` event). A message moves to failed at most once.
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { findMessage, updateMessage, type MessageRow } from '../../store/messaging.js';
import type { DB } from '../../store/schema.js';
import { apiTimestamp } from '../../store/timestamps.js';
import { recordEvents } from '../events/outbox.js';
import { messageNotFound } from './conversations.js';
import { invalidSandboxAction } from './inbound.js';
import { messageView } from './views.js';

export interface ProviderFailure {
  provider_code: string | null;
  provider_message: string | null;
}

/** Marks the sent whatsapp message failed and emits `message.failed`. Inside the caller's transaction. */
export async function failSentMessage(
  tx: Kysely<DB>,
  clock: Clock,
  accountId: string,
  messageId: string,
  failure: ProviderFailure,
  baseUrl: string,
): Promise<MessageRow> {
  const message = await findMessage(tx, accountId, messageId, { forUpdate: true });
  if (!message) throw messageNotFound();
  if (message.channel !== 'whatsapp')
    throw invalidSandboxAction('not_whatsapp', 'Only whatsapp reports a sent message as failed later.');
  if (message.direction !== 'outbound' || message.status !== 'sent')
    throw invalidSandboxAction('not_sent', 'Only a sent message can fail, and only once.');
  const now = clock.now();
  const at = now.toISOString();
  const failed = await updateMessage(tx, accountId, messageId, {
    status: 'failed',
    // In the API's form, like the event's own `created_at` (read back from the database).
    failure: JSON.stringify({ failed_at: apiTimestamp(now), ...failure }),
  });
  await recordEvents(tx, accountId, at, [
    { type: 'message.failed', resource: { type: 'message', id: failed.id }, data: messageView(failed, baseUrl) },
  ]);
  return failed;
}
