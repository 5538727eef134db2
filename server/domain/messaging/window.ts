// The 24-hour reply window (Part A "Messaging window", Part B `POST …/runs`, sleep and link buttons), in one home.
//
// Why one module: the window was computed in views.ts and enforced, each in its own words, by the API send, the
// automation's send, `POST …/runs`, the conditional block and the multichannel block. Every one of them now asks
// here: "may this conversation receive a free-form message now, and if not, which error". The real channels add
// Meta's own "outside the window" answers (whatsapp 131047, instagram 2534022) here too, so that a window the
// channel closed before our clock did is answered with the same error as one our clock closed.
import type { Kysely } from 'kysely';
import { ApiError } from '../../errors.js';
import type { ConnectionRow } from '../../store/console.js';
import { findConversationOfContact } from '../../store/messaging.js';
import type { DB } from '../../store/schema.js';
import { epochMicros, timestampOfEpochMicros } from '../../store/timestamps.js';

type Channel = ConnectionRow['channel'];

/** The reply window: 24 hours after the contact's last direct message. */
export const REPLY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** A conversation's window as the API shows it (`reply_window`). */
export interface ReplyWindow {
  state: 'open' | 'closed';
  closes_at: string | null;
}

/**
 * The window of a conversation whose contact last wrote a direct message at `lastInboundAt` (as the database
 * returns it, to the microsecond). `closes_at` is that moment plus 24 hours exactly, microseconds kept (a Date
 * holds milliseconds only), in the format of every other timestamp.
 */
export function replyWindow(lastInboundAt: string | null, now: Date): ReplyWindow {
  if (lastInboundAt === null) return { state: 'closed', closes_at: null };
  const closesAt = epochMicros(lastInboundAt) + REPLY_WINDOW_MS * 1000;
  const open = now.getTime() * 1000 < closesAt;
  return { state: open ? 'open' : 'closed', closes_at: timestampOfEpochMicros(closesAt) };
}

/**
 * Who asks, since each answers a closed window in the seeds' words for it: the API's send on a conversation
 * (Part A), an automation's send (Part B: an outcome on the step) and `POST …/runs` of an automation that sends.
 */
export type WindowAsker = 'conversation_send' | 'automation_send' | 'run_start';

/** One message about to go to a conversation. */
export interface FreeFormQuestion {
  asker: WindowAsker;
  channel: Channel;
  /** The contact's last direct message on the connection (null: it never wrote, or has no conversation). */
  lastInboundAt: string | null;
  /**
   * What lets a message through a closed window: a template (Part A), or the private or public reply to a
   * comment (Part B: the first message of a comment-started run, a reply list's reply).
   */
  passes?: 'template' | 'comment_reply';
}

/** Null when the message may go now; else the error the asker answers. */
export function freeFormRefusal(question: FreeFormQuestion, now: Date): ApiError | null {
  if (question.passes !== undefined) return null;
  // The same window the conversation shows, to the microsecond.
  if (replyWindow(question.lastInboundAt, now).state === 'open') return null;
  return windowClosed(question.asker, question.channel, question.lastInboundAt);
}

/**
 * The error of a closed window, for `asker` (the seeds' error tables): whatsapp's `template_required` on the
 * API's send, `messaging_window_closed` otherwise; `POST …/runs` carries `last_inbound_at` only (Part B).
 */
export function windowClosed(asker: WindowAsker, channel: Channel, lastInboundAt: string | null): ApiError {
  const last = { last_inbound_at: lastInboundAt };
  switch (asker) {
    case 'conversation_send':
      return channel === 'whatsapp'
        ? new ApiError(
            422,
            'template_required',
            'The contact has not written in the last 24 hours: only a template reaches them.',
            { channel, ...last },
          )
        : new ApiError(
            422,
            'messaging_window_closed',
            'The contact has not written in the last 24 hours: the messaging window is closed.',
            { channel, ...last },
          );
    case 'automation_send':
      return new ApiError(422, 'messaging_window_closed', 'The contact has not written in the last 24 hours.', {
        channel,
        ...last,
      });
    case 'run_start':
      return new ApiError(
        422,
        'messaging_window_closed',
        'The automation sends and the contact’s 24-hour window is closed.',
        last,
      );
  }
}

/** The contact's last direct message on its conversation (null when it has none, or the contact never wrote). */
async function lastInboundAtOf(db: Kysely<DB>, accountId: string, contactId: string): Promise<string | null> {
  const conversation = await findConversationOfContact(db, accountId, contactId);
  return conversation?.last_inbound_at ?? null;
}

/** Whether the contact's 24-hour window is open now (closed when it never wrote). */
export async function replyWindowOpen(db: Kysely<DB>, accountId: string, contactId: string, now: Date) {
  return replyWindow(await lastInboundAtOf(db, accountId, contactId), now).state === 'open';
}

/** `freeFormRefusal` of a message to the contact's own conversation, as the database has it now. */
export async function contactFreeFormRefusal(
  db: Kysely<DB>,
  accountId: string,
  contact: { id: string; channel: Channel },
  asker: WindowAsker,
  now: Date,
): Promise<ApiError | null> {
  const lastInboundAt = await lastInboundAtOf(db, accountId, contact.id);
  return freeFormRefusal({ asker, channel: contact.channel, lastInboundAt }, now);
}

/**
 * The channels' own answers that a message fell outside the window (Meta keeps its own clock, and may have
 * closed it before ours did): whatsapp's error 131047 ("Re-engagement message"), instagram's subcode 2534022
 * ("outside of allowed window"). The sandbox answers none of them; a real provider that reports one has the
 * send answered with `windowClosed`, exactly as when our clock closed it.
 */
const PROVIDER_WINDOW_CODES: Record<Channel, ReadonlySet<string>> = {
  whatsapp: new Set(['131047']),
  instagram: new Set(['2534022']),
};

/** Whether a channel's error code says the window is closed. */
export function isProviderWindowClosed(channel: Channel, providerCode: string | null | undefined): boolean {
  return providerCode !== null && providerCode !== undefined && PROVIDER_WINDOW_CODES[channel].has(providerCode);
}
