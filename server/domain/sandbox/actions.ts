// The sandbox's actions (admin API `/admin/v1/sandbox/…`): act as a contact on the sandbox channel, make the
// channel answer the next send in a given way, fail a sent whatsapp message, and the like. Each action stores
// what a real channel would deliver and emits the same events, through the same services the channels use.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { OffsetClock, type Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import { findConnection, type ConnectionRow } from '../../store/console.js';
import { findContact, updateContact, type ContactRow } from '../../store/contacts.js';
import {
  findMessage,
  findConversation,
  markInboundRead,
  updateConversation,
  type MessageRow,
} from '../../store/messaging.js';
import type { DB } from '../../store/schema.js';
import { apiTimestamp } from '../../store/timestamps.js';
import { contactNotFound, linkSamePerson } from '../contacts/contacts.js';
import { parsePhone } from '../contacts/phone.js';
import { conversationNotFound, messageNotFound } from '../messaging/conversations.js';
import { failSentMessage, type ProviderFailure } from '../messaging/failures.js';
import {
  checkSender,
  invalidSandboxAction,
  recordInbound,
  type InboundInput,
  type InboundResult,
} from '../messaging/inbound.js';
import { TEXT_LIMITS, textLength } from '../messaging/send-rules.js';
import {
  applyMessageChange,
  changeRefusal,
  recordAccountMessage,
  targetRefusal,
  type MessageChange,
} from '../messaging/message-changes.js';

/** The post type each message type relates to (a direct message relates to none). */
const POST_TYPE: Record<string, string | undefined> = {
  comment: 'feed',
  live_comment: 'live',
  story_message: 'story',
  story_mention: 'story',
};

/** How far back the channel's time of a message may lie (a channel's delivery delay). */
export const MAX_DELIVERY_DELAY_MS = 5 * 60_000;

const requireConnected = (connection: Pick<ConnectionRow, 'status'>) => {
  if (connection.status !== 'connected')
    throw invalidSandboxAction('connection_disconnected', 'A disconnected connection delivers nothing.');
};

/**
 * The sandbox plays the contact and the channel only on connections it serves: on one a real channel serves (a
 * WhatsApp Cloud API number), what the contact and the channel do comes from the channel itself, so an action
 * that pretends to be either is refused before anything changes.
 */
export const requireSandboxServed = (connection: Pick<ConnectionRow, 'provider'>) => {
  if (connection.provider !== 'sandbox')
    throw invalidSandboxAction(
      'not_sandbox',
      "A real channel (the WhatsApp Cloud API) carries this connection's messages: the sandbox does not act as its contact or channel.",
    );
};

/** The rules of SandboxInboundRequest that the format check cannot express. */
async function checkInbound(db: Kysely<DB>, clock: Clock, connection: ConnectionRow, input: InboundInput) {
  requireConnected(connection);
  checkSender(connection, input.from);
  if (input.type !== 'message' && connection.channel === 'whatsapp')
    throw invalidSandboxAction('not_instagram', `whatsapp has no ${input.type}.`);
  const postType = POST_TYPE[input.type];
  if (postType && !input.post)
    throw invalidSandboxAction('post_required', `A ${input.type} names its post, story or live in \`post\`.`);
  if (input.post && input.post.type !== postType)
    throw invalidSandboxAction('post_mismatch', `A ${input.type} does not relate to a ${input.post.type}.`);
  if (input.is_unsupported && (input.text !== null || input.attachments.length > 0))
    throw invalidSandboxAction('unsupported_with_content', 'An unsupported message carries no text or attachment.');
  if (!input.is_unsupported && input.text === null && input.attachments.length === 0)
    throw invalidSandboxAction('empty', 'Nothing to deliver: give text, an attachment, or is_unsupported.');
  if (input.created_at !== undefined) {
    const now = clock.now().getTime();
    const at = Date.parse(input.created_at);
    if (at > now || at < now - MAX_DELIVERY_DELAY_MS)
      throw invalidSandboxAction(
        'created_at_out_of_range',
        'created_at lies in the future or more than 5 minutes back.',
      );
  }
  if (input.reply_to_message_id !== null) {
    const quoted = await findMessage(db, connection.account_id, input.reply_to_message_id);
    const contact = quoted && (await findContact(db, connection.account_id, quoted.contact_id));
    const from = input.from;
    const same =
      contact &&
      contact.connection_id === connection.id &&
      (contact.channel === 'instagram'
        ? contact.instagram_id === from.instagram_id
        : from.phone !== undefined && contact.phone_key === parsePhone(from.phone).key);
    if (!same) throw invalidSandboxAction('reply_to_unknown', 'reply_to_message_id is not a message of this contact.');
  }
}

/** A contact writes to the connection (someone new the first time). */
export async function contactWrites(
  db: Kysely<DB>,
  clock: Clock,
  connection: ConnectionRow,
  input: InboundInput,
  baseUrl: string,
  /** Stores the file the contact sends, once the message is known to be deliverable; its stored attachment. */
  storeAttachment?: () => Promise<unknown>,
): Promise<InboundResult> {
  requireSandboxServed(connection);
  // The checks see the attachment to come, so a refused message leaves no stored file behind.
  await checkInbound(
    db,
    clock,
    connection,
    storeAttachment ? { ...input, attachments: [...input.attachments, {}] } : input,
  );
  const attachments = storeAttachment ? [...input.attachments, await storeAttachment()] : input.attachments;
  return recordInbound(db, clock, connection.account_id, connection, { ...input, attachments }, baseUrl);
}

/** How a contact is named on its channel, for a follow-up action of the same contact. */
function senderOf(contact: ContactRow): InboundInput['from'] {
  // A contact's row holds the identity of its channel (as its view reads it too).
  return contact.channel === 'instagram'
    ? { instagram_id: contact.instagram_id ?? '', username: contact.instagram_username ?? '', name: contact.name }
    : { phone: contact.phone ?? '', name: contact.name };
}

interface StoredCardButton {
  type: 'postback' | 'open_url';
  id: string | null;
  title: string;
}

/** The reply button `buttonId` of an outbound message (a text with buttons or cards), if any. */
function replyButton(message: MessageRow, buttonId: string): StoredCardButton | undefined {
  for (const attachment of message.attachments) {
    if (attachment.type !== 'cards') continue;
    for (const card of attachment.cards)
      for (const button of card.buttons) if (button.type === 'postback' && button.id === buttonId) return button;
  }
  return undefined;
}

const BUTTON_SOURCE: Record<string, string> = { api: 'api', workflow: 'workflow' };

/**
 * The contact taps a reply button: a contact message with the title as `text`, `button` (source `api` for a
 * key's message) and `reply_to_message_id`; `message.received`. It starts or resumes no automation.
 */
export async function contactTapsButton(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  messageId: string,
  buttonId: string,
  baseUrl: string,
): Promise<InboundResult> {
  const message = await findMessage(db, accountId, messageId);
  if (!message) throw messageNotFound();
  const connection = await findConnection(db, accountId, message.connection_id);
  if (connection) requireSandboxServed(connection);
  if (message.direction !== 'outbound')
    throw invalidSandboxAction('not_outbound', 'A contact taps buttons of messages the account sent.');
  if (message.status !== 'sent') throw invalidSandboxAction('not_sent', 'The message did not reach the contact.');
  const button = replyButton(message, buttonId);
  if (!button) throw invalidSandboxAction('no_such_button', `The message has no reply button with id ${buttonId}.`);
  const contact = await findContact(db, accountId, message.contact_id);
  if (!contact || !connection) throw contactNotFound();
  requireConnected(connection);
  return recordInbound(
    db,
    clock,
    accountId,
    connection,
    {
      from: senderOf(contact),
      type: 'message',
      text: button.title,
      attachments: [],
      post: null,
      reply_to_message_id: message.id,
      button: { id: button.id, title: button.title, source: BUTTON_SOURCE[message.sender_type] ?? 'other' },
      is_unsupported: false,
    },
    baseUrl,
  );
}

/**
 * Changes a message as the channel reports it, and emits `message.updated` or `message.deleted` (the seeds' rules:
 * messaging/message-changes.ts); the sandbox's own checks around them.
 */
async function changeMessage(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  messageId: string,
  baseUrl: string,
  change: MessageChange,
): Promise<MessageRow> {
  return db.transaction().execute(async (tx) => {
    const message = await findMessage(tx, accountId, messageId, { forUpdate: true });
    if (!message) throw messageNotFound();
    const connection = await findConnection(tx, accountId, message.connection_id);
    if (connection) requireSandboxServed(connection);
    const target = targetRefusal(message, change);
    if (target) throw invalidSandboxAction(target.reason, target.message);
    if (connection) requireConnected(connection);
    const refusal = changeRefusal(message, change);
    if (refusal) throw invalidSandboxAction(refusal.reason, refusal.message);
    return applyMessageChange(tx, message, change, clock.now().toISOString(), baseUrl);
  });
}

/** The contact reacts (instagram: one reaction per person per message, a new one replaces it). */
export function contactReacts(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  messageId: string,
  emoji: string | null,
  baseUrl: string,
): Promise<MessageRow> {
  return changeMessage(db, clock, accountId, messageId, baseUrl, { kind: 'reaction', emoji });
}

/** The contact edits its message (instagram). */
export function contactEdits(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  messageId: string,
  text: string,
  baseUrl: string,
): Promise<MessageRow> {
  return changeMessage(db, clock, accountId, messageId, baseUrl, { kind: 'edit', text });
}

/**
 * The contact unsends its direct message, or a comment is deleted (by the contact or by the account, as Part C's
 * `message.deleted` says): it reads as removed.
 */
export function contactDeletes(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  messageId: string,
  baseUrl: string,
): Promise<MessageRow> {
  return changeMessage(db, clock, accountId, messageId, baseUrl, { kind: 'delete' });
}

/** whatsapp reports a sent message undelivered. */
export function channelFailsMessage(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  messageId: string,
  failure: ProviderFailure,
  baseUrl: string,
): Promise<MessageRow> {
  return db.transaction().execute(async (tx) => {
    // An unknown message is failSentMessage's 404; a known one's connection must be the sandbox's.
    const message = await findMessage(tx, accountId, messageId);
    const connection = message && (await findConnection(tx, accountId, message.connection_id));
    if (connection) requireSandboxServed(connection);
    return failSentMessage(tx, clock, accountId, messageId, failure, baseUrl);
  });
}

export async function blockContact(
  db: Kysely<DB>,
  accountId: string,
  contactId: string,
  blocked: boolean,
): Promise<void> {
  if (!(await findContact(db, accountId, contactId))) throw contactNotFound();
  await updateContact(db, accountId, contactId, { blocked_from_automations: blocked });
}

/** The contact is found to be the same person as another contact of the account (another channel). */
export async function makeSamePerson(
  db: Kysely<DB>,
  accountId: string,
  contactId: string,
  otherId: string,
): Promise<void> {
  if (contactId === otherId) throw invalidSandboxAction('same_contact', 'A contact is already its own person.');
  if ((await linkSamePerson(db, accountId, contactId, otherId)) === 'two_on_one_connection')
    throw invalidSandboxAction('same_connection', 'The person would have two contacts on one connection.');
}

/** The account reads the conversation (as in the console), or marks it unread or not. */
export async function changeConversation(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  conversationId: string,
  change: { read?: boolean; unread?: boolean },
): Promise<void> {
  await db.transaction().execute(async (tx) => {
    if (!(await findConversation(tx, accountId, conversationId, { forUpdate: true }))) throw conversationNotFound();
    if (change.read) await markInboundRead(tx, accountId, conversationId, clock.now().toISOString());
    if (change.unread !== undefined)
      await updateConversation(tx, accountId, conversationId, { marked_unread: change.unread });
    else if (change.read) await updateConversation(tx, accountId, conversationId, { marked_unread: false });
  });
}

/**
 * Someone on the account types a text in the channel's own app: the channel reports it and the service stores
 * it as sent, `unattributed`, and emits `message.sent`. The native apps are not held to the API's 24-hour
 * window, so none is checked; the channel still carries nothing on a disconnected connection and no text over
 * its length limit. Like any reply, it marks the contact's messages read and is activity of the contact; being
 * a direct message, it puts the conversation in the list. It neither opens nor extends the reply window.
 */
export async function accountWritesInApp(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  conversationId: string,
  text: string,
  baseUrl: string,
): Promise<MessageRow> {
  return db.transaction().execute(async (tx) => {
    const conversation = await findConversation(tx, accountId, conversationId, { forUpdate: true });
    if (!conversation) throw conversationNotFound();
    const connection = await findConnection(tx, accountId, conversation.connection_id);
    if (!connection) throw conversationNotFound();
    requireSandboxServed(connection);
    requireConnected(connection);
    const limit = TEXT_LIMITS[connection.channel].text;
    if (textLength(text) > limit)
      throw invalidSandboxAction('text_too_long', `${connection.channel} carries at most ${limit} characters.`);
    const at = clock.now().toISOString();
    const account = { text, attachments: [], providerMessageId: `sandbox-${randomUUID()}` };
    const { message } = await recordAccountMessage(tx, clock, conversation, account, at, baseUrl);
    return message;
  });
}

export const sandboxDisabled = () => new ApiError(404, 'not_found', 'The sandbox is off on this service.');

/** The sandbox clock: the service clock, which an OffsetClock (or a test's ManualClock) lets advance. */
export function sandboxClockView(clock: Clock) {
  const now = clock.now();
  return {
    now: apiTimestamp(now),
    // The clock only moves forward; a test's ManualClock stands still while real time passes (never negative).
    offset_seconds:
      clock instanceof OffsetClock
        ? Math.round(clock.offsetSeconds())
        : Math.max(0, Math.round((now.getTime() - Date.now()) / 1000)),
  };
}
