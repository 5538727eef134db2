// Media sent by automations (Part B, media and cards blocks) and the contact resuming a stopped run.
//
// - A console upload an automation sends becomes a media of origin `console` with the upload's id, so the
//   message reads back like any other media (`media_id`, `url`). The console keeps the file itself.
// - A `media_url` (instagram) becomes a media of origin `link` holding that address: its content route
//   redirects there. One row per send, like the message.
// - A tap on the buttons of a run's message finds that run by the message (a stopped run the contact
//   resumes, Part B "States and transitions").
// - A run remembers the step it waits at (`wait_step`): after the buttons' 4th output ran on, the run's last
//   step is not the buttons step its tap or 90-day limit closes.
// - Buttons or cards whose after-send output runs on keep their tap wait while that branch sleeps, asks or
//   waits for another automation (`tap_*`): a run has one wait of its own and at most one such open tap.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  for (const statement of statements) await statement.execute(db);
}

const statements = [
  sql`alter table media drop constraint media_origin_check`,
  sql`alter table media add constraint media_origin_check check (origin in ('upload', 'received', 'console', 'link'))`,
  sql`alter table media add column source_url text`,
  sql`alter table workflow_runs add column wait_step integer`,
  sql`alter table workflow_runs add column tap_step integer`,
  sql`alter table workflow_runs add column tap_node_id text`,
  sql`alter table workflow_runs add column tap_message_id uuid`,
  sql`alter table workflow_runs add column tap_until timestamptz(6)`,
  sql`create index workflow_run_steps_message on workflow_run_steps (message_id) where message_id is not null`,
];
