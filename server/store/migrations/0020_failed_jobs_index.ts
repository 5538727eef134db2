// Failed jobs are pruned (issue 33): a job that gave up is kept FAILED_JOB_RETENTION_DAYS, then the hourly
// retention job deletes it in batches, oldest first. The partial index holds the failed jobs alone (the claim's
// indexes leave them out), so a batch walks it from its oldest and stops at its limit, and the `/metrics` gauge of
// failed jobs counts them without reading the others.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  for (const statement of statements) await statement.execute(db);
}

const statements = [sql`create index jobs_failed on jobs (failed_at) where failed_at is not null`];
