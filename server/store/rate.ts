// SQL of the per-account rate counters: one row per account, call kind and one-minute window. The row is
// bumped with one atomic upsert, so every server process sharing the database counts into the same row. The
// table is unlogged (migration 0010): a counter is worth less than the WAL flush it would cost on every call,
// and a crash that empties it only forgives the current minute.
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';

export const accountBucket = (accountId: string, kind: string) => `account:${accountId}:${kind}`;

/**
 * Counts `calls` calls of `kind` in the account's window starting at `windowStart`; returns the window's count
 * after them (the calls are numbered count − calls + 1 … count).
 */
export async function countAccountCalls(
  db: Kysely<DB>,
  accountId: string,
  kind: string,
  windowStart: string,
  calls = 1,
): Promise<number> {
  const row = await db
    .insertInto('rate_counters')
    .values({ bucket: accountBucket(accountId, kind), window_start: windowStart, count: calls })
    .onConflict((oc) =>
      oc.columns(['bucket', 'window_start']).doUpdateSet({ count: sql`rate_counters.count + ${calls}` }),
    )
    .returning('count')
    .executeTakeFirstOrThrow();
  return row.count;
}

export interface AccountCount {
  bucket: string;
  windowStart: number;
  count: number;
}

/** The account counters of windows that started at or after `since` (epoch ms). */
export async function readAccountCounts(db: Kysely<DB>, since: number): Promise<AccountCount[]> {
  const rows = await db
    .selectFrom('rate_counters')
    .select(['bucket', 'window_start', 'count'])
    .where('bucket', 'like', 'account:%')
    .where('window_start', '>=', new Date(since).toISOString())
    .execute();
  return rows.map((r) => ({ bucket: r.bucket, windowStart: Date.parse(r.window_start), count: r.count }));
}

/** Writes counts kept elsewhere (one process's memory); a row never goes down. */
export async function saveAccountCounts(db: Kysely<DB>, counts: readonly AccountCount[]): Promise<void> {
  if (counts.length === 0) return;
  await db
    .insertInto('rate_counters')
    .values(
      counts.map((c) => ({ bucket: c.bucket, window_start: new Date(c.windowStart).toISOString(), count: c.count })),
    )
    .onConflict((oc) =>
      oc.columns(['bucket', 'window_start']).doUpdateSet({ count: sql`greatest(rate_counters.count, excluded.count)` }),
    )
    .execute();
}

/** Deletes the counters of windows that started before `before`; returns how many. */
export async function pruneRateCounters(db: Kysely<DB>, before: string): Promise<number> {
  const result = await db.deleteFrom('rate_counters').where('window_start', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
