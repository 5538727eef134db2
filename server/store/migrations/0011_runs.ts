// The automation engine (Part B, running side): what a run needs to be advanced by any worker at any time.
//
// - A run is a row: the block it stands on, what it waits for and until when, the visits per block (the loop
//   guard: 6), its own variables (answers and written fields), how it started (trigger text, comment, post),
//   its parent (a `start` block that waits), and the number of its last step. Nothing lives in memory between
//   stretches, so a restart loses nothing and 10,000 waiting runs cost rows, not memory.
// - Every wait (question, buttons, sleep, start delay, a parent waiting for its child) ends through a job on the
//   one clock (`workflow.advance` with `run_at`), so a moved sandbox clock ends it too.
// - Randomizer counts are per automation and block (Part B: "counts choices by position").
// - A contact's automations can be paused until a time (pause-automations block).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  for (const statement of statements) await statement.execute(db);
}

const statements = [
  sql`alter table workflow_runs add column node_id text`,
  // 'answer' (question), 'tap' (buttons), 'timer' (sleep, start delay), 'child' (a start that waits).
  sql`alter table workflow_runs add column waiting_for text`,
  sql`alter table workflow_runs add column wait_until timestamptz(6)`,
  // The message whose buttons a tap on resumes the run ('tap').
  sql`alter table workflow_runs add column wait_message_id uuid`,
  sql`alter table workflow_runs add column visits jsonb not null default '{}'`,
  sql`alter table workflow_runs add column variables jsonb not null default '{}'`,
  sql`alter table workflow_runs add column trigger_context jsonb not null default '{}'`,
  sql`alter table workflow_runs add column parent_run_id uuid`,
  sql`alter table workflow_runs add column step_count integer not null default 0`,
  // The run waiting for a contact's answer, per contact: one index lookup per inbound message.
  sql`
    create index workflow_runs_waiting on workflow_runs (account_id, contact_id)
    where waiting_for is not null
  `,
  // run_in_progress: a contact mid-run of an automation.
  sql`
    create index workflow_runs_active on workflow_runs (workflow_id, contact_id)
    where ended_at is null
  `,
  // The per-contact hourly limit counts runs started in the last hour.
  sql`
    create index workflow_runs_contact_recent on workflow_runs (account_id, contact_id, created_at)
  `,
  sql`create index workflow_runs_created on workflow_runs (created_at)`,
  sql`
    create table workflow_randomizer_counts (
      workflow_id uuid not null,
      node_id text not null,
      counts jsonb not null,
      primary key (workflow_id, node_id)
    )
  `,
  sql`alter table contacts add column automations_paused_until timestamptz(6)`,
];
