// A send by an automation (Part B): the same channel rules as an API send (send-rules), stored with
// `sender.type` `workflow` and the automation's id. A refusal is an outcome, never a throw: the engine records it
// on the step and ends that branch. The sandbox delivers inside the engine's transaction; a channel reached over
// the network (WhatsApp Cloud) is called after it commits, by the engine's send job (engine/later-send.ts), so no
// transaction or database connection waits on Meta: the send is checked in the stretch, checked again and
// delivered with no transaction, then recorded in a short one.
//
// The private reply to a comment (the first message of a comment-started run) is a `comment_dm_reply`
// answering the comment, and the public reply under it a `comment_reply`; neither is bound by the 24-hour window.
import { channelLostAuthorization, templatesGone } from '../channels/channel-answers.js';
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { SchemaSendMessageRequest } from '../../../generated/api.js';
import type { ChannelDelivery, DeliveryResult, OutboundContent, ReplyContext } from '../../channels/provider.js';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import { findConnection, findTemplate, type ConnectionRow } from '../../store/console.js';
import { findContact, type ContactRow } from '../../store/contacts.js';
import {
  findConversationAndConnection,
  findMessage,
  findConversationOfContact,
  type ConversationRow,
  type MessageRow,
} from '../../store/messaging.js';
import type { DB } from '../../store/schema.js';
import { trackingPrefix } from '../workflows/tracked-links.js';
import { channelDelivery, type MessagingProvider } from './delivery.js';
import { findMediaInfo } from './media.js';
import { checkSend } from './send-rules.js';
import { recordSent, storedTemplate } from './send.js';
import { freeFormRefusal, windowClosed } from './window.js';

export interface WorkflowSendDeps {
  clock: Clock;
  provider: MessagingProvider;
  baseUrl: string;
}

export interface WorkflowSend {
  account: { id: string; platform_signature: string | null };
  contactId: string;
  workflow: { id: string; title: string };
  body: SchemaSendMessageRequest;
  /** The comment this send answers privately (the first message of a comment-started run). */
  privateReplyTo?: string | null;
  /** The comment this send answers publicly, under the post (a reply list's reply). */
  publicReplyTo?: string | null;
  /**
   * The rows one run's stretch already read, kept for its next sends (one transaction: the contact, its
   * conversation and connection do not change under it in ways a send reads).
   */
  memo?: WorkflowSendMemo;
}

export interface WorkflowSendMemo {
  contact?: ContactRow;
  conversation?: ConversationRow;
  connection?: ConnectionRow;
}

/** The channel's rules, or the channel, refused the send: the step's error. */
export type SendRefused = { sent: false; code: string; message: string };

export type WorkflowSendResult =
  | { sent: true; message: MessageRow }
  | SendRefused
  /**
   * The rules passed and the channel is reached over the network: the message goes out after the caller's
   * transaction commits (`deliverWorkflowSend`, then `recordWorkflowSend`), as message `messageId`.
   */
  | { sent: 'later'; messageId: string; send: WorkflowSend };

/** A send the rules passed: what goes to the channel, and what its record needs. */
export interface CheckedSend {
  send: WorkflowSend;
  conversation: ConversationRow;
  connection: ConnectionRow;
  content: OutboundContent;
  delivery: ChannelDelivery;
  now: Date;
}

/** The comment a send answers, privately or publicly, as the channel gets it (its id and the channel's). */
async function replyContext(db: Kysely<DB>, send: WorkflowSend): Promise<ReplyContext | null> {
  const kind = send.privateReplyTo ? 'comment_private_reply' : 'comment_public_reply';
  const messageId = send.privateReplyTo ?? send.publicReplyTo;
  if (!messageId) return null;
  const comment = await findMessage(db, send.account.id, messageId);
  return { kind, messageId, providerMessageId: comment?.provider_message_id ?? null };
}

const refused = (code: string, message: string): SendRefused => ({ sent: false, code, message });

/** A channel's refusal as the step's outcome: its own code, or the seeds' code for what it means. */
function channelRefusal(
  channel: ConnectionRow['channel'],
  result: Exclude<DeliveryResult, { outcome: 'accepted' }>,
  lastInboundAt: string | null,
): SendRefused {
  switch (result.outcome) {
    case 'window_closed': {
      const closed = windowClosed('automation_send', channel, lastInboundAt);
      return refused(closed.code, closed.message);
    }
    case 'template_refused':
      return refused(result.code, `The channel refused the template (${result.code}).`);
    case 'authorization_lost':
      return refused('channel_disconnected', `The ${channel} connection is disconnected.`);
    default:
      return refused(result.outcome, `The channel answered ${result.outcome}.`);
  }
}

/**
 * An automation's send in the stretch's transaction: checked, then delivered in it (the sandbox), or, when the
 * channel is reached over the network, handed back as `later` (and `mayWait` false: delivered in it all the same).
 */
export async function sendFromWorkflow(
  tx: Transaction<DB>,
  deps: WorkflowSendDeps,
  send: WorkflowSend,
  options: { mayWait: boolean } = { mayWait: true },
): Promise<WorkflowSendResult> {
  const checked = await checkWorkflowSend(tx, deps, send);
  if ('refused' in checked) return checked.refused;
  if (options.mayWait && deps.provider.remote?.(checked.delivery.connection))
    return { sent: 'later', messageId: randomUUID(), send };
  return recordWorkflowSend(tx, deps, checked, await deps.provider.deliver(tx, checked.delivery, checked.now));
}

/**
 * A send handed back `later`, made with no transaction: the rules checked again (the moment is a little later)
 * and the channel called. Then `recordWorkflowSend` records its answer in a short transaction.
 */
export async function deliverWorkflowSend(
  db: Kysely<DB>,
  deps: WorkflowSendDeps,
  send: WorkflowSend,
): Promise<{ refused: SendRefused } | { checked: CheckedSend; result: DeliveryResult }> {
  const checked = await checkWorkflowSend(db, deps, send);
  if ('refused' in checked) return checked;
  return { checked, result: await deps.provider.deliver(db, checked.delivery, checked.now) };
}

/** Checks the send by the channel's rules and the 24-hour window: what to deliver, or the step's refusal. */
async function checkWorkflowSend(
  db: Kysely<DB>,
  deps: WorkflowSendDeps,
  send: WorkflowSend,
): Promise<{ refused: SendRefused } | CheckedSend> {
  const accountId = send.account.id;
  const memo = send.memo ?? {};
  const refusal = (code: string, message: string) => ({ refused: refused(code, message) });
  const contact = (memo.contact ??= await findContact(db, accountId, send.contactId));
  if (!contact) return refusal('contact_not_found', 'The contact no longer exists.');
  if (!memo.conversation && !memo.connection)
    Object.assign(memo, await findConversationAndConnection(db, accountId, contact.id, contact.connection_id));
  const conversation = (memo.conversation ??= await findConversationOfContact(db, accountId, contact.id));
  const connection = (memo.connection ??= await findConnection(db, accountId, contact.connection_id));
  if (!conversation || !connection) return refusal('contact_not_found', 'The contact has no conversation.');
  if (connection.status !== 'connected')
    return refusal('channel_disconnected', `The ${connection.channel} connection is disconnected.`);
  if (contact.blocked_from_automations)
    return refusal('contact_blocked', 'The account blocked this contact from automations.');
  let content;
  try {
    content = await checkSend(send.body, {
      channel: connection.channel,
      findMedia: (mediaId) => findMediaInfo(db, deps.clock, accountId, mediaId),
      findTemplate: (name, language) => findTemplate(db, accountId, connection.id, name, language),
      platformSignature: send.account.platform_signature,
      fitText: true,
      ownLinks: trackingPrefix(deps.baseUrl),
    });
  } catch (error) {
    if (error instanceof ApiError) return refusal(error.code, error.message);
    throw error;
  }
  const now = deps.clock.now();
  const answersComment = send.privateReplyTo ?? send.publicReplyTo ?? null;
  // An automation's blocks send no template: only a comment's answer goes through a closed window.
  const closed = freeFormRefusal(
    {
      asker: 'automation_send',
      channel: connection.channel,
      lastInboundAt: conversation.last_inbound_at,
      ...(answersComment ? { passes: 'comment_reply' } : {}),
    },
    now,
  );
  if (closed) return refusal(closed.code, closed.message);
  // Another app owns the thread (instagram's standby): refused as the channel would, without calling it. A public
  // reply is a comment under the post, not a message of the thread.
  if (conversation.owned_elsewhere_since !== null && !send.publicReplyTo)
    return refusal('conversation_not_owned', 'Another app controls this instagram conversation for now.');
  const delivery = channelDelivery(connection, contact, content, await replyContext(db, send));
  return { send, conversation, connection, content, delivery, now };
}

/**
 * What the channel's answer makes of the send, in the caller's transaction: the message recorded (as
 * `messageId` when it was chosen before), or the step's refusal with what it does to the connection.
 */
export async function recordWorkflowSend(
  tx: Transaction<DB>,
  deps: WorkflowSendDeps,
  checked: CheckedSend,
  result: DeliveryResult,
  messageId?: string,
): Promise<Exclude<WorkflowSendResult, { sent: 'later' }>> {
  const { send, conversation, connection, content } = checked;
  if (result.outcome !== 'accepted' && !(result.outcome === 'outcome_unknown' && result.providerAccepted)) {
    // instagram refusing the private reply to a comment (replies turned off on the post): the run is blocked.
    if (send.privateReplyTo && result.outcome === 'provider_rejected')
      return refused('private_reply_refused', 'The channel refused a private reply to this comment.');
    // What the channel's answer does to the connection: its authorization gone, its templates to read again.
    if (result.outcome === 'authorization_lost') await channelLostAuthorization(tx, deps.clock, connection.id);
    if (result.outcome === 'template_refused' && result.resync)
      await templatesGone(tx, deps.clock, send.account.id, connection.id);
    return channelRefusal(connection.channel, result, conversation.last_inbound_at);
  }
  const message = await recordSent(
    tx,
    deps,
    conversation,
    {
      ...(messageId ? { id: messageId } : {}),
      sender: { type: 'workflow', name: send.workflow.title, api_key_id: null, workflow_id: send.workflow.id },
      text: content.text,
      attachments: content.attachments,
      template: storedTemplate(content.template),
      providerMessageId: result.providerMessageId,
      ...(send.privateReplyTo ? { type: 'comment_dm_reply' as const, replyToMessageId: send.privateReplyTo } : {}),
      ...(send.publicReplyTo ? { type: 'comment_reply' as const, replyToMessageId: send.publicReplyTo } : {}),
    },
    result.outcome === 'accepted' ? result.failsLater : undefined,
  );
  return { sent: true, message };
}
