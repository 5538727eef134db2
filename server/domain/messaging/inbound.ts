// What a channel delivers from a contact: a direct message, a comment, a story reply or mention, a live
// comment, a button tap. The sandbox channel calls this; a real channel adapter would too.
//
// - Someone new: the contact (with `contact.created`) and its conversation are created. A deleted contact
//   that writes again comes back under its id, without `contact.created`.
// - The message keeps the channel's time (`created_at`, which may lie a few seconds in the past);
//   `last_message_at` is the latest message time. Direct messages put the conversation in the inbox and move
//   `last_inbound_at` (the reply window); comments do neither.
// - The contact's profile name overwrites its name (and on instagram the username its username); the message
//   is activity (moves `updated_at`).
// - One event: `message.received`, `comment.received` or `live_comment.received`.
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import type { ConnectionRow } from '../../store/console.js';
import {
  lockContactByInstagramId,
  lockContactByPhoneKey,
  updateContact,
  type ContactRow,
} from '../../store/contacts.js';
import {
  findConversationOfContact,
  insertMessage,
  updateConversation,
  type ConversationRow,
  type MessageRow,
} from '../../store/messaging.js';
import type { DB } from '../../store/schema.js';
import { insertChannelContact } from '../contacts/contacts.js';
import { parsePhone } from '../contacts/phone.js';
import { recordEvents, type OutboxEvent } from '../events/outbox.js';
import { INBOUND_MESSAGE_JOB } from '../../job-kinds.js';
import { enqueue, enqueueClaimed, type ClaimedJob, type JobsAtCommit, type NewJob } from '../../store/jobs.js';
import { held } from '../held.js';
import { openConversation } from './conversations.js';
import { DIRECT_TYPES, messageView } from './views.js';

export const INBOUND_TYPES = ['message', 'comment', 'live_comment', 'story_message', 'story_mention'] as const;
export type InboundType = (typeof INBOUND_TYPES)[number];

export interface InboundFrom {
  /** instagram */
  instagram_id?: string;
  username?: string;
  /**
   * instagram, a real channel's thread item, which names no username (Meta's profile API would): the username a
   * new contact gets instead; an existing contact keeps its own. Never taken from the sandbox's request.
   */
  username_if_new?: string;
  /** whatsapp */
  phone?: string;
  /** The profile name the channel sent; null: none (a new contact is named by its phone or username). */
  name: string | null;
}

export interface InboundInput {
  from: InboundFrom;
  type: InboundType;
  text: string | null;
  /** Stored attachment form (see views.ts). */
  attachments: unknown[];
  post: { id: string; type: 'feed' | 'story' | 'live'; url: string | null } | null;
  reply_to_message_id: string | null;
  button: { id: string | null; title: string; source: string } | null;
  is_unsupported: boolean;
  /** The channel's time of the message; defaults to now. */
  created_at?: string;
  /** The channel's id of the message (whatsapp's `wamid`), unique on the connection; the sandbox draws one. */
  provider_message_id?: string;
}

export interface InboundResult {
  contact: ContactRow;
  conversation: ConversationRow;
  message: MessageRow;
  contactCreated: boolean;
}

export const invalidSandboxAction = (reason: string, message: string) =>
  new ApiError(422, 'invalid_sandbox_action', message, { reason });

export const eventTypeOfInbound = (type: string): OutboxEvent['type'] =>
  type === 'comment' ? 'comment.received' : type === 'live_comment' ? 'live_comment.received' : 'message.received';

type SenderIdentity =
  | { channel: 'instagram'; instagramId: string; username: string }
  | { channel: 'whatsapp'; phone: ReturnType<typeof parsePhone> };

/**
 * The sender fits the connection's channel: an instagram user on instagram, a valid phone on whatsapp. `channel`:
 * a real channel's delivery, whose instagram username may be `username_if_new` alone.
 */
function senderIdentity(
  connection: Pick<ConnectionRow, 'channel'>,
  from: InboundFrom,
  source: 'request' | 'channel',
): SenderIdentity {
  if (connection.channel === 'instagram') {
    const username = source === 'channel' ? (from.username ?? from.username_if_new) : from.username;
    if (!from.instagram_id || !username || from.phone !== undefined)
      throw invalidSandboxAction('identity_mismatch', 'An instagram contact is named by instagram_id and username.');
    return { channel: 'instagram', instagramId: from.instagram_id, username };
  }
  if (!from.phone || from.instagram_id !== undefined || from.username !== undefined)
    throw invalidSandboxAction('identity_mismatch', 'A whatsapp contact is named by phone.');
  return { channel: 'whatsapp', phone: parsePhone(from.phone) }; // 422 invalid_phone
}

/** A sender as a request names it (the sandbox): an instagram contact by its id and username. */
export function checkSender(connection: Pick<ConnectionRow, 'channel'>, from: InboundFrom): void {
  senderIdentity(connection, from, 'request');
}

/** The contact the channel names, created (or brought back) when new. Inside the caller's transaction. */
async function contactOfSender(
  tx: Kysely<DB>,
  accountId: string,
  connection: ConnectionRow,
  from: InboundFrom,
  now: string,
): Promise<{ contact: ContactRow; created: boolean }> {
  const sender = senderIdentity(connection, from, 'channel');
  let existing: ContactRow | undefined;
  if (sender.channel === 'instagram') {
    existing = await lockContactByInstagramId(tx, accountId, connection.id, sender.instagramId);
    if (!existing) {
      const identity = { channel: 'instagram' as const, instagramId: sender.instagramId, username: sender.username };
      return {
        contact: await insertChannelContact(tx, accountId, connection.id, identity, from.name ?? sender.username, now),
        created: true,
      };
    }
  } else {
    const phone = sender.phone;
    existing = await lockContactByPhoneKey(tx, accountId, phone.key);
    if (!existing) {
      const identity = { channel: 'whatsapp' as const, phone: phone.e164, phoneKey: phone.key };
      return {
        contact: await insertChannelContact(tx, accountId, connection.id, identity, from.name ?? phone.e164, now),
        created: true,
      };
    }
  }
  return { contact: existing, created: false };
}

/** The sender's contact after a message: its activity, name and username as the channel sends them now. */
async function touchContact(tx: Kysely<DB>, contact: ContactRow, from: InboundFrom, now: string): Promise<ContactRow> {
  // A message is activity; the profile name overwrites the name; a deleted contact that writes comes back.
  let fresh = await updateContact(tx, contact.account_id, contact.id, {
    ...(from.name !== null ? { name: from.name } : {}),
    updated_at: now,
    last_interaction_at: now,
    deleted_at: null,
  });
  // The channel sends the current username with each message (SandboxInstagramSender: "It updates the
  // contact's instagram.username").
  // A name that was only the username stand-in (no profile name yet: Instagram's thread items name no username,
  // so a real channel's new contact is `ig_<IGSID>` until a comment brings it) follows the username.
  if (contact.channel === 'instagram' && from.username && from.username !== contact.instagram_username) {
    const namedByUsername = from.name === null && fresh?.name === contact.instagram_username;
    fresh = await updateContact(tx, contact.account_id, contact.id, {
      instagram_username: from.username,
      ...(namedByUsername ? { name: from.username } : {}),
    });
  }
  return held(fresh, `contact ${contact.id}`);
}

/**
 * The message's `messaging.inbound` job, in its transaction. With `jobs` (a real channel's webhook job) it is
 * claimed for this process's worker and returned, to be handed over once the transaction commits; else added for
 * the loops (and [] returned).
 */
async function enqueueInboundJob(
  tx: Transaction<DB>,
  clock: Clock,
  accountId: string,
  messageId: string,
  jobs: JobsAtCommit | undefined,
): Promise<ClaimedJob[]> {
  const job: NewJob<typeof INBOUND_MESSAGE_JOB> = {
    kind: INBOUND_MESSAGE_JOB,
    accountId,
    payload: { message_id: messageId },
  };
  const claim = jobs?.claimAtInsert(INBOUND_MESSAGE_JOB);
  if (claim) return [await enqueueClaimed(tx, clock, job, claim)];
  await enqueue(tx, clock, job);
  return [];
}

export async function recordInbound(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  connection: ConnectionRow,
  input: InboundInput,
  baseUrl: string,
  jobs?: JobsAtCommit,
): Promise<InboundResult> {
  const soon: ClaimedJob[] = [];
  const result = await db.transaction().execute(async (tx) => {
    const now = clock.now().toISOString();
    const at = input.created_at ?? now;
    const { contact, created } = await contactOfSender(tx, accountId, connection, input.from, now);
    const freshContact = await touchContact(tx, contact, input.from, now);

    const direct = DIRECT_TYPES.has(input.type);
    // Every contact has its conversation; one made before that rule gets it now.
    await openConversation(tx, contact, now);
    const conversation = held(
      await findConversationOfContact(tx, accountId, contact.id, { forUpdate: true }),
      `the conversation of contact ${contact.id}`,
    );

    const message = await insertMessage(tx, {
      id: randomUUID(),
      account_id: accountId,
      conversation_id: conversation.id,
      contact_id: contact.id,
      connection_id: contact.connection_id,
      channel: contact.channel,
      type: input.type,
      direction: 'inbound',
      sender_type: 'contact',
      sender_user_id: null,
      sender_name: input.from.name ?? freshContact.name,
      sender_workflow_id: null,
      sender_api_key_id: null,
      text: input.text,
      attachments: JSON.stringify(input.attachments),
      template: null,
      reply_to_message_id: input.reply_to_message_id,
      button: input.button ? JSON.stringify(input.button) : null,
      post: input.post ? JSON.stringify(input.post) : null,
      status: 'received',
      failure: null,
      is_unsupported: input.is_unsupported,
      reactions: JSON.stringify([]),
      read_at: null,
      provider_message_id: input.provider_message_id ?? `sandbox-${randomUUID()}`,
      created_at: at,
    });

    const later = (a: string | null, b: string) => (a !== null && Date.parse(a) >= Date.parse(b) ? a : b);
    const fresh = await updateConversation(tx, accountId, conversation.id, {
      last_message_at: later(conversation.last_message_at, message.created_at),
      ...(direct ? { in_inbox: true, last_inbound_at: later(conversation.last_inbound_at, message.created_at) } : {}),
    });
    await recordEvents(tx, accountId, now, [
      {
        type: eventTypeOfInbound(input.type),
        resource: { type: 'message', id: message.id },
        data: messageView(message, baseUrl),
      },
    ]);
    // The automation engine consumes it (answers, taps, triggers); messaging never imports the engine.
    soon.push(...(await enqueueInboundJob(tx, clock, accountId, message.id, jobs)));
    const freshConversation = held(fresh, `conversation ${conversation.id}`);
    return { contact: freshContact, conversation: freshConversation, message, contactCreated: created };
  });
  jobs?.runSoon(soon);
  return result;
}
