// The rate counters skip the write-ahead log (issue 12, speed). Every API call bumps one; as a logged table each
// bump waited for a WAL flush, the largest cost of a call on PostgreSQL. Unlogged rows are emptied after a crash
// (not after a clean restart): that forgives the current minute's counts, which is what a counter is worth.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table rate_counters set unlogged`.execute(db);
}
