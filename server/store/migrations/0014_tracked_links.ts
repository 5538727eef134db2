// Tracked links (issue 22, Part B buttons and cards `url`, Part C `link.clicked`): a link button an automation
// sends carries `/links/{token}` instead of its address. One row per contact, automation, block, button and
// address: sending it again reuses the token and moves `run_id`, `message_id` and `last_sent_at` (an open is
// reported with the run that last sent it; a year after the last send the link has expired).
//
// `contact_id` has no foreign key: a click on the link of a contact the account no longer has still redirects
// (the event says `contact_id: null`).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  for (const statement of statements) await statement.execute(db);
}

const statements = [
  sql`
    create table tracked_links (
      id uuid primary key,
      token text not null unique,
      account_id uuid not null references accounts (id),
      workflow_id uuid not null,
      contact_id uuid not null,
      channel text not null check (channel in ('instagram', 'whatsapp')),
      node_id text not null,
      button_key text not null,
      button_id text,
      output integer,
      url text not null,
      run_id uuid not null,
      message_id uuid,
      last_sent_at timestamptz(6) not null,
      created_at timestamptz(6) not null,
      unique (account_id, contact_id, workflow_id, node_id, button_key, url)
    )
  `,
];
