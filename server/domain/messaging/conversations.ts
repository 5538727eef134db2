// Conversations and their messages (Part A): opening a contact's one conversation, reading them. The list shows
// the inbox (a contact who only commented has none there), GET by id reads any.
import type { Kysely } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { notFound } from '../../errors.js';
import { cursorCodec, invalidCursor } from '../../store/cursor.js';
import {
  conversationsWithUnread,
  ensureConversation,
  findConversation,
  findConversationById,
  findConversationOfContact,
  findMessage,
  findMessageAccountById,
  selectConversationsPage,
  selectMessagesPage,
  type ConversationRow,
} from '../../store/messaging.js';
import type { Page, PageRequest } from '../../store/pagination.js';
import { contactSummaries, type ContactRow } from '../../store/contacts.js';
import type { DB } from '../../store/schema.js';
import { epochMicros } from '../../store/timestamps.js';
import { held } from '../held.js';
import { conversationView, messageView, type ConversationView, type MessageView } from './views.js';

/**
 * One conversation per contact, on its channel: every way a contact is made opens it, empty and out of the
 * inbox, when it has none yet.
 */
export function openConversation(
  tx: Kysely<DB>,
  contact: Pick<ContactRow, 'id' | 'account_id' | 'connection_id' | 'channel'>,
  now: string,
) {
  return ensureConversation(tx, newConversationRow(contact, now));
}

/** The row of a contact's conversation when it is opened: empty, out of the inbox. */
export const newConversationRow = (
  contact: Pick<ContactRow, 'id' | 'account_id' | 'connection_id' | 'channel'>,
  now: string,
) => ({
  id: randomUUID(),
  account_id: contact.account_id,
  contact_id: contact.id,
  connection_id: contact.connection_id,
  channel: contact.channel,
  in_inbox: false,
  last_message_at: null,
  last_inbound_at: null,
  marked_unread: false,
  created_at: now,
});

export const conversationNotFound = () => notFound('No such conversation.');
export const messageNotFound = () => notFound('No such message.');

/** A conversation named by id alone (the admin API), of whichever account; 404 when there is none. */
export async function conversationById(db: Kysely<DB>, conversationId: string): Promise<ConversationRow> {
  const conversation = await findConversationById(db, conversationId);
  if (!conversation) throw conversationNotFound();
  return conversation;
}

/** The account of a message named by id alone (the admin API); 404 when there is none. */
export async function accountOfMessage(db: Kysely<DB>, messageId: string): Promise<string> {
  const accountId = await findMessageAccountById(db, messageId);
  if (!accountId) throw messageNotFound();
  return accountId;
}

/** The view of one conversation (conversationViews answers one view per row). */
export async function conversationViewOf(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  row: ConversationRow,
): Promise<ConversationView> {
  const [view] = await conversationViews(db, clock, accountId, [row]);
  return held(view, `the view of conversation ${row.id}`);
}

/** The views of conversations, with their contacts and unread state read in two queries. */
export async function conversationViews(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  rows: readonly ConversationRow[],
): Promise<ConversationView[]> {
  if (rows.length === 0) return [];
  const contactIds = rows.map((r) => r.contact_id);
  const [contacts, unread] = await Promise.all([
    contactSummaries(db, accountId, contactIds),
    conversationsWithUnread(
      db,
      accountId,
      rows.map((r) => r.id),
    ),
  ]);
  const byId = new Map(contacts.map((c) => [c.id, c]));
  const now = clock.now();
  return rows.map((row) =>
    conversationView(row, held(byId.get(row.contact_id), `contact of conversation ${row.id}`), unread.has(row.id), now),
  );
}

export interface ConversationListQuery {
  order?: 'asc' | 'desc';
  channel?: 'instagram' | 'whatsapp';
  unread?: boolean;
  last_message_after?: string;
  /** The lookup form: only this contact's conversation, listed even when the inbox leaves it out. */
  contact_id?: string;
}

export async function listConversations(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  query: ConversationListQuery,
  page: PageRequest,
): Promise<Page<ConversationView>> {
  if (query.contact_id !== undefined)
    return conversationOfContact(db, clock, accountId, { ...query, contact_id: query.contact_id }, page);
  const codec = await cursorCodec(db, clock);
  const rows = await selectConversationsPage(
    db,
    codec,
    accountId,
    {
      order: query.order ?? 'desc',
      channel: query.channel,
      unread: query.unread,
      lastMessageAfter: query.last_message_after,
    },
    page,
  );
  return { data: await conversationViews(db, clock, accountId, rows.data), next_cursor: rows.next_cursor };
}

/**
 * `contact_id`: the contact's one conversation, as a single page (no cursor is ever issued for it), whether or
 * not the inbox lists it (a contact created by POST /v1/contacts, or one who only commented). The other
 * filters still apply to it.
 */
async function conversationOfContact(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  query: ConversationListQuery & { contact_id: string },
  page: PageRequest,
): Promise<Page<ConversationView>> {
  if (page.cursor !== undefined) throw invalidCursor();
  const row = await findConversationOfContact(db, accountId, query.contact_id);
  const [view] = row ? await conversationViews(db, clock, accountId, [row]) : [];
  const after = query.last_message_after;
  const matches =
    view !== undefined &&
    (query.channel === undefined || view.channel.type === query.channel) &&
    (query.unread === undefined || view.unread === query.unread) &&
    (after === undefined || (view.last_message_at !== null && epochMicros(view.last_message_at) > epochMicros(after)));
  return { data: matches ? [view] : [], next_cursor: null };
}

export async function getConversation(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  conversationId: string,
): Promise<ConversationView> {
  const row = await findConversation(db, accountId, conversationId);
  if (!row) throw conversationNotFound();
  return conversationViewOf(db, clock, accountId, row);
}

export async function listMessages(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  conversationId: string,
  query: { order?: 'asc' | 'desc'; created_after?: string },
  page: PageRequest,
  baseUrl: string,
): Promise<Page<MessageView>> {
  if (!(await findConversation(db, accountId, conversationId))) throw conversationNotFound();
  const codec = await cursorCodec(db, clock);
  const rows = await selectMessagesPage(
    db,
    codec,
    accountId,
    conversationId,
    { order: query.order ?? 'desc', createdAfter: query.created_after },
    page,
  );
  return { data: rows.data.map((r) => messageView(r, baseUrl)), next_cursor: rows.next_cursor };
}

export async function getMessage(
  db: Kysely<DB>,
  accountId: string,
  messageId: string,
  baseUrl: string,
): Promise<MessageView> {
  const row = await findMessage(db, accountId, messageId);
  if (!row) throw messageNotFound();
  return messageView(row, baseUrl);
}
