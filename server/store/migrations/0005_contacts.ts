// Contacts and what hangs on them (Part A): tags held, custom-field values, the contact history, and the
// events outbox that webhooks deliver from (Part C).
//
// - A contact is one person on one channel; `person_id` is shared by the person's contacts on other channels.
// - `phone_key` is the phone in the form the service compares: a Brazilian mobile always with its ninth digit,
//   so `+5511987654321` and `+551187654321` are one contact. Unique per account, deleted contacts included:
//   a contact that returns after deletion keeps its id.
// - `updated_at` is the last activity (a message or a console edit), never an API change: the sync order.
// - An event is written to `events` in the transaction of the change it reports, so no change is ever
//   without its event and no event without its change.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  for (const statement of statements) await statement.execute(db);
}

const statements = [
  sql`
    create table contacts (
      id uuid primary key,
      account_id uuid not null references accounts(id),
      person_id uuid not null,
      channel text not null check (channel in ('instagram', 'whatsapp')),
      connection_id uuid not null references connections(id),
      name text not null,
      phone text,
      phone_key text,
      instagram_id text,
      instagram_username text,
      last_interaction_at timestamptz(6) not null,
      created_at timestamptz(6) not null,
      updated_at timestamptz(6) not null,
      deleted_at timestamptz(6),
      unique (account_id, id),
      check (
        (channel = 'whatsapp' and phone is not null and phone_key is not null and instagram_id is null)
        or (channel = 'instagram' and instagram_id is not null and phone is null and phone_key is null)
      )
    )
  `,
  sql`
    create unique index contacts_phone on contacts (account_id, phone_key) where phone_key is not null
  `,
  // An instagram id is valid only for its connection.
  sql`
    create unique index contacts_instagram_id on contacts (connection_id, instagram_id) where instagram_id is not null
  `,
  sql`
    create index contacts_instagram_username on contacts (account_id, instagram_username)
    where instagram_username is not null
  `,
  // GET /v1/contacts: active contacts by (updated_at, id), keyset-paged; the cost of a page does not grow with
  // its depth.
  sql`
    create index contacts_sync on contacts (account_id, updated_at, id) where deleted_at is null
  `,
  sql`
    create index contacts_person on contacts (account_id, person_id)
  `,
  sql`
    create table contact_tags (
      account_id uuid not null,
      contact_id uuid not null,
      tag_id uuid not null,
      tagged_at timestamptz(6) not null,
      primary key (contact_id, tag_id),
      foreign key (account_id, contact_id) references contacts (account_id, id),
      foreign key (account_id, tag_id) references tags (account_id, id)
    )
  `,
  // GET /v1/tags/{tagId}/contacts: holders in the order they got the tag.
  sql`
    create index contact_tags_by_tag on contact_tags (account_id, tag_id, tagged_at, contact_id)
  `,
  // The console deletes fields: their values go with them (and emit nothing, Part C).
  sql`
    create table contact_field_values (
      account_id uuid not null,
      contact_id uuid not null,
      field_id uuid not null references custom_fields (id) on delete cascade,
      value jsonb not null,
      updated_at timestamptz(6) not null,
      primary key (contact_id, field_id),
      foreign key (account_id, contact_id) references contacts (account_id, id)
    )
  `,
  sql`
    create table contact_history (
      id bigserial primary key,
      account_id uuid not null,
      contact_id uuid not null,
      kind text not null,
      actor_type text not null,
      actor_id text,
      actor_name text,
      details jsonb not null,
      created_at timestamptz(6) not null,
      foreign key (account_id, contact_id) references contacts (account_id, id)
    )
  `,
  sql`
    create index contact_history_contact on contact_history (account_id, contact_id, id)
  `,
  // The outbox: `sequence` is the order events were written in (commit order may differ slightly).
  sql`
    create table events (
      id uuid primary key,
      sequence bigserial unique,
      account_id uuid not null references accounts(id),
      type text not null,
      resource_type text not null,
      resource_id text not null,
      data jsonb not null,
      created_at timestamptz(6) not null
    )
  `,
  sql`
    create index events_account on events (account_id, sequence)
  `,
];
