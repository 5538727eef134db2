// Conversations, messages and media (Part A), and the sandbox channel's arranged answers.
//
// - One conversation per contact (on the contact's channel). `in_inbox` is false while the contact only
//   commented: the list leaves such a conversation out, GET by id reads it.
// - `last_message_at` moves only when a message is stored (never with a read, an edit or a reaction);
//   `last_inbound_at` is the contact's last direct message on the connection: the 24-hour reply window.
// - Message content that has a nested shape (attachments, template, button, post, failure, reactions) is
//   jsonb in the form the API shows it; only what is filtered or sorted on has columns.
// - Media bytes live in the storage (files under DATA_DIR by default), never in the database.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  for (const statement of statements) await statement.execute(db);
}

const statements = [
  // The text the plan appends to API sends (null: the plan has no platform signature).
  sql`
    alter table accounts add column platform_signature text
  `,
  sql`
    alter table contacts add column blocked_from_automations boolean not null default false
  `,
  sql`
    create table conversations (
      id uuid primary key,
      account_id uuid not null references accounts(id),
      contact_id uuid not null,
      connection_id uuid not null references connections(id),
      channel text not null check (channel in ('instagram', 'whatsapp')),
      in_inbox boolean not null,
      last_message_at timestamptz(6),
      last_inbound_at timestamptz(6),
      marked_unread boolean not null default false,
      created_at timestamptz(6) not null,
      unique (account_id, id),
      unique (contact_id),
      foreign key (account_id, contact_id) references contacts (account_id, id)
    )
  `,
  // GET /v1/conversations, by last message in either order. A conversation enters the inbox with its first
  // direct message, so listed ones always have a last message (the sort key is never null).
  sql`
    create index conversations_inbox on conversations (account_id, last_message_at, id) where in_inbox
  `,
  sql`
    create table messages (
      id uuid primary key,
      account_id uuid not null,
      conversation_id uuid not null,
      contact_id uuid not null,
      connection_id uuid not null references connections(id),
      channel text not null,
      type text not null,
      direction text not null check (direction in ('inbound', 'outbound')),
      sender_type text not null,
      sender_user_id text,
      sender_name text,
      sender_workflow_id uuid,
      sender_api_key_id uuid,
      text text,
      attachments jsonb not null,
      template jsonb,
      reply_to_message_id uuid,
      button jsonb,
      post jsonb,
      status text not null,
      failure jsonb,
      is_unsupported boolean not null default false,
      is_removed boolean not null default false,
      is_edited boolean not null default false,
      reactions jsonb not null,
      read_at timestamptz(6),
      provider_message_id text,
      created_at timestamptz(6) not null,
      foreign key (account_id, conversation_id) references conversations (account_id, id)
    )
  `,
  sql`
    create index messages_conversation on messages (conversation_id, created_at, id)
  `,
  // The send marks what the contact sent so far as read.
  sql`
    create index messages_unread on messages (conversation_id) where direction = 'inbound' and read_at is null
  `,
  sql`
    create table media (
      id uuid primary key,
      account_id uuid not null references accounts(id),
      origin text not null check (origin in ('upload', 'received')),
      content_type text,
      filename text,
      size bigint,
      upload_expires_at timestamptz(6),
      uploaded_at timestamptz(6),
      available_at timestamptz(6),
      expires_at timestamptz(6),
      created_at timestamptz(6) not null
    )
  `,
  // What the sandbox channel answers to the next sends on a connection, in order.
  sql`
    create table sandbox_arrangements (
      id bigserial primary key,
      account_id uuid not null references accounts(id),
      connection_id uuid not null references connections(id),
      outcome jsonb not null,
      created_at timestamptz(6) not null
    )
  `,
];
