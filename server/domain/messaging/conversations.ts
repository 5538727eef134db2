// Reading conversations and messages (Part A). One conversation per contact; the list shows the inbox (a
// contact who only commented has none there), GET by id reads any.
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { notFound } from '../../errors.js';
import { cursorCodec } from '../../store/cursor.js';
import {
  conversationsWithUnread,
  findConversation,
  findMessage,
  listConversations as listConversationRows,
  listMessages as listMessageRows,
  type ConversationRow,
} from '../../store/messaging.js';
import type { Page, PageRequest } from '../../store/pagination.js';
import type { DB } from '../../store/schema.js';
import { conversationView, messageView, type ConversationView, type MessageView } from './views.js';

export const conversationNotFound = () => notFound('No such conversation.');
export const messageNotFound = () => notFound('No such message.');

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
    db
      .selectFrom('contacts')
      .select(['id', 'name', 'person_id'])
      .where('account_id', '=', accountId)
      .where('id', 'in', contactIds)
      .execute(),
    conversationsWithUnread(
      db,
      accountId,
      rows.map((r) => r.id),
    ),
  ]);
  const byId = new Map(contacts.map((c) => [c.id, c]));
  const now = clock.now();
  return rows.map((row) => conversationView(row, byId.get(row.contact_id)!, unread.has(row.id), now));
}

export interface ConversationListQuery {
  order?: 'asc' | 'desc';
  channel?: 'instagram' | 'whatsapp';
  unread?: boolean;
  last_message_after?: string;
}

export async function listConversations(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  query: ConversationListQuery,
  page: PageRequest,
): Promise<Page<ConversationView>> {
  const codec = await cursorCodec(db, clock);
  const rows = await listConversationRows(
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

export async function getConversation(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  conversationId: string,
): Promise<ConversationView> {
  const row = await findConversation(db, accountId, conversationId);
  if (!row) throw conversationNotFound();
  const [view] = await conversationViews(db, clock, accountId, [row]);
  return view!;
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
  const rows = await listMessageRows(
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
