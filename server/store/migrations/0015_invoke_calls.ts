// The invoke block's calls (issue 22, Part B "invoke"): one row per invoke step, written when the block runs
// (the request as rendered, secrets as references by name, never their values) and updated by the
// `workflow.invoke` job at each attempt. The step's `call` column keeps what the step shows of it.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  for (const statement of statements) await statement.execute(db);
}

const statements = [
  sql`
    create table invoke_calls (
      id uuid primary key,
      account_id uuid not null references accounts (id),
      run_id uuid not null references workflow_runs (id) on delete cascade,
      step integer not null,
      request jsonb not null,
      status text not null check (status in ('pending', 'done', 'cancelled')),
      attempts integer not null default 0,
      output integer,
      response_status integer,
      error jsonb,
      field_values jsonb,
      excerpt text,
      duration_ms integer not null default 0,
      created_at timestamptz(6) not null,
      updated_at timestamptz(6) not null,
      unique (run_id, step)
    )
  `,
  sql`alter table workflow_run_steps add column call jsonb`,
];
