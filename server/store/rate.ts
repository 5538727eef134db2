// SQL of the per-account rate counters: one row per account, call kind and one-minute window. The row is
// bumped with one atomic upsert, so every server process sharing the database counts into the same row.
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
  // The write's commit does not wait for the WAL to reach the disk (synchronous_commit off for this statement's
  // transaction only): a counter is not worth a flush per call, and a crash loses at most the last moment's counts.
  // The setting is made in the statement itself, so a call stays one round trip.
  const { rows } = await sql<{ count: number }>`
    insert into rate_counters (bucket, window_start, count)
    select ${accountBucket(accountId, kind)}, cast(${windowStart} as timestamptz), ${calls}::integer
    from (select set_config('synchronous_commit', 'off', true)) as relaxed
    on conflict (bucket, window_start) do update set count = rate_counters.count + excluded.count
    returning count
  `.execute(db);
  const [row] = rows;
  if (!row) throw new Error('the rate counter upsert returned no row'); // `returning` answers the one row it wrote
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
