// Recovery in seconds after a crash (issue 23): each running job worker registers itself and beats a heartbeat
// on the database's own clock (wall time shared by every host, whatever the sandbox clock says). The claims of a
// worker whose heartbeat stopped are freed by the other workers, and by a process starting on the same host as a
// worker whose process is gone, instead of waiting for their leases to run out.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  for (const statement of statements) await statement.execute(db);
}

const statements = [
  sql`
    create table job_workers (
      id text primary key,
      host text not null,
      pid integer not null,
      started_at timestamptz(6) not null default clock_timestamp(),
      heartbeat_at timestamptz(6) not null default clock_timestamp()
    )
  `,
  // Freeing a dead worker's claims reads them by worker.
  sql`create index jobs_locked_by on jobs (locked_by) where locked_by is not null`,
];
