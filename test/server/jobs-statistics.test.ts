// A burst of jobs outruns autovacuum (and PGlite has none): a worker that finds a full batch due refreshes the
// jobs table's statistics, so the claim keeps walking its index instead of sorting every due job.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/clock.js';
import { JobRegistry } from '../../server/jobs/registry.js';
import { JobWorker } from '../../server/jobs/worker.js';
import { enqueueJob } from '../../server/store/jobs.js';
import { engines, openTestDatabase, type TestDatabase } from './harness.js';

describe.each(engines)('jobs statistics on %s', (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(engine);
  });
  afterAll(async () => {
    await t?.drop();
  });

  const reltuples = async () => {
    const { rows } = await sql<{
      n: number;
    }>`select reltuples::float8 as n from pg_class where relname = 'jobs'`.execute(t.database.db);
    return Number(rows[0]!.n);
  };

  it('a worker with a backlog analyzes the jobs table (at most once a minute)', async () => {
    const db = t.database.db;
    const clock = new ManualClock(new Date());
    // Never analyzed in a fresh database.
    expect(await reltuples()).toBe(-1);
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < 40; i++) await enqueueJob(trx, { kind: 'noop', accountId: null, payload: {} }, clock.now());
    });
    let done = 0;
    const registry = new JobRegistry().register('noop', {
      async run(_job, ctx) {
        await ctx.db.transaction().execute((trx) => ctx.complete(trx));
        done += 1;
      },
    });
    const worker = new JobWorker({ db, clock, registry, pollIntervalMs: 5, concurrency: 4 });
    worker.start();
    for (let i = 0; i < 400 && done < 40; i++) await new Promise((ok) => setTimeout(ok, 10));
    await worker.stop();
    expect(done).toBe(40);
    // The analysis runs in the background: wait for it to land.
    for (let i = 0; i < 200 && (await reltuples()) === -1; i++) await new Promise((ok) => setTimeout(ok, 10));
    expect(await reltuples()).toBeGreaterThanOrEqual(0);
  });
});
