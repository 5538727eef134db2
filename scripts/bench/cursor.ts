// `npx tsx scripts/bench/cursor.ts [--rows 100000] [--runs 200]`: the cost of one page of a keyset list
// (server/store/pagination.ts) at row 1, in the middle and at the end of a 100,000-row table on embedded
// PGlite, beside the same pages read with OFFSET. Keyset pages should cost about the same wherever they
// start; OFFSET pages grow with the position. A figure, not a test: it prints medians and p95 in ms.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import { systemClock } from '../../server/clock.js';
import { cursorCodec } from '../../server/store/cursor.js';
import { openDatabase } from '../../server/store/database.js';
import { bindingOf, paginate, positionOf, type ListDefinition } from '../../server/store/pagination.js';
import type { DB } from '../../server/store/schema.js';

interface Item {
  account_id: string;
  id: string;
  name: string;
  created_at: string;
}
type BenchDB = DB & { bench_items: Item };

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}

const ROWS = arg('rows', 100_000);
const RUNS = arg('runs', 200);
const LIMIT = 50;

async function time(runs: number, fn: () => Promise<unknown>): Promise<{ median: number; p95: number }> {
  for (let i = 0; i < Math.min(20, runs); i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
  return { median: at(0.5), p95: at(0.95) };
}

async function main(): Promise<void> {
  const database = await openDatabase({ engine: 'pglite' });
  const db = database.db as unknown as Kysely<BenchDB>;
  try {
    await sql`create table bench_items (account_id uuid not null, id uuid primary key, name text not null, created_at timestamptz(6) not null)`.execute(
      db,
    );
    await sql`create index bench_items_page on bench_items (account_id, created_at, id)`.execute(db);
    const account = randomUUID();
    const neighbour = randomUUID();
    const loaded = performance.now();
    // Three rows share each timestamp (to the microsecond); a neighbouring account has rows in the same index.
    await sql`
      insert into bench_items (account_id, id, name, created_at)
      select ${account}::uuid, gen_random_uuid(), 'item ' || g,
             timestamptz '2026-01-01 00:00:00+00' + (g / 3) * interval '1.000001 second'
      from generate_series(1, ${ROWS}::int) g
    `.execute(db);
    await sql`
      insert into bench_items (account_id, id, name, created_at)
      select ${neighbour}::uuid, gen_random_uuid(), 'other ' || g, timestamptz '2026-01-01 00:00:00+00' + g * interval '1 second'
      from generate_series(1, ${Math.ceil(ROWS / 5)}::int) g
    `.execute(db);
    await sql`analyze bench_items`.execute(db);
    console.log(
      `loaded ${ROWS} rows (+${Math.ceil(ROWS / 5)} of another account) in ${((performance.now() - loaded) / 1000).toFixed(1)} s`,
    );

    const list: ListDefinition<Item> = {
      codec: await cursorCodec(database.db, systemClock),
      list: 'bench_items',
      accountId: account,
      order: 'asc',
      keys: [
        { column: 'created_at', field: 'created_at', type: 'timestamptz' },
        { column: 'id', field: 'id', type: 'uuid' },
      ],
    };
    const base = () => db.selectFrom('bench_items').selectAll().where('account_id', '=', account);
    const ordered = () => base().orderBy('created_at').orderBy('id');
    /** The cursor a client holds after reading `row` rows. */
    const cursorAfter = async (row: number) => {
      const last = await ordered()
        .offset(row - 1)
        .limit(1)
        .executeTakeFirstOrThrow();
      return list.codec.encode(bindingOf(list), positionOf(list, last));
    };

    const positions = [1, Math.floor(ROWS / 2), ROWS - LIMIT + 1];
    const lines: string[] = [];
    const figures: Record<string, number> = {};
    for (const start of positions) {
      const cursor = start === 1 ? undefined : await cursorAfter(start - 1);
      const check = await paginate(base(), list, { cursor, limit: LIMIT });
      if (check.data.length !== Math.min(LIMIT, ROWS - start + 1)) throw new Error('unexpected page size');
      const keyset = await time(RUNS, () => paginate(base(), list, { cursor, limit: LIMIT }));
      const offset = await time(RUNS, () =>
        ordered()
          .offset(start - 1)
          .limit(LIMIT + 1)
          .execute(),
      );
      figures[`keyset@${start}`] = keyset.median;
      figures[`offset@${start}`] = offset.median;
      lines.push(
        `  page at row ${String(start).padStart(7)}:  keyset median ${keyset.median.toFixed(2)} ms (p95 ${keyset.p95.toFixed(2)})` +
          `   offset median ${offset.median.toFixed(2)} ms (p95 ${offset.p95.toFixed(2)})`,
      );
    }
    const first = figures[`keyset@${positions[0]}`]!;
    const last = figures[`keyset@${positions[2]}`]!;
    console.log(`PGlite, ${LIMIT}-row pages, ${RUNS} runs each (after 20 warm-up runs):`);
    console.log(lines.join('\n'));
    console.log(
      `keyset: last page / first page = ${(last / first).toFixed(2)}×; ` +
        `offset: ${(figures[`offset@${positions[2]}`]! / figures[`offset@${positions[0]}`]!).toFixed(1)}×`,
    );
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
