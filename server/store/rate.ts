// SQL of the per-account rate counters: one row per account, call kind and one-minute window. The row is
// bumped with one atomic upsert, so every server process sharing the database counts into the same row.
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';

const bucketOf = (accountId: string, kind: string) => `account:${accountId}:${kind}`;

/** Counts one call of `kind` in the account's window starting at `windowStart`; returns the window's count. */
export async function countAccountCall(
  db: Kysely<DB>,
  accountId: string,
  kind: string,
  windowStart: string,
): Promise<number> {
  const row = await db
    .insertInto('rate_counters')
    .values({ bucket: bucketOf(accountId, kind), window_start: windowStart, count: 1 })
    .onConflict((oc) => oc.columns(['bucket', 'window_start']).doUpdateSet({ count: sql`rate_counters.count + 1` }))
    .returning('count')
    .executeTakeFirstOrThrow();
  return row.count;
}

/** Deletes the counters of windows that started before `before`; returns how many. */
export async function pruneRateCounters(db: Kysely<DB>, before: string): Promise<number> {
  const result = await db.deleteFrom('rate_counters').where('window_start', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
