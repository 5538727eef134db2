// What every message the account sends does, whoever sent it (a key, someone in the native app; later a team
// member or an automation): stored as `sent`, the contact's messages marked read (like a console reply), the
// conversation in the inbox with its last message moved (never back), the contact's activity moved, and
// `message.sent` in the outbox. Inside the caller's transaction.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { insertOutboundMessage, type ConversationRow, type MessageRow } from '../../store/messaging.js';
import type { DB } from '../../store/schema.js';
import { recordEvents } from '../events/outbox.js';
import { messageView } from './views.js';

export interface OutboundMessage {
  /** The message's id when it was chosen before the send (an automation's send made after its stretch). */
  id?: string;
  sender: {
    type: 'api' | 'unattributed' | 'workflow';
    name: string | null;
    api_key_id: string | null;
    /** For `workflow`: the automation that sent it. */
    workflow_id?: string | null;
  };
  /** What the message answers (a private reply to a comment). */
  replyToMessageId?: string | null;
  /** `comment_dm_reply` for the private reply to a comment; `message` otherwise. */
  type?: 'message' | 'comment_dm_reply' | 'comment_reply';
  text: string | null;
  /** Stored attachment form (views.ts). */
  attachments: readonly unknown[];
  template: unknown;
  providerMessageId: string | null;
}

export async function recordOutbound(
  tx: Kysely<DB>,
  conversation: Pick<ConversationRow, 'id' | 'account_id' | 'contact_id' | 'connection_id' | 'channel'>,
  message: OutboundMessage,
  at: string,
  baseUrl: string,
): Promise<MessageRow> {
  const accountId = conversation.account_id;
  const row = await insertOutboundMessage(tx, {
    id: message.id ?? randomUUID(),
    account_id: accountId,
    conversation_id: conversation.id,
    contact_id: conversation.contact_id,
    connection_id: conversation.connection_id,
    channel: conversation.channel,
    type: message.type ?? 'message',
    direction: 'outbound',
    sender_type: message.sender.type,
    sender_user_id: null,
    sender_name: message.sender.name,
    sender_workflow_id: message.sender.workflow_id ?? null,
    sender_api_key_id: message.sender.api_key_id,
    text: message.text,
    attachments: JSON.stringify(message.attachments),
    template: message.template ? JSON.stringify(message.template) : null,
    reply_to_message_id: message.replyToMessageId ?? null,
    button: null,
    post: null,
    status: 'sent',
    failure: null,
    reactions: JSON.stringify([]),
    read_at: null,
    provider_message_id: message.providerMessageId,
    created_at: at,
  });
  await recordEvents(tx, accountId, at, [
    { type: 'message.sent', resource: { type: 'message', id: row.id }, data: messageView(row, baseUrl) },
  ]);
  return row;
}
