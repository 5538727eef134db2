// Durable jobs: a job that exhausted its retries is kept, marked failed, for inspection; the claim reads the
// due, live jobs in (run_at, id) order from a partial index.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  for (const statement of statements) await statement.execute(db);
}

const statements = [
  sql`
    alter table jobs add column failed_at timestamptz(6)
  `,
  sql`
    create index jobs_claim on jobs (run_at, id) where failed_at is null
  `,
  sql`
    drop index jobs_due
  `,
];
