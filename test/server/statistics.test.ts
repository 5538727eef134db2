// The planner's statistics of growing tables (store/statistics.ts, start/statistics.ts), on every engine of the run:
// a table that grew is found and measured again (pg_class.reltuples), one that did not is left alone, and the
// keeper of a server process with workers does it by itself.
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OffsetClock } from '../../server/clock.js';
import { loadConfig } from '../../server/config.js';
import { createServices } from '../../server/services.js';
import { keepStatistics, MAX_DEFERRED_CHECKS } from '../../server/start/statistics.js';
import { inBurst, yieldForBurst } from '../../server/store/priority.js';
import { startWorkers } from '../../server/start/workers.js';
import { analyzeTables, growingTables } from '../../server/store/statistics.js';
import { engines, openTestDatabase, type TestDatabase } from './harness.js';

describe.each(engines)("the planner's statistics on %s", (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(engine);
  });
  afterAll(async () => {
    await t?.drop();
  });

  /** A table of the app's schema with `rows` rows of about 100 bytes (about 70 to a page), which autovacuum leaves alone. */
  async function tableWith(name: string, rows: number): Promise<void> {
    const db = t.database.db;
    await sql`create table ${sql.id(name)} (id integer primary key, filler text not null) with (autovacuum_enabled = false)`.execute(
      db,
    );
    await sql`insert into ${sql.id(name)} select g, repeat('x', 90) from generate_series(1, ${rows}::int) g`.execute(
      db,
    );
  }
  const measuredRows = async (name: string) => {
    const { rows } = await sql<{ reltuples: number }>`
      select reltuples::float8 as reltuples from pg_class where relname = ${name}`.execute(t.database.db);
    return rows[0]?.reltuples;
  };

  it('finds the tables that grew since they were measured, and measures them', async () => {
    await tableWith('stats_grown', 3000);
    await tableWith('stats_small', 20);
    expect(await measuredRows('stats_grown')).toBe(-1); // never analyzed
    const grown = await growingTables(t.database.db);
    expect(grown).toContain('stats_grown');
    expect(grown).not.toContain('stats_small'); // under 8 pages: its plans do not depend on its size

    await analyzeTables(t.database.db, ['stats_grown']);
    expect(await measuredRows('stats_grown')).toBe(3000);
    expect(await growingTables(t.database.db)).not.toContain('stats_grown');

    // A tenth more is not enough; past a fifth more, it is found again.
    await sql`insert into stats_grown select g, repeat('x', 90) from generate_series(3001, 3300) g`.execute(
      t.database.db,
    );
    expect(await growingTables(t.database.db)).not.toContain('stats_grown');
    await sql`insert into stats_grown select g, repeat('x', 90) from generate_series(3301, 4000) g`.execute(
      t.database.db,
    );
    expect(await growingTables(t.database.db)).toContain('stats_grown');
  });

  it('is kept by the keeper of a process with workers, until it stops', async () => {
    await tableWith('stats_kept', 2000);
    const keeper = keepStatistics({ database: t.database, logger: pino({ level: 'silent' }), everyMs: 20 });
    try {
      await expect.poll(() => measuredRows('stats_kept'), { timeout: 10_000, interval: 20 }).toBe(2000);
    } finally {
      await keeper.stop();
    }
    await sql`insert into stats_kept select g, repeat('x', 90) from generate_series(2001, 4000) g`.execute(
      t.database.db,
    );
    await new Promise((ok) => setTimeout(ok, 100));
    expect(await measuredRows('stats_kept')).toBe(2000); // stopped: measured no more
  });

  it("waits while Meta's webhooks come in a burst, for a bounded number of checks", async () => {
    await tableWith('stats_in_burst', 2000);
    const everyMs = 40;
    // A burst that outlasts the checks put off for it (the intake renews it every 100 ms while it lasts).
    yieldForBurst(everyMs * (MAX_DEFERRED_CHECKS + 20));
    const started = performance.now();
    const keeper = keepStatistics({ database: t.database, logger: pino({ level: 'silent' }), everyMs });
    try {
      // The first checks, the one at the start included, are put off: the table is not measured yet.
      await new Promise((ok) => setTimeout(ok, everyMs * (MAX_DEFERRED_CHECKS - 3)));
      expect(inBurst()).toBe(true);
      expect(await measuredRows('stats_in_burst')).toBe(-1);
      // Past MAX_DEFERRED_CHECKS in a row, the check runs, burst or not.
      await expect.poll(() => measuredRows('stats_in_burst'), { timeout: 10_000, interval: 10 }).toBe(2000);
      expect(performance.now() - started).toBeGreaterThanOrEqual(everyMs * (MAX_DEFERRED_CHECKS - 1));
    } finally {
      await keeper.stop();
      // The burst is the process's: it ends before the next test's keeper starts.
      await expect.poll(() => inBurst(), { timeout: 5_000, interval: 20 }).toBe(false);
    }
  });

  it("is kept in every process with workers (startWorkers), from the process's start", async () => {
    await tableWith('stats_at_start', 1500);
    const config = loadConfig({ APP_ENV: 'test', WORKER_POLL_MS: '60000' });
    const workers = await startWorkers({
      config,
      database: t.database,
      clock: new OffsetClock(),
      logger: pino({ level: 'silent' }),
      services: createServices(config),
      baseUrl: 'http://127.0.0.1:1',
    });
    try {
      // The first check runs at the start, not STATISTICS_CHECK_MS (10 s) later.
      await expect.poll(() => measuredRows('stats_at_start'), { timeout: 5_000, interval: 20 }).toBe(1500);
    } finally {
      for (const worker of workers) await worker.stop();
    }
  });
});
