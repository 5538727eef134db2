// Recovery in seconds after a crash (issue 23, server/jobs/liveness.ts): leases by kind, renewed while a job
// runs; a started worker registers itself and beats a heartbeat; the claims of a worker that is gone are freed
// by a worker starting on its host (its process no longer exists) and by every worker once its heartbeat stops.
// The real kill -9 of a worker process is in webhook-delivery.test.ts; the figures in `npm run bench:recovery`.
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/clock.js';
import { JobRegistry, JobWorker, type JobHandler } from '../../server/jobs/index.js';
import { claimJobs, enqueueJob, findJob } from '../../server/store/jobs.js';
import type { DB } from '../../server/store/schema.js';
import { engines, openTestDatabase, type TestDatabase } from './harness.js';

const START = '2026-11-20T14:00:00.000Z';
const SECOND = 1000;

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

async function waitFor(condition: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(10);
  }
}

/** A pid no process of this host has any more: a child that ran and ended. */
function pidOfAnEndedProcess(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe.each(engines)('job recovery after a crash on %s', (engine) => {
  let t: TestDatabase;
  let db: Kysely<DB>;
  let clock: ManualClock;
  const started: JobWorker[] = [];
  /** The hanging handlers' releases: a test that failed midway leaves none hanging for the next one's stop. */
  const releases: (() => void)[] = [];

  beforeAll(async () => {
    t = await openTestDatabase(engine);
    db = t.database.db;
  });
  async function stopStarted(): Promise<void> {
    for (const release of releases.splice(0)) release();
    await Promise.all(started.splice(0).map((w) => w.stop()));
  }
  afterAll(async () => {
    await stopStarted();
    await t?.drop();
  });
  beforeEach(async () => {
    await stopStarted();
    clock = new ManualClock(START);
    await db.deleteFrom('jobs').execute();
    await db.deleteFrom('job_workers').execute();
  });

  const add = (kind: string) =>
    db.transaction().execute((trx) => enqueueJob(trx, { kind, accountId: null, payload: {} }, clock.now()));

  function worker(
    handlers: Record<string, JobHandler>,
    options: { id?: string; heartbeatMs?: number; silentAfterMs?: number; leaseMs?: number } = {},
  ) {
    const registry = new JobRegistry();
    for (const [kind, handler] of Object.entries(handlers)) registry.register(kind, handler);
    return new JobWorker({ db, clock, registry, pollIntervalMs: 5, heartbeatMs: 50, ...options });
  }
  function start(w: JobWorker): JobWorker {
    w.start();
    started.push(w);
    return w;
  }

  /** A claim held by worker `id` (registered with `heartbeatAgoMs`, on `host` with `pid`) until a day from now. */
  async function heldBy(
    jobId: string,
    id: string,
    registered: { host?: string; pid: number; heartbeatAgoMs: number } | null,
  ): Promise<void> {
    if (registered)
      await db
        .insertInto('job_workers')
        .values({
          id,
          host: registered.host ?? hostname(),
          pid: registered.pid,
          heartbeat_at: sql`clock_timestamp() - make_interval(secs => ${registered.heartbeatAgoMs / 1000})`,
        })
        .execute();
    await db
      .updateTable('jobs')
      .set({ locked_by: id, locked_until: new Date(clock.now().getTime() + 86_400_000).toISOString(), attempts: 1 })
      .where('id', '=', jobId)
      .execute();
  }

  /** A handler that records its runs and never ends until told. */
  function hanging() {
    const runs: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((ok) => (release = ok));
    releases.push(release);
    const handler: JobHandler = {
      run: async (job) => {
        runs.push(job.id);
        await released;
      },
    };
    return { runs, release, handler };
  }

  it('claims each kind under its own lease, and the others under the worker’s', async () => {
    await add('short');
    await add('long');
    await add('plain');
    const claimed = await claimJobs(db, {
      workerId: 'w',
      kinds: ['short', 'long', 'plain'],
      limit: 10,
      now: clock.now(),
      leaseMs: 60 * SECOND,
      leases: { short: 30 * SECOND, long: 80 * SECOND, absent: SECOND },
    });
    expect(Object.fromEntries(claimed.map((job) => [job.kind, job.lockedUntil]))).toEqual({
      short: '2026-11-20T14:00:30.000000Z',
      long: '2026-11-20T14:01:20.000000Z',
      plain: '2026-11-20T14:01:00.000000Z',
    });
  });

  it('renews the lease of a job that runs longer than its lease: no other worker takes it meanwhile', async () => {
    const id = await add('slow');
    const slow = hanging();
    const a = start(worker({ slow: { ...slow.handler, leaseMs: 10 * SECOND } }));
    await waitFor(() => slow.runs.length === 1);
    const other = worker({ slow: { run: async () => undefined } });
    // A minute passes in 5 s steps: each step leaves the lease at least half run out, and a heartbeat renews it.
    for (let i = 0; i < 12; i++) {
      clock.advance(5 * SECOND);
      const moved = clock.now().getTime();
      await waitFor(async () => Date.parse((await findJob(db, id))!.locked_until!) > moved + 5 * SECOND);
      expect(await other.runOnce()).toBe(0);
    }
    expect(await findJob(db, id)).toMatchObject({ locked_by: a.id, attempts: 1 });
    slow.release();
    await waitFor(async () => (await findJob(db, id)) === undefined);
    expect(slow.runs).toEqual([id]);
  });

  it('a starting worker frees at once the claims of a worker of this host whose process is gone', async () => {
    const id = await add('k');
    await heldBy(id, 'gone-worker', { pid: pidOfAnEndedProcess(), heartbeatAgoMs: 0 });
    const ran: string[] = [];
    start(worker({ k: { run: async (job) => void ran.push(job.id) } }, { silentAfterMs: 60 * SECOND }));
    // The clock stands still: not a lease running out, the dead process seen.
    await waitFor(() => ran.length === 1, 5000);
    expect(ran).toEqual([id]);
    expect(await db.selectFrom('job_workers').select('id').where('id', '=', 'gone-worker').execute()).toEqual([]);
  });

  it('a starting worker frees the claims of a previous process that had this pid (a restarted container)', async () => {
    const id = await add('k');
    await heldBy(id, `${hostname()}:${process.pid}:previous`, { pid: process.pid, heartbeatAgoMs: 0 });
    const ran: string[] = [];
    start(worker({ k: { run: async (job) => void ran.push(job.id) } }, { silentAfterMs: 60 * SECOND }));
    await waitFor(() => ran.length === 1, 5000);
    // Attempts stay counted: the freed claim was an attempt.
    expect(ran).toEqual([id]);
  });

  it('leaves alone the claims of a live worker of this process, of a live process and of another host', async () => {
    const sibling = hanging();
    const siblingJob = await add('held');
    start(worker({ held: sibling.handler }, { silentAfterMs: 60 * SECOND }));
    await waitFor(() => sibling.runs.length === 1);
    const elsewhere = await add('k');
    await heldBy(elsewhere, 'another-host-worker', { host: 'another-host', pid: 1, heartbeatAgoMs: 0 });
    const alive = await add('k');
    await heldBy(alive, 'a-live-process', { pid: process.ppid, heartbeatAgoMs: 0 });
    const unregistered = await add('k');
    await heldBy(unregistered, 'an-older-release', null);

    const ran: string[] = [];
    start(worker({ k: { run: async (job) => void ran.push(job.id) } }, { silentAfterMs: 60 * SECOND }));
    await sleep(500); // a few heartbeats and polls
    expect(ran).toEqual([]);
    expect(await findJob(db, siblingJob)).toMatchObject({ attempts: 1 });
    expect(await findJob(db, elsewhere)).toMatchObject({ locked_by: 'another-host-worker' });
    expect(await findJob(db, alive)).toMatchObject({ locked_by: 'a-live-process' });
    // A claim of a worker that never registered (a release before the registry) waits for its lease.
    expect(await findJob(db, unregistered)).toMatchObject({ locked_by: 'an-older-release' });
    sibling.release();
  });

  it('a running worker frees the claims of any worker whose heartbeat stopped, once it is silent long enough', async () => {
    const id = await add('k');
    // On another host: only its heartbeat tells. It beat a moment ago, then went silent.
    await heldBy(id, 'silent-worker', { host: 'another-host', pid: 1, heartbeatAgoMs: 0 });
    const ran: string[] = [];
    const since = Date.now();
    start(worker({ k: { run: async (job) => void ran.push(job.id) } }, { silentAfterMs: 1500 }));
    await waitFor(() => ran.length === 1, 10_000);
    const waited = Date.now() - since;
    expect(waited).toBeGreaterThanOrEqual(1400);
    expect(ran).toEqual([id]);
  });

  it('keeps the claims of a worker that beats: a heartbeat older than the silence only', async () => {
    const hang = hanging();
    const id = await add('held');
    start(worker({ held: hang.handler }, { id: 'beating', silentAfterMs: 60 * SECOND }));
    await waitFor(() => hang.runs.length === 1);
    const watcher = start(worker({ held: { run: async () => undefined } }, { silentAfterMs: 400 }));
    await sleep(1200); // many of the watcher's sweeps, each after a beat of `beating` (every 50 ms)
    expect(await findJob(db, id)).toMatchObject({ locked_by: 'beating' });
    await watcher.stop();
    hang.release();
  });

  it('a worker taken for dead registers again at its next beat; its stale job can no longer complete', async () => {
    const hang = hanging();
    const id = await add('held');
    const a = start(worker({ held: hang.handler }, { id: 'stalled', silentAfterMs: 60 * SECOND }));
    await waitFor(() => hang.runs.length === 1);
    // Another worker took it for dead (as if its process had stalled past the silence) and freed its claim.
    await db.deleteFrom('job_workers').where('id', '=', 'stalled').execute();
    const until = new Date(clock.now().getTime() + 60 * SECOND).toISOString();
    await db.updateTable('jobs').set({ locked_by: 'successor', locked_until: until }).where('id', '=', id).execute();
    await waitFor(
      async () => (await db.selectFrom('job_workers').select('id').where('id', '=', a.id).execute()).length === 1,
    );
    hang.release();
    await sleep(200);
    // Its completion finds the claim taken: the job stays for the worker that holds it now.
    expect(await findJob(db, id)).toMatchObject({ locked_by: 'successor' });
  });

  it('leaves the registry when it stops', async () => {
    const w = start(worker({ k: { run: async () => undefined } }, { id: 'leaving' }));
    await waitFor(async () => (await db.selectFrom('job_workers').select('id').execute()).length === 1);
    await w.stop();
    expect(await db.selectFrom('job_workers').select('id').execute()).toEqual([]);
  });
});
