// Durable jobs (server/store/jobs.ts, server/jobs/) on every engine of the run: enqueue in the caller's
// transaction, claim under a lease, run_at, retries, graceful stop; on PostgreSQL, two workers on one database
// never run a job twice and lose none.
import { sql, type Kysely, type Transaction } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/clock.js';
import { ADVANCE_RUN_JOB, PRUNE_JOB } from '../../server/job-kinds.js';
import {
  enqueue,
  JobRegistry,
  JobWorker,
  LeaseLostError,
  type ClaimedJob,
  type JobHandler,
} from '../../server/jobs/index.js';
import { serviceRegistry } from '../../server/metrics.js';
import { requestContext } from '../../server/request-context.js';
import { openDatabase, type Database } from '../../server/store/database.js';
import { claimJobs, completeJob, enqueueJob, failJob, findJob } from '../../server/store/jobs.js';
import type { DB } from '../../server/store/schema.js';
import { engines, openTestDatabase, type TestDatabase } from './harness.js';

const START = '2026-11-20T14:00:00.000Z';
const MINUTE = 60_000;

/** A second handle on the same PostgreSQL database: another process, as far as the database can tell. */
function secondHandle(t: TestDatabase): Promise<Database> {
  if (!t.url) throw new Error('a second handle needs PostgreSQL');
  return openDatabase({ engine: 'postgres', url: t.url, poolSize: 5 });
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

async function waitFor(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(5);
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((ok) => (resolve = ok));
  return { promise, resolve };
}

describe('the job kinds map (server/job-kinds.ts)', () => {
  it('makes enqueue refuse, at compile time, a kind the map does not have and a payload or account its kind does not take', () => {
    // npm test typechecks this file: each @ts-expect-error fails the run if its call stops being an error.
    const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
    const calls = (trx: Transaction<DB>) => [
      // @ts-expect-error a kind the map does not have (a misspelling)
      enqueue(trx, clock, { kind: 'workflow.advanse', accountId: 'a', payload: {} }),
      // @ts-expect-error the advance payload is { run_id, wake }
      enqueue(trx, clock, { kind: ADVANCE_RUN_JOB, accountId: 'a', payload: { workflow_id: 'w' } }),
      // @ts-expect-error the prune job works for the whole service: no account
      enqueue(trx, clock, { kind: PRUNE_JOB, accountId: 'a', payload: {} }),
      enqueue(trx, clock, { kind: ADVANCE_RUN_JOB, accountId: 'a', payload: { run_id: 'r', wake: { kind: 'start' } } }),
    ];
    expect(calls).toBeTypeOf('function');
  });
});

describe.each(engines)('durable jobs on %s', (engine) => {
  let t: TestDatabase;
  let db: Kysely<DB>;
  let clock: ManualClock;

  beforeAll(async () => {
    t = await openTestDatabase(engine);
    db = t.database.db;
    await sql`create table job_effects (job_id text primary key)`.execute(db);
  });
  afterAll(async () => t?.drop());
  beforeEach(async () => {
    clock = new ManualClock(START);
    await db.deleteFrom('jobs').execute();
  });

  const add = (kind: string, payload: unknown = {}, runAt?: Date | string) =>
    db
      .transaction()
      .execute((trx) => enqueueJob(trx, { kind, accountId: null, payload, ...(runAt ? { runAt } : {}) }, clock.now()));

  const claim = (workerId: string, kinds = ['k'], leaseMs = MINUTE) =>
    claimJobs(db, { workerId, kinds, limit: 10, now: clock.now(), leaseMs });

  function worker(
    handlers: Record<string, JobHandler>,
    options: { id?: string; concurrency?: number; leaseMs?: number; random?: () => number } = {},
  ) {
    const registry = new JobRegistry();
    for (const [kind, handler] of Object.entries(handlers)) registry.register(kind, handler);
    return new JobWorker({ db, clock, registry, pollIntervalMs: 5, ...options });
  }

  it("counts a job's round trips to the database as its kind's, and the job once it ends (db_round_trips_total, jobs_run_total)", async () => {
    const kind = `count.${engine}`;
    const value = async (name: string, labels: string) => {
      const text = await serviceRegistry.metrics();
      return Number(new RegExp(`^${name}\\{${labels}\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    };
    const trips = () => value('db_round_trips_total', `work="job:${kind}"`);
    const runs = () => value('jobs_run_total', `kind="${kind}"`);
    const [tripsBefore, runsBefore] = [await trips(), await runs()];
    await add(kind);
    const w = worker({
      [kind]: {
        run: async (_job, ctx) => {
          // begin, two statements, the completion inside, commit: 5 round trips (the worker completes no more).
          await ctx.db.transaction().execute(async (trx) => {
            await sql`select 1`.execute(trx);
            await sql`select 2`.execute(trx);
            await ctx.complete(trx);
          });
        },
      },
    });
    expect(await w.runOnce()).toBe(1);
    expect(await runs()).toBe(runsBefore + 1);
    expect(await trips()).toBe(tripsBefore + 5);
    // A request's statements are not a job's.
    const requestBefore = await value('db_round_trips_total', 'work="request"');
    await requestContext.run({ requestId: 'r' }, () => sql`select 1`.execute(db));
    expect(await value('db_round_trips_total', 'work="request"')).toBe(requestBefore + 1);
    expect(await trips()).toBe(tripsBefore + 5);
  });

  it('enqueues in the caller’s transaction: a rolled-back write leaves no job', async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await enqueueJob(trx, { kind: 'k', accountId: null, payload: { n: 1 } }, clock.now());
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    expect(await db.selectFrom('jobs').selectAll().execute()).toHaveLength(0);

    const id = await add('k', { n: 2, text: 'é' });
    const row = await findJob(db, id);
    expect(row).toMatchObject({ kind: 'k', payload: { n: 2, text: 'é' }, attempts: 0, locked_by: null });
    expect(row!.run_at).toBe('2026-11-20T14:00:00.000000Z');
    expect(row!.created_at).toBe('2026-11-20T14:00:00.000000Z');
  });

  it('claims a job once under a lease; a crashed worker’s lease expires and the job runs again', async () => {
    const id = await add('k');
    const [first] = await claim('worker-a');
    expect(first).toMatchObject({ id, attempts: 1, lockedBy: 'worker-a', lockedUntil: '2026-11-20T14:01:00.000000Z' });
    // worker-a "crashes": it never completes. Until the lease ends, nobody else takes the job.
    expect(await claim('worker-b')).toEqual([]);
    clock.advance(MINUTE - 1);
    expect(await claim('worker-b')).toEqual([]);
    clock.advance(1);
    const [second] = await claim('worker-b');
    expect(second).toMatchObject({ id, attempts: 2, lockedBy: 'worker-b' });

    // The late worker-a can no longer complete or fail it; worker-b can.
    expect(await completeJob(db, first!)).toBe(false);
    expect(await failJob(db, first!, { error: 'late', retryAt: clock.now(), now: clock.now() })).toBe(false);
    expect(await findJob(db, id)).toMatchObject({ locked_by: 'worker-b', attempts: 2 });

    // A real worker runs it once the second lease expires too.
    const ran: string[] = [];
    clock.advance(MINUTE);
    const w = worker({ k: { run: async (job) => void ran.push(job.id) } });
    expect(await w.runOnce()).toBe(1);
    expect(ran).toEqual([id]);
    expect(await findJob(db, id)).toBeUndefined();
    expect(await completeJob(db, second!)).toBe(false);
  });

  it('tells a stale claim from a newer one of the same worker', async () => {
    const id = await add('k');
    const [stale] = await claim('worker-a');
    clock.advance(MINUTE);
    const [fresh] = await claim('worker-a');
    expect(fresh).toMatchObject({ id, attempts: 2, lockedBy: 'worker-a' });
    expect(await completeJob(db, stale!)).toBe(false);
    expect(await failJob(db, stale!, { error: 'stale', retryAt: null, now: clock.now() })).toBe(false);
    expect(await findJob(db, id)).toMatchObject({ attempts: 2, failed_at: null, last_error: null });
    expect(await completeJob(db, fresh!)).toBe(true);
  });

  it('does not claim a job before its run_at', async () => {
    const ran: unknown[] = [];
    const w = worker({ k: { run: async (job) => void ran.push(job.payload) } });
    await add('k', { when: 'later' }, new Date(Date.parse(START) + 60 * MINUTE));
    await add('k', { when: 'now' });
    expect(await w.runOnce()).toBe(1);
    expect(ran).toEqual([{ when: 'now' }]);
    clock.advance(60 * MINUTE - 1);
    expect(await w.runOnce()).toBe(0);
    clock.advance(1);
    expect(await w.runOnce()).toBe(1);
    expect(ran).toEqual([{ when: 'now' }, { when: 'later' }]);
  });

  it('claims due jobs oldest run_at first, and only the kinds it has handlers for', async () => {
    const late = await add('k', {}, '2026-11-20T13:59:00.000002Z');
    const early = await add('k', {}, '2026-11-20T13:59:00.000001Z');
    const other = await add('other');
    const jobs = await claim('w');
    expect(jobs.map((j) => j.id)).toEqual([early, late]);
    expect(await findJob(db, other)).toMatchObject({ locked_by: null, attempts: 0 });
  });

  it('retries a failed job at the time its handler gives, and gives up when it says so', async () => {
    let calls = 0;
    const w = worker({
      flaky: {
        run: async () => {
          calls += 1;
          if (calls === 1) throw new Error('provider timed out');
        },
        retryAt: (_job, _error, now) => new Date(now.getTime() + 10 * MINUTE),
      },
      doomed: {
        run: async () => {
          throw new Error('receiver answered 500');
        },
        retryAt: (job, _error, now) => (job.attempts >= 3 ? null : new Date(now.getTime() + MINUTE)),
      },
    });
    const flaky = await add('flaky');
    expect(await w.runOnce()).toBe(1);
    expect(await findJob(db, flaky)).toMatchObject({
      attempts: 1,
      last_error: 'provider timed out',
      run_at: '2026-11-20T14:10:00.000000Z',
      locked_by: null,
      locked_until: null,
      failed_at: null,
    });
    clock.advance(10 * MINUTE - 1);
    expect(await w.runOnce()).toBe(0);
    clock.advance(1);
    expect(await w.runOnce()).toBe(1);
    expect(calls).toBe(2);
    expect(await findJob(db, flaky)).toBeUndefined();

    const doomed = await add('doomed');
    for (let i = 0; i < 3; i++) {
      expect(await w.runOnce()).toBe(1);
      clock.advance(MINUTE);
    }
    expect(await findJob(db, doomed)).toMatchObject({
      attempts: 3,
      last_error: 'receiver answered 500',
      failed_at: '2026-11-20T14:12:00.000000Z',
    });
    clock.advance(365 * 24 * 60 * MINUTE);
    expect(await w.runOnce()).toBe(0);
  });

  it('retries with the default backoff when the handler gives no time, its wait drawn by the worker’s source in [0, 30 s]', async () => {
    const failing = {
      k: {
        run: async () => {
          throw new Error('boom');
        },
      },
    };
    // The worker's source draws the wait (full jitter): 1 the cap, 0.5 half of it, 0 at once.
    for (const [draw, runAt] of [
      [1, '2026-11-20T14:00:30.000000Z'],
      [0.5, '2026-11-20T14:00:15.000000Z'],
      [0, '2026-11-20T14:00:00.000000Z'],
    ] as const) {
      const id = await add('k');
      await worker(failing, { random: () => draw }).runOnce();
      expect(await findJob(db, id)).toMatchObject({ attempts: 1, run_at: runAt, failed_at: null });
      await db.deleteFrom('jobs').execute();
    }
  });

  it('lets a handler complete the job in its own transaction, and rolls it back when the lease was lost', async () => {
    const effect = (trx: Kysely<DB>, job: ClaimedJob) =>
      sql`insert into job_effects (job_id) values (${job.id})`.execute(trx);
    const kept = await add('k');
    const w = worker({
      k: {
        run: (job, ctx) =>
          db.transaction().execute(async (trx) => {
            await effect(trx, job);
            await ctx.complete(trx);
          }),
      },
    });
    expect(await w.runOnce()).toBe(1);
    expect(await findJob(db, kept)).toBeUndefined();

    const lost = await add('k');
    let thrown: unknown;
    const slow = worker({
      k: {
        run: async (job, ctx) => {
          // The worker stalls past its lease and another takes the job over before it commits.
          clock.advance(6 * MINUTE);
          expect(await claim('thief')).toHaveLength(1);
          try {
            await db.transaction().execute(async (trx) => {
              await effect(trx, job);
              await ctx.complete(trx);
            });
          } catch (error) {
            thrown = error;
            throw error;
          }
        },
      },
    });
    expect(await slow.runOnce()).toBe(1);
    expect(thrown).toBeInstanceOf(LeaseLostError);
    const effects = (await sql<{ job_id: string }>`select job_id from job_effects`.execute(db)).rows.map(
      (r) => r.job_id,
    );
    expect(effects).toEqual([kept]);
    expect(await findJob(db, lost)).toMatchObject({ locked_by: 'thief', attempts: 2, last_error: null });
  });

  it('stops gracefully: waits for the running job, and gives back jobs claimed but not started', async () => {
    const started = deferred();
    const finish = deferred();
    const ran: string[] = [];
    const w = worker(
      {
        k: {
          run: async (job) => {
            started.resolve();
            await finish.promise;
            ran.push(job.id);
          },
        },
      },
      { concurrency: 1 },
    );
    const running = await add('k');
    w.start();
    await started.promise;
    const waiting = await add('k');
    let stopped = false;
    const stopping = w.stop().then(() => (stopped = true));
    await sleep(50);
    expect(stopped).toBe(false);
    finish.resolve();
    await stopping;
    expect(ran).toEqual([running]);
    expect(await findJob(db, running)).toBeUndefined();
    expect(await findJob(db, waiting)).toMatchObject({ locked_by: null, attempts: 0 });

    // Stopped while its claim was in flight: the claimed jobs are released at once, not left to their lease.
    const idle = worker({ k: { run: async (job) => void ran.push(job.id) } }, { id: 'idle' });
    idle.start();
    await idle.stop();
    expect(ran).toEqual([running]);
    expect(await findJob(db, waiting)).toMatchObject({ locked_by: null, locked_until: null, attempts: 0 });
  });

  it('runs 200 jobs exactly once with a polling worker', async () => {
    const executions = new Map<number, number>();
    const w = worker(
      {
        count: {
          run: async (job) => {
            const n = (job.payload as { n: number }).n;
            executions.set(n, (executions.get(n) ?? 0) + 1);
          },
        },
      },
      { concurrency: 8 },
    );
    await db.transaction().execute(async (trx) => {
      for (let n = 0; n < 200; n++)
        await enqueueJob(trx, { kind: 'count', accountId: null, payload: { n } }, clock.now());
    });
    w.start();
    await waitFor(() => executions.size === 200);
    await w.stop();
    expect([...executions.values()].every((count) => count === 1)).toBe(true);
    expect(await db.selectFrom('jobs').selectAll().execute()).toHaveLength(0);
  });

  it.runIf(engine === 'postgres')('never runs a job twice nor loses one with two workers on one database', async () => {
    const other = await secondHandle(t);
    try {
      await db.transaction().execute(async (trx) => {
        for (let n = 0; n < 200; n++)
          await enqueueJob(trx, { kind: 'count', accountId: null, payload: { n } }, clock.now());
      });
      const executions = new Map<number, string[]>();
      const handler: JobHandler = {
        run: async (job) => {
          const n = (job.payload as { n: number }).n;
          executions.set(n, [...(executions.get(n) ?? []), job.lockedBy]);
          await sleep(Math.random() * 3);
        },
      };
      const registry = new JobRegistry().register('count', handler);
      const workers = [
        new JobWorker({ db, clock, registry, id: 'worker-a', pollIntervalMs: 5, concurrency: 4 }),
        new JobWorker({ db: other.db, clock, registry, id: 'worker-b', pollIntervalMs: 5, concurrency: 4 }),
      ];
      for (const w of workers) w.start();
      await waitFor(() => [...executions.values()].reduce((sum, runs) => sum + runs.length, 0) >= 200);
      await Promise.all(workers.map((w) => w.stop()));

      const runs = [...executions.values()];
      expect(executions.size).toBe(200);
      expect(runs.reduce((sum, r) => sum + r.length, 0)).toBe(200);
      const byWorker = runs.flat().reduce<Record<string, number>>((acc, w) => ({ ...acc, [w]: (acc[w] ?? 0) + 1 }), {});
      expect(byWorker['worker-a']).toBeGreaterThan(0);
      expect(byWorker['worker-b']).toBeGreaterThan(0);
      expect(await db.selectFrom('jobs').selectAll().execute()).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it.runIf(engine === 'postgres')('hands each job to one of many concurrent claims (SKIP LOCKED)', async () => {
    const other = await secondHandle(t);
    try {
      await db.transaction().execute(async (trx) => {
        for (let n = 0; n < 200; n++)
          await enqueueJob(trx, { kind: 'k', accountId: null, payload: { n } }, clock.now());
      });
      const claimed: string[] = [];
      for (let round = 0; round < 50 && claimed.length < 200; round++) {
        const batches = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            claimJobs(i % 2 ? other.db : db, {
              workerId: `w${i}`,
              kinds: ['k'],
              limit: 7,
              now: clock.now(),
              leaseMs: MINUTE,
            }),
          ),
        );
        claimed.push(...batches.flat().map((j) => j.id));
      }
      expect(claimed).toHaveLength(200);
      expect(new Set(claimed).size).toBe(200);
    } finally {
      await other.close();
    }
  });
});
