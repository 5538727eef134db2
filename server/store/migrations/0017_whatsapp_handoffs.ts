// The whatsapp handoff (issue 22, Part B buttons and cards `whatsapp_connection_id`): a button of an instagram
// automation that opens a chat with a whatsapp number of the account, its pre-written message carrying a
// reference code. One row per handoff button sent: the code, where it leads (the whatsapp connection) and
// what the code's message continues (the run, its block, the button's output). `used_at`: a code is used once.
//
// `contact_id` (the instagram contact) has no foreign key, as in tracked links: the row outlives nothing it
// needs, and a contact the account no longer has simply continues nothing.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  for (const statement of statements) await statement.execute(db);
}

const statements = [
  sql`
    create table whatsapp_handoffs (
      id uuid primary key,
      code text not null unique,
      account_id uuid not null references accounts (id),
      workflow_id uuid not null,
      run_id uuid not null,
      contact_id uuid not null,
      connection_id uuid not null,
      node_id text not null,
      button_key text not null,
      output integer not null,
      message_id uuid,
      created_at timestamptz(6) not null,
      used_at timestamptz(6),
      used_by_contact_id uuid,
      continued_run_id uuid
    )
  `,
  sql`create index whatsapp_handoffs_connection on whatsapp_handoffs (account_id, connection_id) where used_at is null`,
];
