// Idle workers woken by the commit of a job due now (JOBS_READY_CHANNEL, server/store/jobs.ts), on every engine of
// the run. The worker polls once a minute here, so a job running at once was woken for; on PostgreSQL the job is
// written through a second handle on the database, as another process would. A rollback and a job scheduled for
// later wake nothing; on PostgreSQL a dropped listening connection comes back on its own.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/clock.js';
import { JobRegistry, JobWorker } from '../../server/jobs/index.js';
import { enqueueJob } from '../../server/store/jobs.js';
import { wakeOnJobsReady } from '../../server/jobs/worker.js';
import { openDatabase, type Database } from '../../server/store/database.js';
import { sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { createAccount } from '../../server/domain/accounts/accounts.js';
import { insertEvents } from '../../server/store/events.js';
import { insertDeliveriesWithJobs } from '../../server/store/webhook-deliveries.js';
import { engines, openTestDatabase, type TestDatabase } from './harness.js';

const START = '2026-11-20T14:00:00.000Z';
const HOUR = 3_600_000;
/** The worker's poll: never reached by a test. */
const POLL_MS = 60_000;
/** How soon a woken worker must have run the job. */
const WAKE_MS = 500;

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await sleep(2);
  }
}

describe.each(engines)('job wake-ups on %s', (engine) => {
  let t: TestDatabase;
  /** Where jobs are written: a second handle on PostgreSQL (another process), the same PGlite otherwise. */
  let writer: Database;
  let clock: ManualClock;
  let worker: JobWorker;
  let ran: { id: string; at: number }[];
  let wakes: number;

  beforeAll(async () => {
    t = await openTestDatabase(engine);
    writer = t.url ? await openDatabase({ engine: 'postgres', url: t.url, poolSize: 2 }) : t.database;
  });
  afterAll(async () => {
    if (writer && writer !== t?.database) await writer.close();
    await t?.drop();
  });

  beforeEach(async () => {
    clock = new ManualClock(START);
    ran = [];
    wakes = 0;
    await t.database.db.deleteFrom('jobs').execute();
    const registry = new JobRegistry();
    registry.register('k', { run: async (job) => void ran.push({ id: job.id, at: performance.now() }) });
    const wakeOn = wakeOnJobsReady(t.database)!;
    let subscribed!: () => void;
    const ready = new Promise<void>((ok) => (subscribed = ok));
    worker = new JobWorker({
      db: t.database.db,
      clock,
      registry,
      pollIntervalMs: POLL_MS,
      wakeOn: async (wake) => {
        const unsubscribe = await wakeOn(() => {
          wakes++;
          wake();
        });
        subscribed();
        return unsubscribe;
      },
    });
    worker.start();
    await ready;
    // Its first claim (empty) is done and it waits for the poll.
    await sleep(100);
    expect(ran).toEqual([]);
  });
  afterEach(async () => worker?.stop());

  const write = (runAt?: Date) =>
    writer.db
      .transaction()
      .execute((trx) =>
        enqueueJob(trx, { kind: 'k', accountId: null, payload: {}, ...(runAt ? { runAt } : {}) }, clock.now()),
      );

  it('runs a job committed by another transaction at once, not at the next poll', async () => {
    for (let i = 0; i < 3; i++) {
      const committed = performance.now();
      const id = await write();
      await waitFor(() => ran.some((r) => r.id === id), WAKE_MS);
      expect(ran.find((r) => r.id === id)!.at - committed).toBeLessThan(WAKE_MS);
      await sleep(50); // idle again
    }
    expect(ran).toHaveLength(3);
    expect(wakes).toBeGreaterThanOrEqual(3);
  });

  it('wakes nothing and runs nothing when the transaction rolls back', async () => {
    await expect(
      writer.db.transaction().execute(async (trx) => {
        await enqueueJob(trx, { kind: 'k', accountId: null, payload: {} }, clock.now());
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    await sleep(300);
    expect(wakes).toBe(0);
    expect(ran).toEqual([]);
    expect(await t.database.db.selectFrom('jobs').selectAll().execute()).toEqual([]);
  });

  it('does not notify for a job scheduled later', async () => {
    const id = await write(new Date(Date.parse(START) + HOUR));
    await sleep(300);
    expect(wakes).toBe(0);
    expect(ran).toEqual([]);
    expect(await t.database.db.selectFrom('jobs').select('id').execute()).toEqual([{ id: Number(id) }]);
  });

  it('the webhook fan-out wakes the workers too (its jobs are inserted in bulk)', async () => {
    const account = await createAccount(writer.db, clock, { name: 'Loja', alias: `loja-wake-${engine}` });
    const now = clock.now().toISOString();
    const webhookId = randomUUID();
    const eventId = randomUUID();
    await writer.db
      .insertInto('webhook_endpoints')
      .values({
        id: webhookId,
        account_id: account.id,
        url: 'https://hooks.example.com/in',
        description: null,
        event_types: ['contact.created'],
        status: 'enabled',
        disabled_reason: null,
        disabled_at: null,
        failing_since: null,
        secret: 'whsec_test',
        previous_secret: null,
        previous_secret_expires_at: null,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      })
      .execute();
    const committed = performance.now();
    await writer.db.transaction().execute(async (trx) => {
      await insertEvents(trx, [
        {
          id: eventId,
          accountId: account.id,
          type: 'contact.created',
          resourceType: 'contact',
          resourceId: 'c',
          data: {},
          at: now,
        },
      ]);
      await insertDeliveriesWithJobs(
        trx,
        [
          {
            id: randomUUID(),
            accountId: account.id,
            webhookId,
            eventId,
            eventType: 'contact.created',
            eventCreatedAt: now,
          },
        ],
        'k',
        now,
      );
    });
    await waitFor(() => ran.length === 1, WAKE_MS);
    expect(ran[0]!.at - committed).toBeLessThan(WAKE_MS);
    expect(wakes).toBeGreaterThanOrEqual(1);
  });

  it.runIf(engine === 'postgres')('listens again after its connection drops', async () => {
    const listeners = () =>
      sql<{ pid: number }>`select pid from pg_stat_activity
        where application_name = 'jobs-listener' and datname = current_database()`.execute(writer.db);
    const [before] = (await listeners()).rows;
    expect(before).toBeDefined();
    await sql`select pg_terminate_backend(${before!.pid})`.execute(writer.db);
    // Back after the first backoff (0.1 s), with one catch-up wake-up.
    await waitFor(async () => (await listeners()).rows.some((r) => r.pid !== before!.pid) && wakes > 0, 5000);
    const committed = performance.now();
    const id = await write();
    await waitFor(() => ran.some((r) => r.id === id), WAKE_MS);
    expect(ran.find((r) => r.id === id)!.at - committed).toBeLessThan(WAKE_MS);
  });
});
