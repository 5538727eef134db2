// The whatsapp handoff (issue 22; Part B, buttons and cards `whatsapp_connection_id`, `whatsapp_message`). In an
// instagram automation such a button goes out as a link to chat with the whatsapp number, the standard
// click-to-chat form `https://wa.me/<digits>?text=<message>`: the message is the button's `whatsapp_message`
// (variables filled, up to 300 characters) with the reference code in front, `#XXXXXXXX ` (docs/decisions.md,
// "The whatsapp handoff (issue 22)"). The link is not tracked and emits nothing. When that number receives a
// message carrying the code, the run goes on on whatsapp (engine/handoff.ts).
import { randomInt, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.js';
import {
  insertWhatsappHandoff,
  lockUnusedWhatsappHandoff,
  markWhatsappHandoffUsed,
  updateWhatsappHandoffsMessage,
  type WhatsappHandoffRow,
} from '../../store/whatsapp-handoffs.js';
import { connectionOfAccount } from '../console/connections.js';
import { cutTo } from '../messaging/send-rules.js';

/** 32 letters and digits without the easily confused 0, O, 1 and I: 8 of them are 40 bits, easy to type. */
const ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
const CODE_LENGTH = 8;
/** The pre-written message's own limit (Part B). */
export const HANDOFF_MESSAGE_MAX = 300;
/** A code in a message: `#` and its 8 characters, anywhere, in any letter case. */
const CODE_IN_TEXT = /#([A-Za-z0-9]{8})(?![A-Za-z0-9])/g;

function drawCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i += 1) code += ALPHABET.charAt(randomInt(ALPHABET.length));
  return code;
}

/** The codes a message carries, upper case, without their `#`. */
export function handoffCodesIn(text: string | null): string[] {
  if (!text || !text.includes('#')) return [];
  return [...text.matchAll(CODE_IN_TEXT)].map((match) => (match[1] ?? '').toUpperCase());
}

/** The click-to-chat address of a number (E.164) with its pre-written text. */
export const clickToChat = (phone: string, text: string) =>
  `https://wa.me/${phone.replace(/\D/g, '')}?text=${encodeURIComponent(text)}`;

/** The pre-written text: the code in front of the message (cut to its 300 characters); the code alone without one. */
const withCode = (code: string, message: string) => {
  const text = cutTo(message, HANDOFF_MESSAGE_MAX);
  return text === '' ? `#${code}` : `#${code} ${text}`;
};

/** A handoff button a block sends to the run's instagram contact. */
export interface HandoffSend {
  accountId: string;
  workflowId: string;
  runId: string;
  contactId: string;
  /** The button's `whatsapp_connection_id`. */
  connectionId: string;
  nodeId: string;
  buttonKey: string;
  output: number;
  /** The button's `whatsapp_message`, variables filled. */
  message: string;
  at: Date;
}

/**
 * The handoff's link and its row's id; null when the number is not a connected whatsapp connection of the
 * account (disconnected since publishing, or removed): the block then fails.
 */
export async function handoffLink(db: Kysely<DB>, send: HandoffSend): Promise<{ id: string; url: string } | null> {
  const connection = await connectionOfAccount(db, send.accountId, send.connectionId);
  if (connection?.channel !== 'whatsapp' || connection.status !== 'connected' || !connection.phone) return null;
  const id = randomUUID();
  for (;;) {
    const code = drawCode();
    const inserted = await insertWhatsappHandoff(db, {
      id,
      code,
      account_id: send.accountId,
      workflow_id: send.workflowId,
      run_id: send.runId,
      contact_id: send.contactId,
      connection_id: connection.id,
      node_id: send.nodeId,
      button_key: send.buttonKey,
      output: send.output,
      created_at: send.at.toISOString(),
    });
    // A code already drawn (one in 2^40 per code sent) is drawn again.
    if (inserted) return { id, url: clickToChat(connection.phone, withCode(code, send.message)) };
  }
}

/** The message that carried the handoff buttons. */
export const handoffsSentIn = (db: Kysely<DB>, ids: readonly string[], messageId: string) =>
  updateWhatsappHandoffsMessage(db, ids, messageId);

/**
 * The handoff a whatsapp message on `connectionId` continues: one whose code it carries, not used yet, sent
 * within `maxAgeMs` (the 90 days a tap is waited for), of an automation not deleted; locked. None: the message
 * is an ordinary one.
 */
export async function handoffOfMessage(
  db: Kysely<DB>,
  accountId: string,
  connectionId: string,
  text: string | null,
  now: Date,
  maxAgeMs: number,
): Promise<WhatsappHandoffRow | undefined> {
  const handoff = await lockUnusedWhatsappHandoff(db, accountId, connectionId, handoffCodesIn(text));
  if (!handoff || Date.parse(handoff.created_at) + maxAgeMs < now.getTime()) return undefined;
  return handoff;
}

/** The code is used: by the whatsapp contact that sent it, and the run that went on there (none: no block). */
export const handoffUsed = (
  db: Kysely<DB>,
  id: string,
  use: { at: Date; contactId: string; continuedRunId: string | null },
) =>
  markWhatsappHandoffUsed(db, id, {
    used_at: use.at.toISOString(),
    used_by_contact_id: use.contactId,
    continued_run_id: use.continuedRunId,
  });
