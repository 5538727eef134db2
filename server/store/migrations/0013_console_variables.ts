// What the vendor's console keeps for automations (issue 22): account variables (`{account.<name>}`), account
// secrets (`{secret.<name>}`, write-only, each bound to one host name) and spreadsheet accounts (what a sheets
// block names). Names are unique per account; a variable's value may be null (known without value).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  for (const statement of statements) await statement.execute(db);
}

const statements = [
  sql`
    create table account_variables (
      account_id uuid not null references accounts(id),
      name text not null,
      value text,
      created_at timestamptz(6) not null,
      updated_at timestamptz(6) not null,
      primary key (account_id, name)
    )
  `,
  sql`
    create table account_secrets (
      id uuid primary key,
      account_id uuid not null references accounts(id),
      name text not null,
      value text not null,
      domain text not null,
      created_at timestamptz(6) not null,
      unique (account_id, name)
    )
  `,
  sql`
    create table spreadsheet_accounts (
      id uuid primary key,
      account_id uuid not null references accounts(id),
      name text not null,
      status text not null check (status in ('connected', 'disconnected')),
      created_at timestamptz(6) not null,
      updated_at timestamptz(6) not null
    )
  `,
  sql`create index spreadsheet_accounts_account on spreadsheet_accounts (account_id, created_at)`,
];
