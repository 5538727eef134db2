// pg's pool.end() resolves before its connections have closed. A database is dropped, or used as a template, only
// once they have left: a forced drop kills one mid-close (its pool then throws an uncaught error), and a template
// must have no session at all.
import type pg from 'pg';

/** Waits (20 ms steps, `tries` of them) until `database` has no session; whether it got there. */
export async function noSessionsLeft(client: pg.Client, database: string, tries: number): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    const { rows } = await client.query<{ n: number }>(
      'select count(*)::int as n from pg_stat_activity where datname = $1',
      [database],
    );
    if (rows[0]?.n === 0) return true;
    await new Promise((ok) => setTimeout(ok, 20));
  }
  return false;
}
