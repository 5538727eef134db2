// POST /v1/conversations/{conversationId}/messages: a send on the conversation's own connection (Part A).
//
// Order of checks: the conversation (404), its connection (channel_disconnected), the contact
// (contact_blocked), the body against the channel's rules (send-rules: forms, lengths, media, templates), then
// the 24-hour window (a template always passes), then whether another app owns the thread (instagram's standby:
// `conversation_not_owned` without calling the channel). Then the channel answers. Only an accepted message is stored:
// as `sent`, `sender.type` `api` with the key, `message.sent` in the outbox, the contact's messages marked
// read, `last_message_at` and the contact's activity moved. `outcome_unknown` with `provider_accepted` true
// stores the message too (it went out), so the conversation shows it when the partner checks.
import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { DeliveryResult, OutboundContent } from '../../channels/provider.js';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import type { ApiKeyRow } from '../../store/accounts.js';
import { findConnection, findTemplate, type ConnectionRow } from '../../store/console.js';
import { findContact, type ContactRow } from '../../store/contacts.js';
import { FAIL_LATER_JOB } from '../../job-kinds.js';
import { enqueue } from '../../store/jobs.js';
import {
  findConversation,
  lastInboundProviderId,
  type ConversationRow,
  type MessageRow,
} from '../../store/messaging.js';
import type { DB } from '../../store/schema.js';
import { channelLostAuthorization, templatesGone } from '../channels/channel-answers.js';
import { conversationNotFound } from './conversations.js';
import { channelConnection, channelDelivery, type MessagingProvider } from './delivery.js';
import { findMediaInfo } from './media.js';
import { checkSend } from './send-rules.js';
import type { SchemaSendMessageRequest } from '../../../generated/api.js';
import { recordOutbound, type OutboundMessage } from './outbound.js';
import { messageView, type MessageView } from './views.js';
import { freeFormRefusal, windowClosed } from './window.js';

/** How long after the send the sandbox's whatsapp reports non-delivery. */
export const FAIL_LATER_DELAY_MS = 5_000;

export interface SendDeps {
  db: Kysely<DB>;
  clock: Clock;
  provider: MessagingProvider;
  baseUrl: string;
  logger?: Logger;
}

export type FailsLater = { provider_code: string | null; provider_message: string | null };

export async function sendMessage(
  deps: SendDeps,
  account: { id: string; platform_signature: string | null },
  key: Pick<ApiKeyRow, 'id' | 'name'>,
  conversationId: string,
  body: SchemaSendMessageRequest,
): Promise<MessageView> {
  const { db, clock } = deps;
  const accountId = account.id;
  const { conversation, connection, contact } = await sendableConversation(db, accountId, conversationId);
  const content = await checkSend(body, {
    channel: connection.channel,
    findMedia: (mediaId) => findMediaInfo(db, clock, accountId, mediaId),
    findTemplate: (name, language) => findTemplate(db, accountId, connection.id, name, language),
    platformSignature: account.platform_signature,
  });
  const now = clock.now();
  const closed = freeFormRefusal(
    {
      asker: 'conversation_send',
      channel: connection.channel,
      lastInboundAt: conversation.last_inbound_at,
      ...(content.form === 'template' ? { passes: 'template' } : {}),
    },
    now,
  );
  if (closed) throw closed;
  // Another app owns the thread (instagram's standby): the channel would refuse it, so it is not called.
  if (conversation.owned_elsewhere_since !== null)
    throw refusal(connection.channel, { outcome: 'conversation_not_owned' }, null);

  const result = await deps.provider.deliver(db, channelDelivery(connection, contact, content), now);
  const record = (providerMessageId: string | null, failsLater: FailsLater | undefined) =>
    recordAccepted(deps, conversation, key, content, providerMessageId, failsLater);
  switch (result.outcome) {
    case 'accepted': {
      const sent = await record(result.providerMessageId, result.failsLater);
      void tellChannelRead(deps, connection, conversation.id);
      return messageView(sent, deps.baseUrl);
    }
    case 'outcome_unknown':
      if (result.providerAccepted) await record(result.providerMessageId, undefined);
      throw new ApiError(
        502,
        'outcome_unknown',
        'The channel did not confirm the send; the message may have gone out.',
        {
          provider_accepted: result.providerAccepted,
        },
      );
    case 'template_refused':
      if (result.resync) await db.transaction().execute((tx) => templatesGone(tx, clock, accountId, connection.id));
      throw await templateRefusal(deps.db, accountId, connection.id, content, result.code, result.providerCode);
    case 'authorization_lost':
      await db.transaction().execute((tx) => channelLostAuthorization(tx, clock, connection.id));
      throw refusal(connection.channel, result, conversation.last_inbound_at);
    default:
      throw refusal(connection.channel, result, conversation.last_inbound_at);
  }
}

/**
 * The send marked what the contact sent so far as read: a channel with read receipts (whatsapp) is told too, after
 * the answer's work and without holding it up; a failure is logged, never the send's.
 */
export async function tellChannelRead(
  deps: Pick<SendDeps, 'db' | 'provider' | 'logger'>,
  connection: ConnectionRow,
  conversationId: string,
): Promise<void> {
  try {
    const providerMessageId = await lastInboundProviderId(deps.db, conversationId);
    if (providerMessageId === undefined || !deps.provider.markRead) return;
    await deps.provider.markRead({ connection: channelConnection(connection), providerMessageId });
  } catch (error) {
    deps.logger?.warn({ err: error, connection_id: connection.id }, 'the channel was not told the messages were read');
  }
}

/** The conversation (404), its connection (channel_disconnected) and its contact (contact_blocked), checked. */
async function sendableConversation(
  db: Kysely<DB>,
  accountId: string,
  conversationId: string,
): Promise<{ conversation: ConversationRow; connection: ConnectionRow; contact: ContactRow }> {
  const conversation = await findConversation(db, accountId, conversationId);
  if (!conversation) throw conversationNotFound();
  const connection = await findConnection(db, accountId, conversation.connection_id);
  const contact = await findContact(db, accountId, conversation.contact_id);
  if (!connection || !contact) throw conversationNotFound();
  const channel = connection.channel;

  if (connection.status !== 'connected')
    throw new ApiError(422, 'channel_disconnected', `The ${channel} connection of this conversation is disconnected.`, {
      channel,
      ...(connection.disconnect_reason === 'authorization_lost' ? { reason: 'authorization_lost' } : {}),
    });
  if (contact.blocked_from_automations)
    throw new ApiError(422, 'contact_blocked', 'The account blocked this contact from automations.');
  return { conversation, connection, contact };
}

/** How a channel's refusal of the send is answered (a template's refusal: `templateRefusal`). */
function refusal(
  channel: ConnectionRow['channel'],
  result: Exclude<DeliveryResult, { outcome: 'accepted' | 'outcome_unknown' | 'template_refused' }>,
  lastInboundAt: string | null,
): ApiError {
  switch (result.outcome) {
    case 'window_closed':
      // The channel's clock closed the window before ours: the same answer as when ours did.
      return windowClosed('conversation_send', channel, lastInboundAt);
    case 'authorization_lost':
      return new ApiError(
        422,
        'channel_disconnected',
        `The ${channel} connection of this conversation is disconnected.`,
        {
          channel,
          reason: 'authorization_lost',
        },
      );
    case 'provider_rejected':
      return new ApiError(422, 'provider_rejected', 'The channel refused the message.', {
        channel,
        provider_message: result.providerMessage,
      });
    case 'provider_throttled':
      return new ApiError(429, 'provider_throttled', `${channel} is holding the account's sends. Retry later.`, {
        channel,
      });
    case 'provider_unavailable':
      return new ApiError(503, 'provider_unavailable', `${channel} failed without sending. Retry.`, { channel });
    case 'recipient_unavailable':
      return new ApiError(
        422,
        'recipient_unavailable',
        'The conversation or the contact no longer exists on the channel.',
      );
    case 'conversation_not_owned':
      return new ApiError(
        422,
        'conversation_not_owned',
        'Another app controls this instagram conversation for now; it returns by itself.',
      );
  }
}

/**
 * The channel refused the template as asked: the same errors (and context) as the send rules' own check, the
 * details read from what was sent and the template as the account holds it.
 */
async function templateRefusal(
  db: Kysely<DB>,
  accountId: string,
  connectionId: string,
  content: OutboundContent,
  code: Extract<DeliveryResult, { outcome: 'template_refused' }>['code'],
  providerCode: string,
): Promise<ApiError> {
  const name = content.template?.name ?? '';
  const language = content.template?.language ?? '';
  switch (code) {
    case 'template_not_found':
      return new ApiError(422, code, 'The channel no longer knows this template.', { name, language });
    case 'template_not_approved':
      return new ApiError(422, code, 'The channel holds this template as not approved.', {
        status: providerCode === '132016' ? 'disabled' : 'paused',
      });
    case 'template_variables_mismatch': {
      const received = content.template?.body_variables.length ?? 0;
      const template = await findTemplate(db, accountId, connectionId, name, language);
      return new ApiError(422, code, 'The channel expects other values for the template body.', {
        expected: template?.variable_count ?? received,
        received,
      });
    }
  }
}

/** A template as the messages table stores it: name and language (the values are in the filled `text`). */
export const storedTemplate = (template: OutboundContent['template']) =>
  template && { name: template.name, language: template.language };

/**
 * The channel took the message: from here a failure to record it must not release the key (a retry would
 * send it twice), so it answers outcome_unknown with provider_accepted true, which keeps the key.
 */
async function recordAccepted(
  deps: SendDeps,
  conversation: ConversationRow,
  key: Pick<ApiKeyRow, 'id' | 'name'>,
  content: OutboundContent,
  providerMessageId: string | null,
  failsLater: FailsLater | undefined,
): Promise<MessageRow> {
  try {
    return await storeSent(deps, conversation, key, content, providerMessageId, failsLater);
  } catch (error) {
    deps.logger?.error(
      {
        err: error,
        account_id: conversation.account_id,
        conversation_id: conversation.id,
        provider_message_id: providerMessageId,
      },
      'a send the channel accepted could not be recorded',
    );
    throw new ApiError(
      502,
      'outcome_unknown',
      'The channel accepted the message but the service could not record it.',
      {
        provider_accepted: true,
      },
    );
  }
}

async function storeSent(
  deps: SendDeps,
  conversation: ConversationRow,
  key: Pick<ApiKeyRow, 'id' | 'name'>,
  content: OutboundContent,
  providerMessageId: string | null,
  failsLater: FailsLater | undefined,
): Promise<MessageRow> {
  return deps.db.transaction().execute((tx) =>
    recordSent(
      tx,
      deps,
      conversation,
      {
        sender: { type: 'api', name: key.name, api_key_id: key.id },
        text: content.text,
        attachments: content.attachments,
        template: storedTemplate(content.template),
        providerMessageId,
      },
      failsLater,
    ),
  );
}

/**
 * Records a message the channel accepted, in the caller's transaction: the outbound message (./outbound.ts)
 * and, when whatsapp said it would fail later, the job that reports it.
 */
export async function recordSent(
  tx: Transaction<DB>,
  deps: Pick<SendDeps, 'clock' | 'baseUrl'>,
  conversation: ConversationRow,
  message: OutboundMessage,
  failsLater: FailsLater | undefined,
): Promise<MessageRow> {
  const now = deps.clock.now();
  const row = await recordOutbound(tx, conversation, message, now.toISOString(), deps.baseUrl);
  if (failsLater)
    await enqueue(tx, deps.clock, {
      kind: FAIL_LATER_JOB,
      accountId: conversation.account_id,
      payload: { message_id: row.id, ...failsLater, base_url: deps.baseUrl },
      runAt: new Date(now.getTime() + FAIL_LATER_DELAY_MS),
    });
  return row;
}
