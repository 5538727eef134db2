// What a channel reports about a message already stored, and the account's own message written in the channel's
// app: the seeds' rules, shared by the sandbox (which plays the channel, domain/sandbox/actions.ts) and the real
// channels' webhooks (domain/channels/instagram-apply.ts). Each caller keeps its own checks (the sandbox: that it
// serves the connection, that the connection is connected) and decides what a refusal is (the sandbox: a 422; a
// webhook: a fact skipped and logged).
//
// - A reaction (instagram): one per person per message, a new one replaces the contact's; none removes it.
// - An edit (instagram): the contact's own direct message takes the new text and reads as edited.
// - A delete: the contact unsends its direct message, or a comment is deleted (by its author or the account, as
//   Part C's `message.deleted` says): it reads as removed.
// - Each on a direct message (a delete also on a comment), never on one already removed; `message.updated` or
//   `message.deleted` with the message as it is now.
// - Someone on the account writes in the channel's app: stored as sent, `unattributed`, `message.sent`, like any
//   reply it marks the contact's messages read; on instagram it may start automations (`message_sent`: the
//   message's `messaging.inbound` job). No window is checked, opened or extended.
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../clock.js';
import { INBOUND_MESSAGE_JOB } from '../../job-kinds.js';
import { enqueue, enqueueClaimed, type ClaimedJob, type JobsAtCommit, type NewJob } from '../../store/jobs.js';
import { updateMessage, type ConversationRow, type MessageRow } from '../../store/messaging.js';
import type { DB } from '../../store/schema.js';
import { apiTimestamp } from '../../store/timestamps.js';
import { recordEvents } from '../events/outbox.js';
import { recordOutbound } from './outbound.js';
import { DIRECT_TYPES, messageView } from './views.js';

export type MessageChange =
  /** `emoji` null: the contact's reaction is removed. `at`: the channel's time of it (else the change's). */
  { kind: 'reaction'; emoji: string | null; at?: string } | { kind: 'edit'; text: string } | { kind: 'delete' };

/** Why a change does not apply: the sandbox's `invalid_sandbox_action` reason and message. */
export interface ChangeRefusal {
  reason: 'not_direct_message' | 'message_removed' | 'not_instagram' | 'not_inbound';
  message: string;
}

/** What can be deleted: a contact's direct message (by the contact) and a comment (by its author or the account). */
const DELETABLE_TYPES: ReadonlySet<string> = new Set([...DIRECT_TYPES, 'comment', 'live_comment']);

/** The message is one the change can apply to at all (its type, not removed); null: it is. */
export function targetRefusal(
  message: Pick<MessageRow, 'type' | 'is_removed'>,
  change: MessageChange,
): ChangeRefusal | null {
  const types = change.kind === 'delete' ? DELETABLE_TYPES : DIRECT_TYPES;
  if (!types.has(message.type))
    return { reason: 'not_direct_message', message: 'Reactions, edits and unsends apply to direct messages.' };
  if (message.is_removed) return { reason: 'message_removed', message: 'The message was removed.' };
  return null;
}

/** The change fits the message's channel and side (reactions and edits are instagram's; edits, deletes the contact's). */
export function changeRefusal(
  message: Pick<MessageRow, 'channel' | 'direction'>,
  change: MessageChange,
): ChangeRefusal | null {
  if (message.channel !== 'instagram')
    return { reason: 'not_instagram', message: 'Only instagram has reactions and edits.' };
  if (change.kind !== 'reaction' && message.direction !== 'inbound')
    return { reason: 'not_inbound', message: 'A contact edits or unsends only its own messages.' };
  return null;
}

/** Every refusal in the seeds' order; null: the change applies. */
export const refusalOf = (message: MessageRow, change: MessageChange): ChangeRefusal | null =>
  targetRefusal(message, change) ?? changeRefusal(message, change);

/**
 * Applies a change the caller checked (`refusalOf`) to the message it holds locked, and records the event, at `at`
 * (the service's time). Inside the caller's transaction.
 */
export async function applyMessageChange(
  tx: Kysely<DB>,
  message: MessageRow,
  change: MessageChange,
  at: string,
  baseUrl: string,
): Promise<MessageRow> {
  const changed = await updateMessage(tx, message.account_id, message.id, changedFields(message, change, at));
  const type = change.kind === 'delete' ? 'message.deleted' : 'message.updated';
  await recordEvents(tx, message.account_id, at, [
    { type, resource: { type: 'message', id: changed.id }, data: messageView(changed, baseUrl) },
  ]);
  return changed;
}

function changedFields(message: MessageRow, change: MessageChange, at: string) {
  switch (change.kind) {
    case 'reaction': {
      const others = message.reactions.filter((r) => r.by !== 'contact');
      const created_at = apiTimestamp(new Date(change.at ?? at));
      const reactions =
        change.emoji === null ? others : [...others, { emoji: change.emoji, by: 'contact', created_at }];
      return { reactions: JSON.stringify(reactions) };
    }
    case 'edit':
      return { text: change.text, is_edited: true };
    case 'delete':
      return { is_removed: true };
  }
}

/** What the account wrote in the channel's own app. */
export interface AccountMessage {
  text: string | null;
  /** Stored attachment form (views.ts). */
  attachments: readonly unknown[];
  /** The channel's id of it (a sandbox one on the sandbox). */
  providerMessageId: string;
}

/**
 * Stores what the account wrote in the channel's app, in the caller's transaction, the conversation locked by it.
 * With `jobs` (a real channel's webhook job) the message's job is claimed for this process's worker and returned,
 * to be handed over once the transaction commits; else added for the loops.
 */
export async function recordAccountMessage(
  tx: Transaction<DB>,
  clock: Clock,
  conversation: ConversationRow,
  message: AccountMessage,
  at: string,
  baseUrl: string,
  jobs?: JobsAtCommit,
): Promise<{ message: MessageRow; claimed: ClaimedJob[] }> {
  const row = await recordOutbound(
    tx,
    conversation,
    {
      sender: { type: 'unattributed', name: null, api_key_id: null },
      text: message.text,
      attachments: message.attachments,
      template: null,
      providerMessageId: message.providerMessageId,
    },
    at,
    baseUrl,
  );
  // The account's own instagram direct message may start automations (the `message_sent` event).
  if (conversation.channel !== 'instagram') return { message: row, claimed: [] };
  const job: NewJob<typeof INBOUND_MESSAGE_JOB> = {
    kind: INBOUND_MESSAGE_JOB,
    accountId: conversation.account_id,
    payload: { message_id: row.id },
  };
  const claim = jobs?.claimAtInsert(INBOUND_MESSAGE_JOB);
  if (claim) return { message: row, claimed: [await enqueueClaimed(tx, clock, job, claim)] };
  await enqueue(tx, clock, job);
  return { message: row, claimed: [] };
}
