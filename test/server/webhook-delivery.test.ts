// The webhook delivery engine (server/domain/webhooks/delivery.ts) on every engine of the run, against real
// HTTP receivers on 127.0.0.1 (WEBHOOK_DEV_TARGETS on): the fan-out in the outbox's transaction, the headers and
// envelope, signatures checked with the client's verifier (two `v1` values during a rotation), the exact retry
// schedule walked with the ManualClock, `failing_since`, the 3-day disabling and the owner notification, the
// account switched off, at most 5 in flight per endpoint and the pacing, a message deleted before its delivery,
// a worker lost mid-delivery (nothing lost, same event id), the 7-day retention.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../client/webhooks.js';
import { createConnection } from '../../server/domain/console/connections.js';
import { recordEvents, type OutboxEvent } from '../../server/domain/events/outbox.js';
import { contactDeletes, contactEdits, contactWrites } from '../../server/domain/sandbox/actions.js';
import { ensurePruneJob, RETENTION_MS, scheduleAttempt } from '../../server/domain/webhooks/delivery.js';
import { DELIVER_JOB, PRUNE_JOB } from '../../server/job-kinds.js';
import { createJobRegistry, type JobDeps } from '../../server/jobs/handlers.js';
import { JobWorker } from '../../server/jobs/worker.js';
import { serviceRegistry } from '../../server/metrics.js';
import type { DB } from '../../server/store/schema.js';
import { newWebhookSecret } from '../../server/webhooks/signing.js';
import { call, engines, startTestApp, type TestApp } from './harness.js';
import { insertEndpoint, Receiver, sleep, waitFor, type EndpointRow } from './webhook-receiver.js';
import type { SchemaContact } from '../../generated/api.js';
import type { SchemaAdminNotificationList } from '../../generated/admin-api.js';

const TOKEN = 'admin-token-for-webhook-delivery-tests-0123';
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
type Endpoint = EndpointRow;

describe.each(engines)('webhook delivery on %s', (engine) => {
  let t: TestApp;
  let db: Kysely<DB>;
  let rx: Receiver;

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { ADMIN_TOKEN: TOKEN, WEBHOOK_DEV_TARGETS: 'true' } });
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

  const iso = (d: Date) => d.toISOString();
  const ms = (timestamp: string | null) => (timestamp === null ? null : Date.parse(timestamp));

  async function addEndpoint(
    accountId: string,
    types: Endpoint['event_types'],
    extra: Partial<Endpoint> = {},
    url = rx.url,
  ): Promise<Endpoint> {
    return insertEndpoint(db, { accountId, url, types, now: t.clock.now(), extra });
  }

  /** Records one event in a transaction of its own, as a change would; returns its id (or null: not recorded). */
  async function emit(
    accountId: string,
    type: OutboxEvent['type'] = 'contact.created',
    data: unknown = { n: 1 },
  ): Promise<string | null> {
    const before = await db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    await db
      .transaction()
      .execute((tx) =>
        recordEvents(tx, accountId, iso(t.clock.now()), [
          { type, resource: { type: 'contact', id: randomUUID() }, data },
        ]),
      );
    const rows = await db
      .selectFrom('events')
      .select(['id', 'sequence'])
      .where('account_id', '=', accountId)
      .orderBy('sequence', 'desc')
      .execute();
    return rows.length > Number(before.n) ? rows[0]!.id : null;
  }

  const deliveriesOf = (webhookId: string) =>
    db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', webhookId)
      .orderBy('created_at')
      .orderBy('event_id')
      .execute();
  const endpointRow = (id: string) =>
    db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  /** The delivery outcomes this process counted so far (server/metrics.ts, served on /metrics). */
  async function outcomes(): Promise<Record<string, number>> {
    const metric = await serviceRegistry.getSingleMetric('webhook_delivery_outcomes_total')!.get();
    return Object.fromEntries(metric.values.map((v) => [String(v.labels.outcome), v.value]));
  }
  /** How many of each outcome were counted while `run` ran. */
  async function countedOutcomes(run: () => Promise<unknown>): Promise<Record<string, number>> {
    const before = await outcomes();
    await run();
    const after = await outcomes();
    return Object.fromEntries(
      Object.entries(after)
        .map(([k, v]) => [k, v - (before[k] ?? 0)])
        .filter(([, n]) => n !== 0),
    );
  }
  const deliverJobs = () => db.selectFrom('jobs').selectAll().where('kind', '=', DELIVER_JOB).execute();

  function worker(
    options: { deps?: Partial<JobDeps>; concurrency?: number; leaseMs?: number; random?: () => number } = {},
  ) {
    const registry = createJobRegistry({ config: t.config, baseUrl: t.baseUrl, ...t.services, ...options.deps });
    return new JobWorker({
      db,
      clock: t.clock,
      registry,
      pollIntervalMs: 5,
      concurrency: options.concurrency ?? 4,
      ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
      ...(options.random ? { random: options.random } : {}),
    });
  }
  /** Runs what is due now until nothing is. */
  async function drain(w = worker()): Promise<void> {
    while ((await w.runOnce()) > 0);
  }

  // ------------------------------------------------------------------------------------------------ fan-out

  it('fans out in the event’s transaction: one pending delivery and one job per subscribed enabled endpoint', async () => {
    const me = await t.account();
    const other = await t.account();
    const created = await addEndpoint(me.accountId, ['contact.created', 'contact.tagged']);
    const created2 = await addEndpoint(me.accountId, ['contact.created']);
    const tagged = await addEndpoint(me.accountId, ['contact.tagged']);
    const disabled = await addEndpoint(me.accountId, ['contact.created'], {
      status: 'disabled',
      disabled_reason: 'requested',
      disabled_at: iso(t.clock.now()),
    });
    const deleted = await addEndpoint(me.accountId, ['contact.created'], { deleted_at: iso(t.clock.now()) });
    const foreign = await addEndpoint(other.accountId, ['contact.created']);

    const eventId = await emit(me.accountId, 'contact.created');
    expect(eventId).not.toBeNull();
    for (const e of [tagged, disabled, deleted, foreign]) expect(await deliveriesOf(e.id)).toEqual([]);
    const now = iso(t.clock.now()).replace('Z', '000Z');
    for (const e of [created, created2]) {
      const [d, ...more] = await deliveriesOf(e.id);
      expect(more).toEqual([]);
      expect(d).toMatchObject({
        account_id: me.accountId,
        event_id: eventId,
        event_type: 'contact.created',
        event_created_at: now,
        status: 'pending',
        attempts: 0,
        next_attempt_at: now,
        last_attempt_at: null,
        last_error: null,
        in_flight_until: null,
        created_at: now,
      });
    }
    const jobs = await deliverJobs();
    expect(jobs.map((j) => (j.payload as { delivery_id: string }).delivery_id).sort()).toEqual(
      [(await deliveriesOf(created.id))[0]!.id, (await deliveriesOf(created2.id))[0]!.id].sort(),
    );
    expect(jobs.every((j) => j.account_id === me.accountId && ms(j.run_at) === t.clock.now().getTime())).toBe(true);

    // A rolled-back change leaves neither the event nor its deliveries nor their jobs.
    await expect(
      db.transaction().execute(async (tx) => {
        await recordEvents(tx, me.accountId, iso(t.clock.now()), [
          { type: 'contact.created', resource: { type: 'contact', id: randomUUID() }, data: {} },
        ]);
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(await deliveriesOf(created.id)).toHaveLength(1);
    expect(await deliverJobs()).toHaveLength(2);
  });

  it('a contact created through the API reaches the endpoint with every header, the envelope and a valid signature', async () => {
    const me = await t.account();
    const connection = await createConnection(db, t.clock, me.accountId, {
      channel: 'whatsapp',
      name: 'Loja',
      phone: '+5511930001234',
    });
    const endpoint = await addEndpoint(me.accountId, ['contact.created']);
    const res = await me.call('POST', '/v1/contacts', {
      body: { phone: '+5511987654321', name: 'Ana', connection_id: connection.id, consent: true },
    });
    expect(res.status).toBe(201);
    const contact = (await res.json()) as SchemaContact;
    const event = await db
      .selectFrom('events')
      .selectAll()
      .where('account_id', '=', me.accountId)
      .executeTakeFirstOrThrow();

    t.clock.advance(1500); // the attempt's moment differs from the event's
    await drain();
    expect(rx.requests).toHaveLength(1);
    const [request] = rx.requests;
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Service-Webhooks/1.0',
      'service-event-id': event.id,
      'service-event-type': 'contact.created',
      'service-delivery-attempt': '1',
    });
    const signature = request!.headers['service-signature'] as string;
    expect(signature).toMatch(new RegExp(`^t=${Math.floor(t.clock.now().getTime() / 1000)},v1=[0-9a-f]{64}$`));
    expect(
      verifyWebhookSignature({
        payload: request!.body,
        header: signature,
        secret: endpoint.secret,
        now: t.clock.now(),
      }),
    ).toEqual({ timestamp: Math.floor(t.clock.now().getTime() / 1000) });
    expect(() =>
      verifyWebhookSignature({
        payload: request!.body,
        header: signature,
        secret: newWebhookSecret(),
        now: t.clock.now(),
      }),
    ).toThrow(/No v1 signature matches/);

    const envelope = JSON.parse(request!.body) as Record<string, unknown>;
    expect(Object.keys(envelope)).toEqual(['id', 'type', 'api_version', 'created_at', 'data']);
    expect(envelope).toEqual({
      id: event.id,
      type: 'contact.created',
      api_version: 'v1',
      created_at: event.created_at,
      data: event.data,
    });
    expect((envelope.data as { id: string }).id).toBe(contact.id);

    const [d] = await deliveriesOf(endpoint.id);
    expect(d).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      last_response_status: 200,
      last_error: null,
      next_attempt_at: null,
      in_flight_until: null,
    });
    expect(ms(d!.last_attempt_at)).toBe(t.clock.now().getTime());
    expect(ms(d!.delivered_at)).toBe(t.clock.now().getTime());
    expect(await deliverJobs()).toEqual([]);
  });

  it('signs with both secrets while the previous one is valid (two v1 values), then with the current only', async () => {
    const me = await t.account();
    const oldSecret = newWebhookSecret();
    const endpoint = await addEndpoint(me.accountId, ['contact.tagged'], {
      previous_secret: oldSecret,
      previous_secret_expires_at: iso(new Date(t.clock.now().getTime() + 24 * HOUR)),
    });
    await emit(me.accountId, 'contact.tagged');
    await drain();
    const first = rx.requests[0]!;
    const header = first.headers['service-signature'] as string;
    expect(header.split(',').filter((p) => p.startsWith('v1='))).toHaveLength(2);
    for (const secret of [endpoint.secret, oldSecret])
      verifyWebhookSignature({ payload: first.body, header, secret, now: t.clock.now() });

    t.clock.advance(24 * HOUR); // the previous secret's end: it signs no more
    await emit(me.accountId, 'contact.tagged');
    await drain();
    const second = rx.requests[1]!;
    const header2 = second.headers['service-signature'] as string;
    expect(header2.split(',').filter((p) => p.startsWith('v1='))).toHaveLength(1);
    verifyWebhookSignature({ payload: second.body, header: header2, secret: endpoint.secret, now: t.clock.now() });
    expect(() =>
      verifyWebhookSignature({ payload: second.body, header: header2, secret: oldSecret, now: t.clock.now() }),
    ).toThrow(/No v1 signature matches/);
  });

  // ------------------------------------------------------------------------------------------------ schedule

  /**
   * Walks 10 attempts of `endpoint`'s one delivery against a receiver answering 500, each wait drawn by `draw`,
   * checking each wait is `waits[n - 1]` (due then, not a moment before); returns the first and last attempts.
   */
  async function walkSchedule(endpoint: Endpoint, draw: number, waits: readonly number[]) {
    const w = worker({ random: () => draw });
    const firstAttempt = t.clock.now().getTime();
    let at = firstAttempt;
    for (let n = 1; n <= 10; n++) {
      expect(await w.runOnce()).toBe(1);
      const [d] = await deliveriesOf(endpoint.id);
      expect(d).toMatchObject({
        attempts: n,
        last_response_status: 500,
        last_error: 'http_status',
        in_flight_until: null,
      });
      expect(ms(d!.last_attempt_at)).toBe(at);
      expect(ms((await endpointRow(endpoint.id)).failing_since)).toBe(firstAttempt);
      if (n < 10) {
        expect(d!.status).toBe('pending');
        expect(ms(d!.next_attempt_at)).toBe(at + waits[n - 1]!);
        const [job] = await deliverJobs();
        expect(ms(job!.run_at)).toBe(at + waits[n - 1]!);
        // Not a moment before it is due.
        t.clock.set(new Date(at + waits[n - 1]! - 1));
        expect(await w.runOnce()).toBe(0);
        at += waits[n - 1]!;
        t.clock.set(new Date(at));
      } else {
        expect(d!.status).toBe('failed');
        expect(d!.next_attempt_at).toBeNull();
        expect(await deliverJobs()).toEqual([]);
      }
    }
    return { firstAttempt, at };
  }

  it('walks the exact schedule against a receiver answering 500, fails after the 10th, keeps failing_since until a success', async () => {
    const me = await t.account();
    const endpoint = await addEndpoint(me.accountId, ['contact.created']);
    rx.reset(() => 500);
    const eventId = await emit(me.accountId);
    // A source giving 1 draws the top of every window: Part C's table exactly.
    const waits = [MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR, 10 * HOUR, 10 * HOUR];
    let walked = { firstAttempt: 0, at: 0 };
    // Each attempt's outcome is counted for /metrics: 9 retried, the 10th failed.
    expect(await countedOutcomes(async () => (walked = await walkSchedule(endpoint, 1, waits)))).toEqual({
      retrying: 9,
      failed: 1,
    });
    const { firstAttempt, at } = walked;
    expect(at - firstAttempt).toBe(47 * HOUR + 36 * MINUTE);
    expect(rx.requests.map((r) => r.headers['service-delivery-attempt'])).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
      '10',
    ]);
    expect(new Set(rx.requests.map((r) => r.headers['service-event-id']))).toEqual(new Set([eventId]));
    // Signed afresh at each attempt: each has its own t and its own signature; the body is the same.
    expect(new Set(rx.requests.map((r) => r.headers['service-signature'])).size).toBe(10);
    expect(new Set(rx.requests.map((r) => r.body)).size).toBe(1);
    expect((await endpointRow(endpoint.id)).status).toBe('enabled'); // under 3 days

    // A resend of a delivery that used all 10 (the retry route's change) gets exactly one more attempt.
    const [used] = await deliveriesOf(endpoint.id);
    await db.transaction().execute(async (tx) => {
      await tx
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: iso(t.clock.now()) })
        .where('id', '=', used!.id)
        .execute();
      await scheduleAttempt(tx, used!, t.clock.now(), t.clock.now());
    });
    const w = worker({ random: () => 1 });
    await drain(w);
    expect(rx.requests.at(-1)!.headers['service-delivery-attempt']).toBe('11');
    expect((await deliveriesOf(endpoint.id))[0]).toMatchObject({
      status: 'failed',
      attempts: 11,
      next_attempt_at: null,
    });

    // A success resets failing_since.
    rx.reset(() => 204);
    t.clock.advance(MINUTE);
    await emit(me.accountId);
    expect(await countedOutcomes(() => drain(w))).toEqual({ succeeded: 1 });
    expect((await endpointRow(endpoint.id)).failing_since).toBeNull();
    expect((await deliveriesOf(endpoint.id))[1]).toMatchObject({ status: 'succeeded', last_response_status: 204 });
  });

  it('with jitter each wait stays within Part C’s table: a source giving 0 walks the bottom of every window (the step before)', async () => {
    const me = await t.account();
    const endpoint = await addEndpoint(me.accountId, ['contact.created']);
    rx.reset(() => 500);
    await emit(me.accountId);
    // Never sooner than the table's step before (0 before the first), never later than the table (test above).
    const waits = [0, MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR, 10 * HOUR];
    const { firstAttempt, at } = await walkSchedule(endpoint, 0, waits);
    expect(at - firstAttempt).toBe(37 * HOUR + 36 * MINUTE);
    expect(rx.requests).toHaveLength(10);
  });
  it('disables an endpoint failing for 3 days: pending deliveries failed with endpoint_disabled, the owner notified', async () => {
    const me = await t.account();
    const endpoint = await addEndpoint(me.accountId, ['contact.created']);
    rx.reset(() => 503);
    const w = worker();
    const start = t.clock.now().getTime();
    await emit(me.accountId);
    await drain(w);
    expect(ms((await endpointRow(endpoint.id)).failing_since)).toBe(start);

    // 72 hours less a minute: still enabled after another failure.
    t.clock.set(new Date(start + 72 * HOUR - MINUTE));
    await emit(me.accountId);
    expect(await w.runOnce(1)).toBe(1);
    expect((await endpointRow(endpoint.id)).status).toBe('enabled');

    t.clock.set(new Date(start + 72 * HOUR));
    await emit(me.accountId);
    await emit(me.accountId);
    const sent = rx.requests.length;
    expect(await w.runOnce(1)).toBe(1);
    expect(rx.requests).toHaveLength(sent + 1);
    const disabled = await endpointRow(endpoint.id);
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'failing' });
    expect(ms(disabled.disabled_at)).toBe(start + 72 * HOUR);
    const deliveries = await deliveriesOf(endpoint.id);
    expect(deliveries).toHaveLength(4);
    for (const d of deliveries) expect(d).toMatchObject({ status: 'failed', last_error: 'endpoint_disabled' });

    // Their jobs are no-ops now (the last ones are due within 10 hours); new events are not recorded for it.
    t.clock.advance(10 * HOUR);
    await drain(w);
    expect(rx.requests).toHaveLength(sent + 1);
    expect(await deliverJobs()).toEqual([]);
    await emit(me.accountId);
    expect(await deliveriesOf(endpoint.id)).toHaveLength(4);

    const notifications = await db
      .selectFrom('account_notifications')
      .selectAll()
      .where('account_id', '=', me.accountId)
      .execute();
    expect(notifications).toHaveLength(1);
    expect(notifications[0]).toMatchObject({
      kind: 'webhook_disabled',
      subject_type: 'webhook',
      subject_id: endpoint.id,
      details: { reason: 'failing', url: endpoint.url, last_error: 'http_status', last_response_status: 503 },
    });
    expect(ms(notifications[0]!.created_at)).toBe(start + 72 * HOUR);

    // The admin API shows the notice to the vendor's console.
    const res = await call(t.baseUrl, TOKEN, 'GET', `/admin/v1/accounts/${me.accountId}/notifications`);
    expect(res.status).toBe(200);
    const page = (await res.json()) as SchemaAdminNotificationList;
    expect(page.next_cursor).toBeNull();
    expect(page.data).toEqual([
      {
        id: notifications[0]!.id,
        kind: 'webhook_disabled',
        subject: { type: 'webhook', id: endpoint.id },
        details: expect.objectContaining({ reason: 'failing', url: endpoint.url }) as unknown,
        created_at: notifications[0]!.created_at,
      },
    ]);
  });

  // ------------------------------------------------------------------------------------------------ account, endpoint

  it('a suspended account or one with the API off: pending deliveries fail with account_disabled, nothing is recorded', async () => {
    const me = await t.account();
    const endpoint = await addEndpoint(me.accountId, ['contact.created']);
    await emit(me.accountId);
    await db.updateTable('accounts').set({ suspended: true }).where('id', '=', me.accountId).execute();
    await drain();
    expect(rx.requests).toEqual([]);
    expect(await deliveriesOf(endpoint.id)).toMatchObject([
      { status: 'failed', last_error: 'account_disabled', attempts: 0, next_attempt_at: null },
    ]);
    expect(await deliverJobs()).toEqual([]); // not retried
    expect((await endpointRow(endpoint.id)).failing_since).toBeNull();

    const events = async () =>
      (await db.selectFrom('events').select('id').where('account_id', '=', me.accountId).execute()).length;
    const before = await events();
    expect(await emit(me.accountId)).toBeNull();
    await db
      .updateTable('accounts')
      .set({ suspended: false, api_enabled: false })
      .where('id', '=', me.accountId)
      .execute();
    expect(await emit(me.accountId)).toBeNull();
    expect(await events()).toBe(before);
    expect(await deliveriesOf(endpoint.id)).toHaveLength(1);

    // Back on: events of the meantime never appear; new ones are delivered.
    await db.updateTable('accounts').set({ api_enabled: true }).where('id', '=', me.accountId).execute();
    await emit(me.accountId);
    await drain();
    expect(rx.requests).toHaveLength(1);
    expect(await events()).toBe(before + 1);
  });

  it('an endpoint disabled or deleted before the attempt: endpoint_disabled, nothing sent', async () => {
    const me = await t.account();
    const a = await addEndpoint(me.accountId, ['contact.created']);
    const b = await addEndpoint(me.accountId, ['contact.created']);
    await emit(me.accountId);
    await db
      .updateTable('webhook_endpoints')
      .set({ status: 'disabled', disabled_reason: 'requested' })
      .where('id', '=', a.id)
      .execute();
    await db
      .updateTable('webhook_endpoints')
      .set({ deleted_at: iso(t.clock.now()) })
      .where('id', '=', b.id)
      .execute();
    // Failed without an attempt: counted as dropped for /metrics.
    expect(await countedOutcomes(() => drain())).toEqual({ dropped: 2 });
    expect(rx.requests).toEqual([]);
    for (const e of [a, b])
      expect(await deliveriesOf(e.id)).toMatchObject([{ status: 'failed', last_error: 'endpoint_disabled' }]);
  });

  it('re-checks the URL rules at every send: a target the strict rules refuse fails with unsafe_target', async () => {
    const me = await t.account();
    const endpoint = await addEndpoint(me.accountId, ['contact.created']);
    await emit(me.accountId);
    await drain(worker({ deps: { webhookTargets: { devTargets: false } } }));
    expect(rx.requests).toEqual([]);
    expect(await deliveriesOf(endpoint.id)).toMatchObject([
      { status: 'pending', attempts: 1, last_error: 'unsafe_target', last_response_status: null },
    ]);
  });

  // ------------------------------------------------------------------------------------------------ concurrency

  it('never has more than 5 attempts of one endpoint in flight, whatever the worker concurrency', async () => {
    const me = await t.account();
    const endpoint = await addEndpoint(me.accountId, ['contact.created']);
    const other = await addEndpoint(me.accountId, ['contact.tagged'], {}, rx.url.replace('/hooks', '/other'));
    let active = 0;
    let maxActive = 0;
    // Each attempt holds until 5 are in flight (or 1.5 s passed: a loaded machine starts them slowly), so the
    // limit is reached whatever the load, and a sixth would be seen.
    let fiveInFlight!: () => void;
    const five = new Promise<void>((ok) => (fiveInFlight = ok));
    rx.reset(async (r) => {
      if (r.headers['service-event-type'] !== 'contact.created') return 200;
      active += 1;
      maxActive = Math.max(maxActive, active);
      if (active === 5) fiveInFlight();
      await Promise.race([five, sleep(1500)]);
      await sleep(50);
      active -= 1;
      return 200;
    });
    for (let i = 0; i < 12; i++) await emit(me.accountId);
    await emit(me.accountId, 'contact.tagged');
    const w = worker({ concurrency: 12 });
    w.start();
    try {
      // The clock stands still: a job that found no free slot waits for one and is woken when an attempt of
      // the endpoint finishes, not when some time has passed.
      await waitFor(async () => {
        const done = await db
          .selectFrom('webhook_deliveries')
          .select('status')
          .where('webhook_id', 'in', [endpoint.id, other.id])
          .where('status', '=', 'succeeded')
          .execute();
        return done.length === 13;
      }, 60_000);
    } finally {
      await w.stop();
    }
    expect(maxActive).toBe(5);
    expect(new Set(rx.requests.map((r) => r.headers['service-event-id'])).size).toBe(13);
    expect(await deliverJobs()).toEqual([]);
    expect(
      await db.selectFrom('webhook_deliveries').select('id').where('in_flight_until', 'is not', null).execute(),
    ).toEqual([]);
  });

  it('paces attempt starts per endpoint and minute beyond the in-flight limit', async () => {
    const me = await t.account();
    const endpoint = await addEndpoint(me.accountId, ['contact.created']);
    t.clock.set(new Date((Math.floor(t.clock.now().getTime() / MINUTE) + 1) * MINUTE + 10 * SECOND));
    const windowStart = Math.floor(t.clock.now().getTime() / MINUTE) * MINUTE;
    for (let i = 0; i < 7; i++) await emit(me.accountId);
    const w = worker({ deps: { config: { ...t.config, webhookPacePerMinute: 3 } } });
    await drain(w);
    expect(rx.requests).toHaveLength(3);
    const runAts = (await deliverJobs()).map((j) => ms(j.run_at)).sort();
    expect(runAts).toEqual([1, 1, 1, 2].map((k) => windowStart + k * MINUTE));
    t.clock.set(new Date(windowStart + MINUTE));
    await drain(w);
    expect(rx.requests).toHaveLength(6);
    t.clock.set(new Date(windowStart + 2 * MINUTE));
    await drain(w);
    expect(rx.requests).toHaveLength(7);
    expect((await deliveriesOf(endpoint.id)).every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);
  });

  // ------------------------------------------------------------------------------------------------ message data

  it('message events carry the message as the API reads it at the attempt, except message.updated (as of the change)', async () => {
    const me = await t.account();
    const ig = await createConnection(db, t.clock, me.accountId, {
      channel: 'instagram',
      name: 'Loja IG',
      username: 'loja.ig',
    });
    const endpoint = await addEndpoint(me.accountId, ['message.received', 'message.updated', 'message.deleted']);
    const { message } = await contactWrites(
      db,
      t.clock,
      ig,
      {
        from: { instagram_id: '17841400000000099', username: 'ana.souza', name: 'Ana' },
        type: 'message',
        text: 'Oi, tudo bem?',
        attachments: [],
        post: null,
        reply_to_message_id: null,
        button: null,
        is_unsupported: false,
      },
      t.baseUrl,
    );
    t.clock.advance(SECOND);
    await contactEdits(db, t.clock, me.accountId, message.id, 'Oi!', t.baseUrl);
    t.clock.advance(SECOND);
    await contactDeletes(db, t.clock, me.accountId, message.id, t.baseUrl);
    expect(await deliveriesOf(endpoint.id)).toHaveLength(3);
    await drain();
    const byType = new Map(rx.envelopes().map((e) => [e.type, e.data as Record<string, unknown>]));
    expect(byType.get('message.received')).toMatchObject({ id: message.id, is_removed: true, text: null });
    expect(byType.get('message.deleted')).toMatchObject({ id: message.id, is_removed: true, text: null });
    expect(byType.get('message.updated')).toMatchObject({
      id: message.id,
      is_removed: false,
      text: 'Oi!',
      is_edited: true,
    });
    // The message as GET /v1/messages/{id} returns it now.
    const res = await me.call('GET', `/v1/messages/${message.id}`);
    expect(res.status).toBe(200);
    expect(byType.get('message.received')).toEqual(await res.json());
  });

  // ------------------------------------------------------------------------------------------------ crash

  it('a worker lost mid-delivery loses nothing: after its lease, every event is delivered again with the same id', async () => {
    const me = await t.account();
    const endpoint = await addEndpoint(me.accountId, ['contact.created']);
    const ids = [await emit(me.accountId), await emit(me.accountId), await emit(me.accountId)];
    let calls = 0;
    rx.reset(() => (++calls <= 3 ? 'hold' : 200));
    // Worker A sends the three and hangs (its receiver never answers): as good as killed before its commit.
    const lost = worker({ deps: { webhookTimeoutMs: 120_000 }, concurrency: 3, leaseMs: MINUTE });
    const hanging = lost.runOnce();
    await waitFor(() => rx.held.length === 3);
    expect(await deliveriesOf(endpoint.id)).toMatchObject([
      { status: 'pending' },
      { status: 'pending' },
      { status: 'pending' },
    ]);

    // Its job leases (1 min) and the slot leases (deadline + 30 s) run out; another worker takes over.
    t.clock.advance(3 * MINUTE);
    await drain();
    expect(rx.requests).toHaveLength(6);
    const first = rx.requests.slice(0, 3).map((r) => r.headers['service-event-id']);
    const again = rx.requests.slice(3).map((r) => r.headers['service-event-id']);
    expect(new Set(first)).toEqual(new Set(ids));
    expect(new Set(again)).toEqual(new Set(ids));
    expect(rx.requests.slice(3).every((r) => r.headers['service-delivery-attempt'] === '1')).toBe(true);

    // The lost worker's late outcome changes nothing: its lease was taken over, its transaction rolls back.
    for (const res of rx.held) res.socket?.destroy();
    await hanging;
    const deliveries = await deliveriesOf(endpoint.id);
    expect(deliveries.every((d) => d.status === 'succeeded' && d.attempts === 1 && d.in_flight_until === null)).toBe(
      true,
    );
    expect(await deliverJobs()).toEqual([]);
  });

  /**
   * A worker process (webhook-worker-child.ts) sends four deliveries to a receiver that holds them, then is killed
   * (SIGKILL) without a word, right after `beforeKill`. Returns the ids of the events it sent.
   */
  async function killMidDelivery(
    accountId: string,
    heartbeatMs: number,
    beforeKill: () => Promise<void> = async () => {},
  ): Promise<(string | null)[]> {
    const ids: (string | null)[] = [];
    for (let i = 0; i < 4; i++) ids.push(await emit(accountId));
    let calls = 0;
    rx.reset(() => (++calls <= 4 ? 'hold' : 200));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./webhook-worker-child.ts', import.meta.url))],
      {
        env: {
          ...process.env,
          CHILD_DATABASE_URL: t.databaseUrl!,
          CHILD_NOW: iso(t.clock.now()),
          CHILD_HEARTBEAT_MS: String(heartbeatMs),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exited = new Promise<NodeJS.Signals | null>((ok) => child.on('exit', (_code, signal) => ok(signal)));
    try {
      await waitFor(() => rx.held.length === 4, 30_000);
      await beforeKill();
    } finally {
      child.kill('SIGKILL');
    }
    expect(await exited).toBe('SIGKILL');
    for (const res of rx.held) res.socket?.destroy();
    return ids;
  }

  /** Starts a worker that beats every 50 ms and takes a silent worker for gone after `silentAfterMs`. */
  function liveWorker(silentAfterMs: number): JobWorker {
    const registry = createJobRegistry({ config: t.config, baseUrl: t.baseUrl, ...t.services });
    const w = new JobWorker({ db, clock: t.clock, registry, pollIntervalMs: 5, heartbeatMs: 50, silentAfterMs });
    w.start();
    return w;
  }

  /** All four deliveries sent again once each, with the ids of the killed process's attempts, nothing left. */
  async function expectDeliveredAgain(endpointId: string, ids: (string | null)[]): Promise<void> {
    const again = rx.requests.slice(4);
    expect(again).toHaveLength(4);
    expect(new Set(again.map((r) => r.headers['service-event-id']))).toEqual(new Set(ids));
    expect(new Set(rx.requests.slice(0, 4).map((r) => JSON.parse(r.body).id as string))).toEqual(new Set(ids));
    expect((await deliveriesOf(endpointId)).every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);
    expect(await deliverJobs()).toEqual([]);
  }

  const allSucceeded = (endpointId: string) => async () =>
    (await deliveriesOf(endpointId)).every((d) => d.status === 'succeeded');

  it.runIf(engine === 'postgres')(
    'a worker process killed (SIGKILL) mid-delivery loses nothing, and a process starting on its host resumes at once',
    async () => {
      const me = await t.account();
      const endpoint = await addEndpoint(me.accountId, ['contact.created']);
      const ids = await killMidDelivery(me.accountId, 2000);
      expect(await deliveriesOf(endpoint.id)).toMatchObject(Array(4).fill({ status: 'pending', attempts: 0 }));

      // The restart: the clock stands still (the leases — job 30 s, slot deadline + 30 s — have not run out);
      // the starting worker sees that the killed process is gone and frees its claims and slots.
      const w = liveWorker(60_000);
      try {
        await waitFor(allSucceeded(endpoint.id), 10_000);
      } finally {
        await w.stop();
      }
      await expectDeliveredAgain(endpoint.id, ids);
    },
  );

  it.runIf(engine === 'postgres')(
    'a worker process killed (SIGKILL) mid-delivery: a worker already running resumes its deliveries once its heartbeat stops',
    async () => {
      const me = await t.account();
      const endpoint = await addEndpoint(me.accountId, ['contact.created']);
      // The survivor starts before the kill (the other process is alive then: nothing to free) and knows it is
      // gone only by its silence; the clock stands still.
      let w: JobWorker | undefined;
      const ids = await killMidDelivery(me.accountId, 100, async () => {
        const survivor = liveWorker(1500);
        w = survivor;
        const registered = () => db.selectFrom('job_workers').select('id').where('id', '=', survivor.id).execute();
        await waitFor(async () => (await registered()).length === 1, 10_000);
      });
      const killedAt = Date.now();
      if (!w) throw new Error('the survivor did not start');
      try {
        await waitFor(allSucceeded(endpoint.id), 10_000);
      } finally {
        await w.stop();
      }
      expect(Date.now() - killedAt).toBeGreaterThanOrEqual(1000);
      await expectDeliveredAgain(endpoint.id, ids);
    },
  );

  // ------------------------------------------------------------------------------------------------ retention

  it('prunes deliveries older than 7 days and their outbox events every hour, with one retention job waiting', async () => {
    const me = await t.account();
    const endpoint = await addEndpoint(me.accountId, ['contact.created']);
    await emit(me.accountId);
    await drain();
    t.clock.advance(RETENTION_MS - MINUTE);
    await emit(me.accountId);
    await drain();
    expect(await deliveriesOf(endpoint.id)).toHaveLength(2);

    await ensurePruneJob(db, t.clock);
    await ensurePruneJob(db, t.clock);
    const pruneJobs = () => db.selectFrom('jobs').selectAll().where('kind', '=', PRUNE_JOB).execute();
    expect(await pruneJobs()).toHaveLength(1);
    // A second one, as two processes could leave: after a run, one remains, an hour later.
    await db
      .insertInto('jobs')
      .values({
        kind: PRUNE_JOB,
        account_id: null,
        payload: '{}',
        run_at: iso(t.clock.now()),
        created_at: iso(t.clock.now()),
      })
      .execute();

    t.clock.advance(2 * MINUTE); // the first delivery is now older than 7 days
    const w = worker();
    expect(await w.runOnce()).toBe(2);
    const remaining = await deliveriesOf(endpoint.id);
    expect(remaining).toHaveLength(1);
    // The outbox drops the old event with its delivery and keeps the one still delivered.
    const outbox = await db.selectFrom('events').select('id').where('account_id', '=', me.accountId).execute();
    expect(outbox.map((e) => e.id)).toEqual([remaining[0]!.event_id]);
    const jobs = await pruneJobs();
    expect(jobs).toHaveLength(1);
    expect(ms(jobs[0]!.run_at)).toBe(t.clock.now().getTime() + HOUR);
  });
});
