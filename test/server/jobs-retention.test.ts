// What the jobs table keeps (server/jobs/retention.ts, issue 33), on every engine of the run: the hourly retention
// job deletes the jobs that gave up more than FAILED_JOB_RETENTION_DAYS ago, in batches of short statements, and
// keeps the recent failures, the jobs still to run (due, scheduled, parked, running) and everything the delivery
// log reads (a delivery whose job gave up is still listed).
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordEvents } from '../../server/domain/events/outbox.js';
import { ensurePruneJob } from '../../server/domain/webhooks/delivery.js';
import { DELIVER_JOB, PRUNE_JOB } from '../../server/job-kinds.js';
import { createJobRegistry } from '../../server/jobs/handlers.js';
import { pruneFailedJobs } from '../../server/jobs/retention.js';
import { JobWorker } from '../../server/jobs/worker.js';
import type { DB } from '../../server/store/schema.js';
import { engines, startTestApp, type TestApp } from './harness.js';
import { insertEndpoint, Receiver } from './webhook-receiver.js';
import type { SchemaWebhookDeliveryList } from '../../generated/api.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

describe.each(engines)('jobs retention on %s', (engine) => {
  let t: TestApp;
  let db: Kysely<DB>;
  let rx: Receiver;

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { WEBHOOK_DEV_TARGETS: 'true' } });
    db = t.database.db;
    rx = await new Receiver().start();
  });
  afterAll(async () => {
    await rx?.close();
    await t?.close();
  });
  beforeEach(async () => {
    await db.deleteFrom('jobs').execute();
    rx.reset();
  });

  const iso = (ms: number) => new Date(ms).toISOString();
  /** A job row of a kind no worker here runs, as `fields` say. */
  async function job(name: string, fields: Record<string, string | number | null> = {}): Promise<string> {
    const now = t.clock.now().getTime();
    const row = await db
      .insertInto('jobs')
      .values({
        kind: `retention.${name}`,
        account_id: null,
        payload: JSON.stringify({ name }),
        run_at: iso(now - 30 * DAY),
        created_at: iso(now - 30 * DAY),
        ...fields,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return String(row.id);
  }
  const kinds = async () =>
    (await db.selectFrom('jobs').select('kind').orderBy('kind').execute()).map((j) => j.kind).sort();

  it('the hourly retention job deletes the jobs that gave up over 7 days ago and keeps the rest and the delivery log', async () => {
    const me = await t.account();
    const endpoint = await insertEndpoint(db, {
      accountId: me.accountId,
      url: rx.url,
      types: ['contact.created'],
      now: t.clock.now(),
    });
    const worker = new JobWorker({
      db,
      clock: t.clock,
      registry: createJobRegistry({ config: t.config, baseUrl: t.baseUrl, ...t.services }),
      pollIntervalMs: 5,
      random: () => 1,
    });
    // Two deliveries: one succeeds (its job is deleted as it finishes), one fails its first attempt and its job
    // then gives up (as after its database-fault attempts), 8 days before the prune.
    for (const status of [204, 500]) {
      rx.reset(() => status);
      await db
        .transaction()
        .execute((tx) =>
          recordEvents(tx, me.accountId, t.clock.now().toISOString(), [
            { type: 'contact.created', resource: { type: 'contact', id: randomUUID() }, data: { status } },
          ]),
        );
      while ((await worker.runOnce()) > 0);
      // The log lists newest first: the second delivery a second later (same-instant rows tie in random id order).
      t.clock.advance(1_000);
    }
    const now = t.clock.now().getTime();
    await db
      .updateTable('jobs')
      .set({ failed_at: iso(now - 8 * DAY), last_error: 'database fault' })
      .where('kind', '=', DELIVER_JOB)
      .execute();
    expect(await db.selectFrom('jobs').select('kind').where('kind', '=', DELIVER_JOB).execute()).toHaveLength(1);

    await job('failed-8-days', { failed_at: iso(now - 8 * DAY), attempts: 10 });
    await job('failed-7-days-1-minute', { failed_at: iso(now - 7 * DAY - MINUTE), attempts: 10 });
    await job('failed-6-days', { failed_at: iso(now - 6 * DAY), attempts: 10 });
    await job('due-for-30-days');
    await job('scheduled', { run_at: iso(now + DAY) });
    await job('parked', { waiting_for: 'slot:x', wait_until: iso(now + MINUTE) });
    await job('running', { locked_by: 'worker-x', locked_until: iso(now + MINUTE), attempts: 1 });
    await ensurePruneJob(db, t.clock);

    expect(await worker.runOnce()).toBe(1); // the retention job, nothing else is due for this worker
    expect(await kinds()).toEqual([
      'retention.due-for-30-days',
      'retention.failed-6-days',
      'retention.parked',
      'retention.running',
      'retention.scheduled',
      PRUNE_JOB, // the next run, an hour later
    ]);

    // The delivery log still lists both deliveries as they were.
    const res = await me.call('GET', `/v1/webhooks/${endpoint.id}/deliveries`);
    expect(res.status).toBe(200);
    const log = (await res.json()) as SchemaWebhookDeliveryList;
    expect(log.data.map((d) => [d.status, d.attempts, d.last_response_status])).toEqual([
      ['pending', 1, 500],
      ['succeeded', 1, 204],
    ]);

    // A day later the one failed 6 days before goes too (FAILED_JOB_RETENTION_DAYS, default 7).
    expect(t.config.failedJobRetentionDays).toBe(7);
    t.clock.advance(DAY + MINUTE);
    expect(await pruneFailedJobs(db, t.clock, { retentionDays: 7 })).toBe(1);
    expect(await kinds()).not.toContain('retention.failed-6-days');
  });

  it('deletes in batches of short statements, a run making at most its number of them', async () => {
    const now = t.clock.now().getTime();
    await db
      .insertInto('jobs')
      .values(
        Array.from({ length: 250 }, (_, i) => ({
          kind: 'retention.old',
          account_id: null,
          payload: '{}',
          run_at: iso(now - 20 * DAY),
          created_at: iso(now - 20 * DAY),
          failed_at: iso(now - 10 * DAY + i),
          attempts: 10,
        })),
      )
      .execute();
    await job('recent', { failed_at: iso(now - DAY), attempts: 10 });
    const remaining = async () => (await db.selectFrom('jobs').select('id').execute()).length;

    // Batches of 100, two a run: 200 go now, the oldest first; the other 50 at the next run.
    expect(await pruneFailedJobs(db, t.clock, { retentionDays: 7, batch: 100, batchesPerRun: 2 })).toBe(200);
    expect(await remaining()).toBe(51);
    const oldest = await db
      .selectFrom('jobs')
      .select('failed_at')
      .where('kind', '=', 'retention.old')
      .orderBy('failed_at')
      .executeTakeFirstOrThrow();
    expect(Date.parse(oldest.failed_at!)).toBe(now - 10 * DAY + 200);
    expect(await pruneFailedJobs(db, t.clock, { retentionDays: 7, batch: 100, batchesPerRun: 2 })).toBe(50);
    expect(await kinds()).toEqual(['retention.recent']);
  });
});
