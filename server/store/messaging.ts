// SQL of conversations and messages. Every query takes the account first and filters by it.
import { sql, type Kysely, type NotNull, type Selectable, type Insertable, type Updateable } from 'kysely';
import type { ConnectionRow } from './console.js';
import type { CursorCodec } from './cursor.js';
import { paginate, type Page, type PageRequest } from './pagination.js';
import type { ConversationsTable, DB, MessagesTable } from './schema.js';

export type ConversationRow = Selectable<ConversationsTable>;
export type MessageRow = Selectable<MessagesTable>;
export type NewMessageRow = Insertable<MessagesTable>;

// ------------------------------------------------------------------------------------------- conversations

export async function findConversation(
  db: Kysely<DB>,
  accountId: string,
  conversationId: string,
  options: { forUpdate?: boolean } = {},
): Promise<ConversationRow | undefined> {
  let q = db
    .selectFrom('conversations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', conversationId);
  if (options.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function findConversationOfContact(
  db: Kysely<DB>,
  accountId: string,
  contactId: string,
  options: { forUpdate?: boolean } = {},
): Promise<ConversationRow | undefined> {
  let q = db
    .selectFrom('conversations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('contact_id', '=', contactId);
  if (options.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function updateConversation(
  db: Kysely<DB>,
  accountId: string,
  conversationId: string,
  changes: Updateable<ConversationsTable>,
): Promise<ConversationRow | undefined> {
  return db
    .updateTable('conversations')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', conversationId)
    .returningAll()
    .executeTakeFirst();
}

/** The conversations among `ids` that hold an inbound message the account has not read. */
export async function conversationsWithUnread(
  db: Kysely<DB>,
  accountId: string,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('messages')
    .select('conversation_id')
    .distinct()
    .where('account_id', '=', accountId)
    .where('conversation_id', 'in', ids)
    .where('direction', '=', 'inbound')
    .where('read_at', 'is', null)
    .execute();
  return new Set(rows.map((r) => r.conversation_id));
}

export interface ConversationFilters {
  order: 'asc' | 'desc';
  channel?: 'instagram' | 'whatsapp' | undefined;
  unread?: boolean | undefined;
  lastMessageAfter?: string | undefined;
}

/** GET /v1/conversations: inbox conversations by last message (then id), filters combined. */
export async function selectConversationsPage(
  db: Kysely<DB>,
  codec: CursorCodec,
  accountId: string,
  filters: ConversationFilters,
  page: PageRequest,
): Promise<Page<ConversationRow & { last_message_at: string }>> {
  let q = db
    .selectFrom('conversations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('in_inbox', '=', true)
    .where('last_message_at', 'is not', null)
    .$narrowType<{ last_message_at: NotNull }>();
  if (filters.channel !== undefined) q = q.where('channel', '=', filters.channel);
  if (filters.lastMessageAfter !== undefined)
    q = q.where('last_message_at', '>', sql<string>`cast(${filters.lastMessageAfter} as timestamptz)`);
  if (filters.unread !== undefined) {
    const unread = sql<boolean>`(conversations.marked_unread or exists (
      select 1 from messages m
      where m.conversation_id = conversations.id and m.direction = 'inbound' and m.read_at is null
    ))`;
    q = q.where(filters.unread ? unread : sql<boolean>`not ${unread}`);
  }
  return paginate(
    q,
    {
      codec,
      list: 'conversations',
      accountId,
      filters: { channel: filters.channel, unread: filters.unread, last_message_after: filters.lastMessageAfter },
      order: filters.order,
      keys: [
        { column: 'last_message_at', field: 'last_message_at', type: 'timestamptz' },
        { column: 'id', field: 'id', type: 'uuid' },
      ],
    },
    page,
  );
}

// ------------------------------------------------------------------------------------------------ messages

export async function insertMessage(db: Kysely<DB>, row: NewMessageRow): Promise<MessageRow> {
  return db.insertInto('messages').values(row).returningAll().executeTakeFirstOrThrow();
}

/**
 * A message the account sends, stored with what it moves, in one statement (every send: `recordOutbound`): the
 * contact's activity (`updated_at`, `last_interaction_at`), the message, the conversation's contact messages
 * marked read, and the conversation in the inbox, not marked unread, its last message moved (never back:
 * greatest() passes over a null and keeps a later time). The contact is written first (the message's
 * `contact_id` reads its CTE, a subquery PostgreSQL runs before the insert), then the conversation (a CTE no one
 * reads runs after the main query): the order an inbound message locks them in, so a send and the contact's
 * message at the same moment wait for each other instead of deadlocking.
 */
export async function insertOutboundMessage(
  db: Kysely<DB>,
  message: NewMessageRow & { conversation_id: string; created_at: string },
): Promise<MessageRow> {
  const { account_id: accountId, conversation_id: conversationId, created_at: at } = message;
  return db
    .with('contact', (qb) =>
      qb
        .updateTable('contacts')
        .set({ updated_at: at, last_interaction_at: at })
        .where('account_id', '=', accountId)
        .where('id', '=', message.contact_id)
        .returning('id'),
    )
    .with('message', (qb) =>
      qb
        .insertInto('messages')
        .values({ ...message, contact_id: sql<string>`coalesce((select id from contact), ${message.contact_id})` })
        .returningAll(),
    )
    .with('marked', (qb) =>
      qb
        .updateTable('messages')
        .set({ read_at: at })
        .where('account_id', '=', accountId)
        .where('conversation_id', '=', conversationId)
        .where('direction', '=', 'inbound')
        .where('read_at', 'is', null),
    )
    .with('conversation', (qb) =>
      qb
        .updateTable('conversations')
        .set({
          last_message_at: sql<string>`greatest(conversations.last_message_at, ${at}::timestamptz)`,
          marked_unread: false,
          // The account wrote: the conversation is in the inbox from now on (also when a template opens it).
          in_inbox: true,
        })
        .where('account_id', '=', accountId)
        .where('id', '=', conversationId),
    )
    .selectFrom('message')
    .selectAll()
    .executeTakeFirstOrThrow();
}

export async function findMessage(
  db: Kysely<DB>,
  accountId: string,
  messageId: string,
  options: { forUpdate?: boolean } = {},
): Promise<MessageRow | undefined> {
  let q = db.selectFrom('messages').selectAll().where('account_id', '=', accountId).where('id', '=', messageId);
  if (options.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

/**
 * The message a channel names by its own id on a connection: `direction` inbound (a contact's, which Meta may
 * deliver twice) or outbound (one the account sent, which a status names).
 */
export async function findMessageByProviderId(
  db: Kysely<DB>,
  connectionId: string,
  direction: 'inbound' | 'outbound',
  providerMessageId: string,
  options: { forUpdate?: boolean } = {},
): Promise<MessageRow | undefined> {
  let q = db
    .selectFrom('messages')
    .selectAll()
    .where('connection_id', '=', connectionId)
    .where('direction', '=', direction)
    .where('provider_message_id', '=', providerMessageId);
  if (options.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** The channel's id of the contact's latest message in the conversation (a real channel's read receipt). */
export async function lastInboundProviderId(db: Kysely<DB>, conversationId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('messages')
    .select('provider_message_id')
    .where('conversation_id', '=', conversationId)
    .where('direction', '=', 'inbound')
    .where('provider_message_id', 'is not', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.provider_message_id ?? undefined;
}

/** The account of a message (the admin API addresses a message by its id alone). */
export async function findMessageAccountById(db: Kysely<DB>, messageId: string): Promise<string | undefined> {
  const row = await db.selectFrom('messages').select('account_id').where('id', '=', messageId).executeTakeFirst();
  return row?.account_id;
}

export async function updateMessage(
  db: Kysely<DB>,
  accountId: string,
  messageId: string,
  changes: Updateable<MessagesTable>,
): Promise<MessageRow> {
  return db
    .updateTable('messages')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', messageId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Marks every unread contact message of the conversation read (a send, or the console reading). */
export async function markInboundRead(
  db: Kysely<DB>,
  accountId: string,
  conversationId: string,
  now: string,
): Promise<number> {
  const result = await db
    .updateTable('messages')
    .set({ read_at: now })
    .where('account_id', '=', accountId)
    .where('conversation_id', '=', conversationId)
    .where('direction', '=', 'inbound')
    .where('read_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** GET /v1/conversations/{id}/messages: by `created_at`, then id, in either order. */
export async function selectMessagesPage(
  db: Kysely<DB>,
  codec: CursorCodec,
  accountId: string,
  conversationId: string,
  filters: { order: 'asc' | 'desc'; createdAfter?: string | undefined },
  page: PageRequest,
): Promise<Page<MessageRow>> {
  let q = db
    .selectFrom('messages')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('conversation_id', '=', conversationId);
  if (filters.createdAfter !== undefined)
    q = q.where('created_at', '>', sql<string>`cast(${filters.createdAfter} as timestamptz)`);
  return paginate(
    q,
    {
      codec,
      list: 'conversation_messages',
      accountId,
      parent: conversationId,
      filters: { created_after: filters.createdAfter },
      order: filters.order,
      keys: [
        { column: 'created_at', field: 'created_at', type: 'timestamptz' },
        { column: 'id', field: 'id', type: 'uuid' },
      ],
    },
    page,
  );
}

/** The contact's conversation, inserted when it has none yet (one per contact). */
export async function ensureConversation(
  db: Kysely<DB>,
  row: Insertable<ConversationsTable>,
): Promise<ConversationRow> {
  // Inserted, or the one there already, in one statement; a row another transaction committed after this
  // statement's snapshot (it waited on it) is not in that snapshot: read again then.
  const ensured = await db
    .with('inserted', (qb) =>
      qb
        .insertInto('conversations')
        .values(row)
        .onConflict((oc) => oc.column('contact_id').doNothing())
        .returningAll(),
    )
    .selectFrom('inserted')
    .selectAll()
    .unionAll((qb) =>
      qb
        .selectFrom('conversations')
        .selectAll()
        .where('account_id', '=', row.account_id)
        .where('contact_id', '=', row.contact_id)
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('inserted').select('id')))),
    )
    .executeTakeFirst();
  const conversation = ensured ?? (await findConversationOfContact(db, row.account_id, row.contact_id));
  // Inserted now or before (the contact's one conversation): only another account's contact id could miss it.
  if (!conversation) throw new Error(`contact ${row.contact_id} has no conversation in account ${row.account_id}`);
  return conversation;
}

/**
 * A contact's message stored with its conversation's change, in one statement (an inbound message): the
 * contact's one conversation ensured (`conversation`, used when it has none yet) and locked, its
 * `last_message_at` (and for a direct message `in_inbox` and `last_inbound_at`) moved to the message's time
 * unless it is later already, and the message inserted in it (its `conversation_id` is the conversation's).
 * The conversation is written first: the caller holds the contact, so the lock order stays contact, conversation.
 */
export async function insertMessageInConversation(
  db: Kysely<DB>,
  conversation: Insertable<ConversationsTable>,
  message: Omit<NewMessageRow, 'conversation_id'>,
  direct: boolean,
): Promise<{ conversation: ConversationRow; message: MessageRow }> {
  const at = message.created_at;
  const row = await db
    .with('conversation', (qb) =>
      qb
        .insertInto('conversations')
        .values({
          ...conversation,
          last_message_at: at,
          ...(direct ? { in_inbox: true, last_inbound_at: at } : {}),
        })
        .onConflict((oc) =>
          oc.column('contact_id').doUpdateSet({
            // greatest() passes over nulls: a conversation's first message sets them.
            last_message_at: sql<string>`greatest(conversations.last_message_at, excluded.last_message_at)`,
            ...(direct
              ? {
                  in_inbox: true,
                  last_inbound_at: sql<string>`greatest(conversations.last_inbound_at, excluded.last_inbound_at)`,
                }
              : {}),
          }),
        )
        .returningAll(),
    )
    .with('message', (qb) =>
      qb
        .insertInto('messages')
        .values({ ...message, conversation_id: sql<string>`(select id from conversation)` })
        .returningAll(),
    )
    .selectFrom(['message', 'conversation'])
    .selectAll('message')
    .select([
      'conversation.id as conversation_row_id',
      'conversation.account_id as conversation_account_id',
      'conversation.contact_id as conversation_contact_id',
      'conversation.connection_id as conversation_connection_id',
      'conversation.channel as conversation_channel',
      'conversation.in_inbox as conversation_in_inbox',
      'conversation.last_message_at as conversation_last_message_at',
      'conversation.last_inbound_at as conversation_last_inbound_at',
      'conversation.marked_unread as conversation_marked_unread',
      'conversation.owned_elsewhere_since as conversation_owned_elsewhere_since',
      'conversation.created_at as conversation_created_at',
    ])
    .executeTakeFirstOrThrow();
  return conversationAndMessage(row);
}

/** The conversation's columns (prefixed `conversation_`) and the message's of one row, as their two rows. */
function conversationAndMessage<
  Row extends MessageRow & {
    conversation_row_id: string;
    conversation_account_id: string;
    conversation_contact_id: string;
    conversation_connection_id: string;
    conversation_channel: ConversationRow['channel'];
    conversation_in_inbox: boolean;
    conversation_last_message_at: string | null;
    conversation_last_inbound_at: string | null;
    conversation_marked_unread: boolean;
    conversation_owned_elsewhere_since: string | null;
    conversation_created_at: string;
  },
>(row: Row): { conversation: ConversationRow; message: MessageRow } {
  const {
    conversation_row_id,
    conversation_account_id,
    conversation_contact_id,
    conversation_connection_id,
    conversation_channel,
    conversation_in_inbox,
    conversation_last_message_at,
    conversation_last_inbound_at,
    conversation_marked_unread,
    conversation_owned_elsewhere_since,
    conversation_created_at,
    ...message
  } = row;
  return {
    conversation: {
      id: conversation_row_id,
      account_id: conversation_account_id,
      contact_id: conversation_contact_id,
      connection_id: conversation_connection_id,
      channel: conversation_channel,
      in_inbox: conversation_in_inbox,
      last_message_at: conversation_last_message_at,
      last_inbound_at: conversation_last_inbound_at,
      marked_unread: conversation_marked_unread,
      owned_elsewhere_since: conversation_owned_elsewhere_since,
      created_at: conversation_created_at,
    },
    message,
  };
}

/** A conversation by its id alone (the admin API addresses resources so), whatever its account. */
export async function findConversationById(
  db: Kysely<DB>,
  conversationId: string,
): Promise<ConversationRow | undefined> {
  return db.selectFrom('conversations').selectAll().where('id', '=', conversationId).executeTakeFirst();
}
/**
 * The contact's conversation and its connection in one statement (an automation's first send of a stretch reads
 * both); either is undefined when missing (the conversation too when the connection is: a send needs both).
 */
export async function findConversationAndConnection(
  db: Kysely<DB>,
  accountId: string,
  contactId: string,
  connectionId: string,
): Promise<{ conversation: ConversationRow | undefined; connection: ConnectionRow | undefined }> {
  const row = await db
    .selectFrom('connections as n')
    .leftJoin('conversations as c', (join) =>
      join.onRef('c.account_id', '=', 'n.account_id').on('c.contact_id', '=', contactId),
    )
    .selectAll('n')
    .select([
      'c.id as conversation_id',
      'c.contact_id as conversation_contact_id',
      'c.connection_id as conversation_connection_id',
      'c.channel as conversation_channel',
      'c.in_inbox as conversation_in_inbox',
      'c.last_message_at as conversation_last_message_at',
      'c.last_inbound_at as conversation_last_inbound_at',
      'c.marked_unread as conversation_marked_unread',
      'c.owned_elsewhere_since as conversation_owned_elsewhere_since',
      'c.created_at as conversation_created_at',
    ])
    .where('n.account_id', '=', accountId)
    .where('n.id', '=', connectionId)
    .executeTakeFirst();
  if (!row) return { conversation: undefined, connection: undefined };
  const {
    conversation_id: id,
    conversation_contact_id: contact_id,
    conversation_connection_id: connection_id,
    conversation_channel: channel,
    conversation_in_inbox: in_inbox,
    conversation_last_message_at: last_message_at,
    conversation_last_inbound_at: last_inbound_at,
    conversation_marked_unread: marked_unread,
    conversation_owned_elsewhere_since: owned_elsewhere_since,
    conversation_created_at: created_at,
    ...connection
  } = row;
  const conversation =
    id !== null &&
    contact_id !== null &&
    connection_id !== null &&
    channel !== null &&
    in_inbox !== null &&
    marked_unread !== null &&
    created_at !== null
      ? {
          id,
          account_id: accountId,
          contact_id,
          connection_id,
          channel,
          in_inbox,
          last_message_at,
          last_inbound_at,
          marked_unread,
          owned_elsewhere_since,
          created_at,
        }
      : undefined;
  return { conversation, connection };
}

// ------------------------------------------------------------------------------ instagram threads (issue 36)

/** The ids of the connection's instagram contact `instagramId` (one at most: unique per connection). */
const instagramContact = (db: Kysely<DB>, accountId: string, connectionId: string, instagramId: string) =>
  db
    .selectFrom('contacts')
    .select('id')
    .where('account_id', '=', accountId)
    .where('connection_id', '=', connectionId)
    .where('instagram_id', '=', instagramId);

/** The conversation of the connection's instagram contact `instagramId`; undefined: no such contact (yet). */
export async function findConversationOfInstagramContact(
  db: Kysely<DB>,
  accountId: string,
  connectionId: string,
  instagramId: string,
  options: { forUpdate?: boolean } = {},
): Promise<ConversationRow | undefined> {
  let q = db
    .selectFrom('conversations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('connection_id', '=', connectionId)
    .where('contact_id', 'in', instagramContact(db, accountId, connectionId, instagramId));
  if (options.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

/**
 * Another app owns the thread of the contact `instagramId` (a `standby` item) since `at`, or since the time it
 * already holds. How many conversations it marked (0: no such contact yet).
 */
export async function markOwnedElsewhere(
  db: Kysely<DB>,
  accountId: string,
  connectionId: string,
  instagramId: string,
  at: string,
): Promise<number> {
  const result = await db
    .updateTable('conversations')
    .set({ owned_elsewhere_since: sql<string>`coalesce(owned_elsewhere_since, ${at})` })
    .where('account_id', '=', accountId)
    .where('connection_id', '=', connectionId)
    .where('contact_id', 'in', instagramContact(db, accountId, connectionId, instagramId))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The thread of the contact `instagramId` is ours again (a `messaging` item): how many conversations changed. */
export async function clearOwnedElsewhere(
  db: Kysely<DB>,
  accountId: string,
  connectionId: string,
  instagramId: string,
): Promise<number> {
  const result = await db
    .updateTable('conversations')
    .set({ owned_elsewhere_since: null })
    .where('account_id', '=', accountId)
    .where('connection_id', '=', connectionId)
    .where('owned_elsewhere_since', 'is not', null)
    .where('contact_id', 'in', instagramContact(db, accountId, connectionId, instagramId))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The account's latest `limit` messages in the conversation, newest first (a tap's button is on one). */
export async function selectRecentOutbound(
  db: Kysely<DB>,
  accountId: string,
  conversationId: string,
  limit: number,
): Promise<MessageRow[]> {
  return db
    .selectFrom('messages')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('conversation_id', '=', conversationId)
    .where('direction', '=', 'outbound')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
