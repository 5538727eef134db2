// The intake of Meta's webhooks (issue 35) on every engine of the run: payloads arriving together are committed in
// one transaction, each answered once committed; a payload the database refuses fails alone; with a worker in the
// process, as many as it has free slots are added claimed for it and handed over after the commit, the rest are
// left to the loops.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/clock.js';
import { ChannelWebhookIntake } from '../../server/domain/channels/webhook-intake.js';
import { CHANNEL_WEBHOOK_JOB } from '../../server/job-kinds.js';
import type { ClaimedJob, JobsAtCommit } from '../../server/store/jobs.js';
import { engines, openTestDatabase, type TestDatabase } from './harness.js';

/** A worker of the process with `free` slots: records what it was handed. */
function fakeWorker(free: number) {
  const handed: ClaimedJob[][] = [];
  let roomAsked = 0;
  const jobs: JobsAtCommit = {
    claimAtInsert: () => ({ workerId: 'this-process', leaseMs: 60_000 }),
    runSoon: (claimed) => void handed.push([...claimed]),
    room: () => {
      roomAsked += 1;
      return free;
    },
  };
  return { jobs, handed, roomAsked: () => roomAsked };
}

/** The body a stored job's payload carries. */
const bodyOf = (payload: unknown) =>
  typeof payload === 'object' && payload !== null && 'body' in payload ? payload.body : undefined;

const body = (i: number) => JSON.stringify({ object: 'whatsapp_business_account', entry: [], n: i });

describe.each(engines)('the channel webhooks intake on %s', (engine) => {
  let test: TestDatabase;
  const clock = new ManualClock(new Date('2026-12-01T12:00:00Z'));

  beforeAll(async () => {
    test = await openTestDatabase(engine);
  });
  afterAll(async () => {
    await test?.drop();
  });
  beforeEach(async () => {
    await test.database.db.deleteFrom('jobs').execute();
  });

  const webhookJobs = () =>
    test.database.db
      .selectFrom('jobs')
      .select(['id', 'payload', 'locked_by', 'attempts'])
      .where('kind', '=', CHANNEL_WEBHOOK_JOB)
      .orderBy('id')
      .execute();

  it('commits the payloads arriving together in one transaction, claiming as many as the worker has room for', async () => {
    const worker = fakeWorker(3);
    const intake = new ChannelWebhookIntake(test.database.db, clock, worker.jobs);
    await Promise.all(Array.from({ length: 10 }, (_, i) => intake.accept('whatsapp_cloud', body(i), 'http://x')));

    // One transaction: the worker's room is read once per batch.
    expect(worker.roomAsked()).toBe(1);
    const rows = await webhookJobs();
    expect(rows.map((r) => bodyOf(r.payload))).toEqual(Array.from({ length: 10 }, (_, i) => body(i)));
    expect(rows.filter((r) => r.locked_by === 'this-process').map((r) => r.attempts)).toEqual([1, 1, 1]);
    expect(rows.filter((r) => r.locked_by === null)).toHaveLength(7);
    // The claimed ones are handed over after the commit, each with its own payload.
    expect(worker.handed).toHaveLength(1);
    expect(worker.handed[0]?.map((j) => [j.id, j.payload])).toEqual(
      rows.slice(0, 3).map((r) => [String(r.id), r.payload]),
    );
  });

  it('without a worker in the process, leaves every payload to the loops', async () => {
    const intake = new ChannelWebhookIntake(test.database.db, clock);
    await Promise.all([0, 1, 2].map((i) => intake.accept('whatsapp_cloud', body(i), 'http://x')));
    expect((await webhookJobs()).map((r) => r.locked_by)).toEqual([null, null, null]);
  });

  it('fails only the payload the database refuses, not the others of its batch', async () => {
    const worker = fakeWorker(0);
    const intake = new ChannelWebhookIntake(test.database.db, clock, worker.jobs);
    // jsonb takes no NUL character (the route's JSON check lets none through: this is the database refusing).
    const bodies = ['{"t":"a"}', '{"t":"b\u0000"}', '{"t":"c"}'];
    const outcomes = await Promise.allSettled(bodies.map((b) => intake.accept('whatsapp_cloud', b, 'http://x')));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await webhookJobs()).map((r) => bodyOf(r.payload))).toEqual(['{"t":"a"}', '{"t":"c"}']);
  });
});
