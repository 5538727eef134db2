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
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import type { ConnectionRow } from '../../store/console.js';
import { touchContactOfChannel, type ChannelContactKey, type ContactRow } from '../../store/contacts.js';
import type { JobWithEvents } from '../../store/events.js';
import {
  insertMessageInConversation,
  type ConversationRow,
  type MessageRow,
  type NewMessageRow,
} from '../../store/messaging.js';
import type { DB } from '../../store/schema.js';
import { insertChannelContact, type ChannelIdentity } from '../contacts/contacts.js';
import { parsePhone } from '../contacts/phone.js';
import { recordEventsWithJob, type OutboxEvent } from '../events/outbox.js';
import { INBOUND_MESSAGE_JOB } from '../../job-kinds.js';
import { claimedJobOf, type ClaimedJob, type JobsAtCommit, type NewJob } from '../../store/jobs.js';
import { held } from '../held.js';
import { DIRECT_TYPES, messageView } from './views.js';
import { newConversationRow } from './conversations.js';

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

/** How the channel names the sender's contact (the key of its row). */
const contactKey = (connection: ConnectionRow, sender: SenderIdentity): ChannelContactKey =>
  sender.channel === 'instagram'
    ? { channel: 'instagram', connectionId: connection.id, instagramId: sender.instagramId }
    : { channel: 'whatsapp', phoneKey: sender.phone.key };

/**
 * The sender's contact after a message, locked: its activity, name and username as the channel sends them now
 * (a deleted contact that writes comes back), created first when new. Inside the caller's transaction.
 */
async function contactOfSender(
  tx: Kysely<DB>,
  accountId: string,
  connection: ConnectionRow,
  from: InboundFrom,
  now: string,
): Promise<{ contact: ContactRow; created: boolean }> {
  const sender = senderIdentity(connection, from, 'channel');
  const key = contactKey(connection, sender);
  // The channel sends the current username with each message (SandboxInstagramSender: "It updates the contact's
  // instagram.username"); a real channel's thread item names none (`username_if_new` is for a new contact only).
  const touch = { name: from.name, username: (sender.channel === 'instagram' && from.username) || null };
  const known = await touchContactOfChannel(tx, accountId, key, touch, now);
  if (known) return { contact: known, created: false };
  const identity: ChannelIdentity =
    sender.channel === 'instagram'
      ? { channel: 'instagram', instagramId: sender.instagramId, username: sender.username }
      : { channel: 'whatsapp', phone: sender.phone.e164, phoneKey: sender.phone.key };
  const standIn = sender.channel === 'instagram' ? sender.username : sender.phone.e164;
  await insertChannelContact(tx, accountId, connection.id, identity, from.name ?? standIn, now);
  // Touched as a known one's would be (the name and username as sent), so both paths store the same.
  const created = held(
    await touchContactOfChannel(tx, accountId, key, touch, now),
    `the new contact of ${key.channel}`,
  );
  return { contact: created, created: true };
}

/**
 * The message's `messaging.inbound` job, written with its events. With `jobs` (a real channel's webhook job) it
 * is claimed for this process's worker, to be handed over once the transaction commits; else added for the loops.
 */
function inboundJob(clock: Clock, accountId: string, messageId: string, jobs: JobsAtCommit | undefined) {
  const job: NewJob<typeof INBOUND_MESSAGE_JOB> = {
    kind: INBOUND_MESSAGE_JOB,
    accountId,
    payload: { message_id: messageId },
  };
  const now = clock.now();
  const claim = jobs?.claimAtInsert(INBOUND_MESSAGE_JOB);
  const row: JobWithEvents = {
    kind: job.kind,
    accountId,
    payload: JSON.stringify(job.payload),
    runAt: now.toISOString(),
    createdAt: now.toISOString(),
    claim: claim
      ? { lockedBy: claim.workerId, lockedUntil: new Date(now.getTime() + claim.leaseMs).toISOString() }
      : null,
  };
  return { job, row, claimed: claim !== undefined };
}

/** The contact's message as stored, at the channel's time `at` (its conversation is set by the insert). */
const newMessageRow = (
  contact: ContactRow,
  input: InboundInput,
  at: string,
): Omit<NewMessageRow, 'conversation_id'> => ({
  id: randomUUID(),
  account_id: contact.account_id,
  contact_id: contact.id,
  connection_id: contact.connection_id,
  channel: contact.channel,
  type: input.type,
  direction: 'inbound',
  sender_type: 'contact',
  sender_user_id: null,
  sender_name: input.from.name ?? contact.name,
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

/**
 * Records the message in one transaction of few statements: the contact locked and touched in one, the
 * conversation ensured and moved with the message inserted in one, the event with its deliveries and the
 * message's job in one (a new contact adds its insert, its conversation and `contact.created`).
 */
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

    // Every contact has its conversation; one made before that rule gets it now.
    const { conversation, message } = await insertMessageInConversation(
      tx,
      newConversationRow(contact, now),
      newMessageRow(contact, input, at),
      DIRECT_TYPES.has(input.type),
    );

    // The automation engine consumes the job (answers, taps, triggers); messaging never imports the engine.
    const { job, row, claimed } = inboundJob(clock, accountId, message.id, jobs);
    const event: OutboxEvent = {
      type: eventTypeOfInbound(input.type),
      resource: { type: 'message', id: message.id },
      data: messageView(message, baseUrl),
    };
    const stored = await recordEventsWithJob(tx, accountId, now, [event], row);
    if (claimed) soon.push(claimedJobOf(stored, job));
    return { contact, conversation, message, contactCreated: created };
  });
  jobs?.runSoon(soon);
  return result;
}
