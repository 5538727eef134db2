// SQL of the planner's statistics (pg_class's `relpages`/`reltuples`, pg_statistic) of the app's tables.
//
// PGlite runs no autovacuum, and on PostgreSQL autovacuum's analyze comes a minute or more after a burst began. A
// table never analyzed is planned as if it were a few pages, and then a lookup by (account_id, id) may walk another
// index led by account_id (`contacts_sync`, `contacts_person`): every contact of the account read for each lookup,
// so each write slows as the account grows (bench:engine on PostgreSQL, 1,500 contacts: 3.7 million index entries
// read by 7,000 lookups of `contacts_person`; 500 → 10,000 contacts halved the writes per second).
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';

/** A table is analyzed again once it has grown by this share of its pages at its last analyze… */
const GROWTH_SHARE = 0.2;
/** …and by at least this many pages (8 kB each): a small table's plans do not depend on its size. */
const GROWTH_PAGES = 8;

/**
 * The tables of the app's schema that grew past GROWTH_SHARE and GROWTH_PAGES since the planner last measured them
 * (`relpages` is what ANALYZE found; never analyzed: 0). Reads each table's size (no row), by name.
 */
export async function growingTables(db: Kysely<DB>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind = 'r' and n.nspname = any(current_schemas(false))
      and pg_relation_size(c.oid) / current_setting('block_size')::int
        >= greatest(c.relpages * ${1 + GROWTH_SHARE}::float8, c.relpages + ${GROWTH_PAGES}::int)
    order by c.relname`.execute(db);
  return rows.map((row) => row.name);
}

/** Measures the tables again for the planner (one ANALYZE; it reads a sample of each, and blocks no write). */
export async function analyzeTables(db: Kysely<DB>, tables: readonly string[]): Promise<void> {
  if (tables.length === 0) return;
  await sql`analyze ${sql.join(tables.map((table) => sql.id(table)))}`.execute(db);
}
