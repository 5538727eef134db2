// What the vendor's console creates for an account: connections (instagram accounts, whatsapp numbers),
// custom fields with the record of every key the account ever used (the numeric-suffix rule), whatsapp
// templates of a number, and console uploads named by automation blocks. The public routes read these
// (GET /v1/connections, GET /v1/custom-fields, template sends, upload_id in blocks).
//
// A table holding values of a custom field must reference custom_fields(id) with `on delete cascade`: the
// console deletes fields (their key stays in custom_field_keys).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  for (const statement of statements) await statement.execute(db);
}

const statements = [
  sql`
    create table connections (
      id uuid primary key,
      account_id uuid not null references accounts(id),
      channel text not null check (channel in ('instagram', 'whatsapp')),
      name text not null,
      username text,
      phone text,
      status text not null check (status in ('connected', 'disconnected')),
      disconnect_reason text,
      created_at timestamptz(6) not null,
      updated_at timestamptz(6) not null,
      check (
        (channel = 'instagram' and username is not null and phone is null)
        or (channel = 'whatsapp' and phone is not null and username is null)
      ),
      check (status = 'disconnected' or disconnect_reason is null)
    )
  `,
  // One connection per number and per username in an account; GET /v1/connections pages oldest first.
  sql`
    create unique index connections_phone on connections (account_id, phone)
  `,
  sql`
    create unique index connections_username on connections (account_id, username)
  `,
  sql`
    create index connections_account on connections (account_id, created_at, id)
  `,
  sql`
    create table custom_fields (
      id uuid primary key,
      account_id uuid not null references accounts(id),
      name text not null,
      label text not null,
      type text not null check (type in ('number', 'text', 'dropdown')),
      options jsonb,
      created_at timestamptz(6) not null,
      updated_at timestamptz(6) not null,
      check ((type = 'dropdown') = (options is not null)),
      unique (account_id, name)
    )
  `,
  // Every key the account ever gave a field, deleted fields included: a key is never given twice.
  sql`
    create table custom_field_keys (
      account_id uuid not null references accounts(id),
      name text not null,
      created_at timestamptz(6) not null,
      primary key (account_id, name)
    )
  `,
  sql`
    create table templates (
      id uuid primary key,
      account_id uuid not null references accounts(id),
      connection_id uuid not null references connections(id),
      name text not null,
      language text not null,
      body text not null,
      variable_count integer not null check (variable_count >= 0),
      status text not null check (status in ('approved', 'pending', 'rejected', 'paused', 'disabled')),
      unsupported_features text[] not null,
      created_at timestamptz(6) not null,
      updated_at timestamptz(6) not null,
      unique (account_id, connection_id, name, language)
    )
  `,
  sql`
    create table uploads (
      id uuid primary key,
      account_id uuid not null references accounts(id),
      name text not null,
      content_type text not null,
      size bigint not null check (size > 0),
      created_at timestamptz(6) not null
    )
  `,
  sql`
    create index uploads_account on uploads (account_id, created_at, id)
  `,
];
