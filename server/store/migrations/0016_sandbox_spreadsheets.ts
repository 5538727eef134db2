// The sandbox spreadsheet provider's spreadsheets (issue 22): each belongs to a spreadsheet account of an account
// and holds its tabs as one JSON value ([{title, rows}], row 1 the column titles, every cell text). In the
// database, so they survive restarts and a sheets block writes in its run stretch's transaction.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  for (const statement of statements) await statement.execute(db);
}

const statements = [
  sql`
    create table sandbox_spreadsheets (
      id uuid primary key,
      account_id uuid not null references accounts(id),
      spreadsheet_account_id uuid not null references spreadsheet_accounts(id),
      name text not null,
      tabs jsonb not null,
      created_at timestamptz(6) not null,
      updated_at timestamptz(6) not null
    )
  `,
  sql`create index sandbox_spreadsheets_account on sandbox_spreadsheets (account_id, spreadsheet_account_id)`,
];
