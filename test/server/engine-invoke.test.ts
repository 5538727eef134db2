// The invoke block (Part B, "Block catalog"; issue 22) on every engine of the run, driven through the sandbox
// and real HTTP receivers on loopback: the request as rendered (variables, JSON escaping, Content-Type, the
// idempotency header), the outputs, the fields copied, retries as jobs on the moved clock, the address rules,
// secrets sent only to their domain and never shown, and what the step records. docs/decisions.md, "invoke
// (issue 22)".
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { createJobRegistry } from '../../server/jobs/handlers.js';
import { JobRegistry, JobWorker } from '../../server/jobs/index.js';
import { INVOKE_JOB } from '../../server/job-kinds.js';
import { releaseJob } from '../../server/store/jobs.js';
import { ANY, engineHarness } from './engine-harness.js';
import { engines, type TestCaller } from './harness.js';
import { json } from './http-helpers.js';
import { Receiver } from './invoke-receiver.js';

const invoke = (data: Record<string, unknown>, ok: string | null = 'ok', fail: string | null = 'fail') => ({
  type: 'invoke',
  data: { method: 'POST', ...data, next: [ok, fail] },
});
const say = (text: string) => ({ type: 'message', data: { text, next: [null] } });
const graphOf = (inv: unknown, extra: Record<string, unknown> = {}) => ({
  nodes: {
    root: { type: 'root', data: { next: ['inv'] } },
    inv,
    ok: say('deu certo'),
    fail: say('falhou'),
    ...extra,
  },
});

describe.each(engines)('the invoke block on %s', (engine) => {
  const hx = engineHarness(engine, { INVOKE_DEV_TARGETS: 'true', WEBHOOK_DEV_TARGETS: 'true' });
  const { h, admin, setUp, publish, runsOf, runOf, sentTexts, contactOf, fieldOf, field } = hx;
  const receiver = new Receiver();
  const logs: string[] = [];

  beforeAll(async () => {
    await receiver.start();
    // The harness's worker, with a short attempt deadline (the timeout test) and a log that is kept.
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        logs.push(chunk.toString('utf8'));
        done();
      },
    });
    h.worker = new JobWorker({
      db: h.t.database.db,
      clock: h.t.clock,
      registry: createJobRegistry({
        config: h.t.config,
        baseUrl: h.t.baseUrl,
        ...h.t.services,
        invokeTimeoutMs: 400,
      }),
      logger: pino({ level: 'trace' }, stream),
      pollIntervalMs: 5,
    });
  });
  afterAll(async () => receiver.stop());

  /** Runs the jobs, moving the clock past each retry's wait, until nothing is left. */
  async function settle() {
    for (let i = 0; i < 6; i += 1) {
      await hx.drain();
      h.t.clock.advance(10_000);
    }
    await hx.drain();
  }

  async function runOnce(graph: unknown, setup?: (me: TestCaller) => Promise<void>, text = 'oi') {
    const s = await setUp();
    await setup?.(s.me);
    const workflowId = await publish(s.me, s.connection.id, graph, ANY, 'Invoke');
    const { contact } = await s.writes(text);
    await settle();
    const [run] = await runsOf(s.me, workflowId);
    const read = await runOf(s.me, workflowId, run!.id);
    const step = read.steps.find((st) => st.node_id === 'inv');
    return { ...s, workflowId, contact, run: read, step, sent: await sentTexts(s.me) };
  }

  it('a 2xx answer takes the first output and copies the first match of each path (0, false, "" not copied)', async () => {
    receiver.reset({
      status: 200,
      body: JSON.stringify({ plan: 'gold', items: [{ n: 'a' }, { n: 'b' }], zero: 0, no: false, empty: '' }),
    });
    const r = await runOnce(
      graphOf(
        invoke({
          endpoint: receiver.url('/leads?c={contact.first_name}'),
          fields: [
            { path: '$.plan', name: 'plano' },
            { path: '$.items[*].n', name: 'item' },
            { path: '$.zero', name: 'zero' },
            { path: '$.no', name: 'nao' },
            { path: '$.empty', name: 'vazio' },
          ],
        }),
        { ok: say('plano {plano} item {item}') },
      ),
      async (me) => {
        for (const label of ['plano', 'item', 'zero', 'nao', 'vazio']) await field(me, label);
      },
    );
    expect(receiver.seen).toHaveLength(1);
    expect(receiver.seen[0]!.url).toBe('/leads?c=Ana');
    expect(r.step).toMatchObject({ status: 'completed', output: 0, error: null });
    expect(r.sent).toEqual(['plano gold item a']);
    const contact = await contactOf(r.me, r.contact.id);
    expect(fieldOf(contact, 'plano')).toBe('gold');
    expect(fieldOf(contact, 'item')).toBe('a');
    expect(fieldOf(contact, 'zero')).toBeNull();
    expect(fieldOf(contact, 'nao')).toBeNull();
    expect(fieldOf(contact, 'vazio')).toBeNull();
    const updated = await h.t.database.db
      .selectFrom('events')
      .select('data')
      .where('account_id', '=', r.me.accountId)
      .where('type', '=', 'contact.custom_fields_updated')
      .execute();
    // One event per field copied, as the data block writes each.
    expect(updated).toHaveLength(2);
    expect(JSON.stringify(updated)).toContain('gold');
  });

  it('the step records method, host, status, attempts, duration and a bounded excerpt of the answer', async () => {
    receiver.reset({ status: 200, body: JSON.stringify({ text: 'x'.repeat(2000) }) });
    const r = await runOnce(graphOf(invoke({ method: 'PUT', endpoint: receiver.url() })));
    expect(r.step?.call).toMatchObject({
      method: 'PUT',
      host: `127.0.0.1:${receiver.port}`,
      status: 200,
      attempts: 1,
    });
    expect(r.step?.call?.duration_ms).toBeGreaterThanOrEqual(0);
    expect(r.step?.call?.response_excerpt).toHaveLength(500);
    expect(receiver.seen[0]!.method).toBe('PUT');
  });

  it('a 2xx answer that is not JSON takes the first output and copies nothing', async () => {
    receiver.reset({ status: 200, body: 'not json', headers: { 'Content-Type': 'text/plain' } });
    const r = await runOnce(
      graphOf(invoke({ endpoint: receiver.url(), fields: [{ path: '$.a', name: 'plano' }] })),
      (me) => field(me, 'plano'),
    );
    expect(r.step).toMatchObject({ status: 'completed', output: 0 });
    expect(fieldOf(await contactOf(r.me, r.contact.id), 'plano')).toBeNull();
    expect(r.sent).toEqual(['deu certo']);
  });

  it('a 4xx answer takes the second output without a retry', async () => {
    receiver.reset({ status: 404, body: '{"error":"nope"}' });
    const r = await runOnce(graphOf(invoke({ endpoint: receiver.url() })));
    expect(receiver.seen).toHaveLength(1);
    expect(r.step).toMatchObject({ status: 'failed', output: 1, error: { code: 'http_status' } });
    expect(r.step?.call).toMatchObject({ status: 404, attempts: 1 });
    expect(r.sent).toEqual(['falhou']);
  });

  it('500, 500, 200: three attempts as jobs on the clock, the same idempotency key, then the first output', async () => {
    receiver.reset({ status: 500 }, { status: 500 }, { status: 200, body: '{}' });
    const s = await setUp();
    const workflowId = await publish(s.me, s.connection.id, graphOf(invoke({ endpoint: receiver.url() })), ANY);
    await s.writes('oi');
    // No retry before the clock moves: the second attempt is a job due later.
    expect(receiver.seen).toHaveLength(1);
    await hx.drain();
    expect(receiver.seen).toHaveLength(1);
    await settle();
    expect(receiver.seen).toHaveLength(3);
    const [run] = await runsOf(s.me, workflowId);
    const keys = new Set(receiver.seen.map((q) => q.headers['idempotency-key']));
    // The run's id and the invoke step's number (root is step 1).
    expect([...keys]).toEqual([`${run!.id}:2`]);
    const read = await runOf(s.me, workflowId, run!.id);
    expect(read.steps.find((st) => st.node_id === 'inv')).toMatchObject({
      output: 0,
      call: { attempts: 3, status: 200 },
    });
  });

  it('500 three times takes the second output and never makes a 4th attempt; a 429 is retried', async () => {
    receiver.reset({ status: 500 }, { status: 503 }, { status: 502 }, { status: 200 });
    const r = await runOnce(graphOf(invoke({ endpoint: receiver.url() })));
    expect(receiver.seen).toHaveLength(3);
    expect(r.step).toMatchObject({ output: 1, error: { code: 'http_status' }, call: { attempts: 3, status: 502 } });
    await settle();
    expect(receiver.seen).toHaveLength(3);

    receiver.reset({ status: 429 }, { status: 200, body: '{}' });
    const again = await runOnce(graphOf(invoke({ endpoint: receiver.url() })));
    expect(receiver.seen).toHaveLength(2);
    expect(again.step).toMatchObject({ output: 0, call: { attempts: 2 } });
  });

  it('a crash after a call was made (its record lost) counts that attempt: 500 three times makes 3 requests', async () => {
    // The first `faults` invoke jobs lose their record: the transaction that writes the answer rolls back, as when
    // the process dies after the request. The job is claimed again and must count the attempt as made.
    const real = h.worker;
    const registry = createJobRegistry({ config: h.t.config, baseUrl: h.t.baseUrl, ...h.t.services });
    const faulty = new JobRegistry();
    let faults = 2;
    for (const kind of registry.kinds()) {
      const handler = registry.get(kind);
      if (!handler) continue;
      faulty.register(kind, {
        retryAt: handler.retryAt,
        run: (job, ctx) =>
          kind === INVOKE_JOB && faults-- > 0
            ? handler.run(job, { ...ctx, complete: () => Promise.reject(new Error('the process died')) })
            : handler.run(job, ctx),
      });
    }
    h.worker = new JobWorker({ db: h.t.database.db, clock: h.t.clock, registry: faulty, pollIntervalMs: 5 });
    try {
      receiver.reset({ status: 500 }, { status: 500 }, { status: 500 }, { status: 200 });
      const r = await runOnce(graphOf(invoke({ endpoint: receiver.url() })));
      expect(faults).toBeLessThan(0);
      expect(receiver.seen).toHaveLength(3);
      expect(r.step).toMatchObject({ output: 1, call: { attempts: 3 } });
      expect(r.sent).toEqual(['falhou']);

      // A 200 whose record is lost: made again as the 2nd attempt (the receiver sees the same key twice).
      faults = 1;
      receiver.reset({ status: 200, body: '{}' }, { status: 200, body: '{}' });
      const ok = await runOnce(graphOf(invoke({ endpoint: receiver.url() })));
      expect(receiver.seen).toHaveLength(2);
      expect(new Set(receiver.seen.map((q) => q.headers['idempotency-key'])).size).toBe(1);
      expect(ok.step).toMatchObject({ output: 0, call: { attempts: 2 } });
      expect(ok.sent).toEqual(['deu certo']);
    } finally {
      h.worker = real;
    }
  });

  /** Runs `body` with the harness's worker replaced by `worker` (its registry `registry`). */
  async function withWorker(make: (registry: JobRegistry) => JobWorker, body: () => Promise<void>) {
    const real = h.worker;
    h.worker = make(createJobRegistry({ config: h.t.config, baseUrl: h.t.baseUrl, ...h.t.services }));
    try {
      await body();
    } finally {
      h.worker = real;
    }
  }
  /**
   * A contact writes the keyword of an invoke automation whose call's job is claimed at insert for a runner that
   * never runs it, holding it `leaseMs`; then `body`.
   */
  async function withCallNeverRun(
    leaseMs: number,
    body: (s: Awaited<ReturnType<typeof setUp>>, workflowId: string) => Promise<void>,
  ) {
    await withWorker(
      (registry) => {
        registry.runJobsWith({
          workerId: 'dead',
          leaseMs: () => leaseMs,
          run: async () => {},
          release: async () => {},
        });
        return workerOf(registry);
      },
      async () => {
        receiver.reset({ status: 200, body: '{}' });
        const s = await setUp();
        const workflowId = await publish(s.me, s.connection.id, graphOf(invoke({ endpoint: receiver.url() })), ANY);
        await s.writes('oi');
        await body(s, workflowId);
      },
    );
  }
  const workerOf = (registry: JobRegistry) =>
    new JobWorker({ db: h.t.database.db, clock: h.t.clock, registry, pollIntervalMs: 5 });

  it('the call runs at once in the process that committed the stretch (no loop claims it)', async () => {
    await withWorker(
      (registry) => workerOf(registry).runJobsAtCommit(),
      async () => {
        receiver.reset({ status: 200, body: '{}' });
        const s = await setUp();
        const workflowId = await publish(s.me, s.connection.id, graphOf(invoke({ endpoint: receiver.url() })), ANY);
        // `writes` runs the jobs due (the trigger's stretch) once: the call's job is not left to a claim of it.
        await s.writes('oi');
        for (let i = 0; i < 200 && (await sentTexts(s.me)).length === 0; i += 1)
          await new Promise((ok) => setTimeout(ok, 25));
        expect(await sentTexts(s.me)).toEqual(['deu certo']);
        expect(receiver.seen).toHaveLength(1);
        const [run] = await runsOf(s.me, workflowId);
        const read = await runOf(s.me, workflowId, run!.id);
        expect(read.steps.find((st) => st.node_id === 'inv')).toMatchObject({ output: 0, call: { attempts: 1 } });
      },
    );
  });

  it('the call still runs when the committing process does not: its runner fails, or it dies holding the job', async () => {
    await withWorker(
      (registry) => {
        // The jobs come claimed for this runner; it throws, and they go back to the loops uncounted.
        registry.runJobsWith({
          workerId: 'failing',
          leaseMs: () => 60_000,
          run: () => Promise.reject(new Error('the fast path threw')),
          release: async (jobs) => {
            for (const job of jobs) await releaseJob(h.t.database.db, job);
          },
        });
        return workerOf(registry);
      },
      async () => {
        receiver.reset({ status: 200, body: '{}' });
        const r = await runOnce(graphOf(invoke({ endpoint: receiver.url() })));
        expect(receiver.seen).toHaveLength(1);
        expect(r.sent).toEqual(['deu certo']);
        // The claim given back did not count: one attempt, made by a loop.
        expect(r.step).toMatchObject({ output: 0, call: { attempts: 1 } });
      },
    );
    // The job is claimed at insert for a runner that "dies": no call, nothing released, the lease left to expire.
    await withCallNeverRun(60_000, async (s, workflowId) => {
      expect(receiver.seen).toHaveLength(0);
      h.t.clock.advance(61_000);
      await hx.drain();
      expect(receiver.seen).toHaveLength(1);
      expect(await sentTexts(s.me)).toEqual(['deu certo']);
      const [run] = await runsOf(s.me, workflowId);
      const read = await runOf(s.me, workflowId, run!.id);
      // Claimed again, the job cannot know whether the dead claim called: it counts that attempt as made.
      expect(read.steps.find((st) => st.node_id === 'inv')).toMatchObject({ output: 0, call: { attempts: 2 } });
    });
  });

  it('a call that never ends takes the failure output at its bound (10 minutes); its job then calls nobody', async () => {
    // Claimed at insert for a runner that holds it for 20 minutes and never runs it: only the bound written with
    // the call (engine/blocks/invoke/executor.ts) can move the run on.
    await withCallNeverRun(20 * 60_000, async (s, workflowId) => {
      h.t.clock.advance(9 * 60_000);
      await hx.drain();
      expect(await sentTexts(s.me)).toEqual([]);
      h.t.clock.advance(61_000);
      await hx.drain();
      expect(await sentTexts(s.me)).toEqual(['falhou']);
      const [run] = await runsOf(s.me, workflowId);
      const read = await runOf(s.me, workflowId, run!.id);
      expect(read.steps.find((st) => st.node_id === 'inv')).toMatchObject({
        status: 'failed',
        output: 1,
        error: { code: 'call_expired' },
      });
      // The lease ends: the job finds its call cancelled and makes no request.
      h.t.clock.advance(11 * 60_000);
      await hx.drain();
      expect(receiver.seen).toHaveLength(0);
      expect(await sentTexts(s.me)).toEqual(['falhou']);
    });
  });

  it('a JSON body gets variables JSON-escaped, and application/json unless a Content-Type is given', async () => {
    receiver.reset();
    const tricky = 'diz "oi"\ne \\ tchau';
    const r = await runOnce(
      graphOf(invoke({ endpoint: receiver.url(), data: '{"msg": "{message.trigger}", "n": "{contact.first_name}"}' })),
      undefined,
      tricky,
    );
    expect(r.step?.output).toBe(0);
    const first = receiver.seen[0]!;
    expect(first.headers['content-type']).toBe('application/json');
    expect(first.headers['user-agent']).toBe('Service-Automations/1.0');
    expect(JSON.parse(first.body)).toEqual({ msg: tricky, n: 'Ana' });

    receiver.reset();
    await runOnce(
      graphOf(
        invoke({
          endpoint: receiver.url(),
          headers: [{ name: 'Content-Type', value: 'text/plain' }],
          data: 'msg={message.trigger}',
        }),
      ),
      undefined,
      'a "b"',
    );
    expect(receiver.seen[0]!.headers['content-type']).toBe('text/plain');
    expect(receiver.seen[0]!.body).toBe('msg=a "b"');
  });

  it('a secret goes only to its domain, in headers and body; elsewhere it is empty and it is never shown', async () => {
    const SECRET = 'sk-very-secret-0123456789';
    receiver.reset({ status: 200, body: JSON.stringify({ echo: SECRET }) });
    const secretFor = async (me: TestCaller, name: string, domain: string) =>
      json(await admin('POST', `/accounts/${me.accountId}/secrets`, { name, value: SECRET, domain }), 201);
    const inv = invoke({
      endpoint: receiver.url('/s?e={secret.tok}'),
      headers: [
        { name: 'Authorization', value: 'Bearer {secret.tok}' },
        { name: 'X-Other', value: '[{secret.other}]' },
      ],
      data: '{"k": "{secret.tok}"}',
    });
    const r = await runOnce(graphOf(inv, { ok: say('ok [{secret.tok}]') }), async (me) => {
      await secretFor(me, 'tok', '127.0.0.1');
      await secretFor(me, 'other', 'api.example.com');
    });
    const seen = receiver.seen[0]!;
    expect(seen.url).toBe('/s?e=');
    expect(seen.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(seen.headers['x-other']).toBe('[]');
    expect(JSON.parse(seen.body)).toEqual({ k: SECRET });
    expect(r.sent).toEqual(['ok []']);
    expect(r.step?.call?.response_excerpt).toBe('{"echo":"***"}');

    // Never in the run read, the steps, the events (workflow_run.ended), the audit log or the logs.
    expect(JSON.stringify(r.run)).not.toContain(SECRET);
    const events = await h.t.database.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('account_id', '=', r.me.accountId)
      .execute();
    expect(events.some((e) => e.type === 'workflow_run.ended')).toBe(true);
    expect(JSON.stringify(events)).not.toContain(SECRET);
    const audit = await admin('GET', `/accounts/${r.me.accountId}/audit-log`);
    expect(audit.status).toBe(200);
    expect(await audit.text()).not.toContain(SECRET);
    const steps = await h.t.database.db
      .selectFrom('workflow_run_steps')
      .selectAll()
      .where('run_id', '=', r.run.id)
      .execute();
    expect(JSON.stringify(steps)).not.toContain(SECRET);
    const calls = await h.t.database.db.selectFrom('invoke_calls').selectAll().where('run_id', '=', r.run.id).execute();
    expect(JSON.stringify(calls)).not.toContain(SECRET);
    expect(logs.join('')).not.toContain(SECRET);
    expect(logs.join('')).toContain('invoke attempt');

    // Toward another host (localhost is not the domain 127.0.0.1) the secret is empty.
    receiver.reset();
    await runOnce(
      graphOf(
        invoke({
          endpoint: `http://localhost:${receiver.port}/x`,
          headers: [{ name: 'Authorization', value: 'Bearer {secret.tok}' }],
        }),
      ),
      (me) => secretFor(me, 'tok', '127.0.0.1').then(() => undefined),
    );
    expect(receiver.seen[0]?.headers.authorization).toBe('Bearer');

    // A redirect to another host (localhost) gets the secret empty; the first hop (127.0.0.1) had it.
    receiver.reset({ status: 307, headers: { Location: `http://localhost:${receiver.port}/moved` } });
    await runOnce(
      graphOf(
        invoke({
          endpoint: receiver.url('/first'),
          headers: [{ name: 'Authorization', value: 'Bearer {secret.tok}' }],
          data: '{"k": "{secret.tok}"}',
        }),
      ),
      (me) => secretFor(me, 'tok', '127.0.0.1').then(() => undefined),
    );
    expect(receiver.seen.map((q) => [q.url, q.headers.authorization, q.body])).toEqual([
      ['/first', `Bearer ${SECRET}`, `{"k": "${SECRET}"}`],
      ['/moved', 'Bearer', '{"k": ""}'],
    ]);
  });

  it('redirects: followed up to 5 (the secret dropped on another host), more fail, a refused address fails', async () => {
    receiver.reset(
      { status: 302, headers: { Location: '/two' } },
      { status: 307, headers: { Location: '/three' } },
      { status: 200, body: '{}' },
    );
    const r = await runOnce(graphOf(invoke({ endpoint: receiver.url('/one'), data: '{}' })));
    expect(receiver.seen.map((q) => `${q.method} ${q.url}`)).toEqual(['POST /one', 'GET /two', 'GET /three']);
    expect(r.step?.output).toBe(0);

    receiver.reset();
    receiver.fallback = { status: 302, headers: { Location: '/again' } };
    const loop = await runOnce(graphOf(invoke({ endpoint: receiver.url() })));
    receiver.fallback = { status: 200, body: '{"ok":true}' };
    expect(receiver.seen).toHaveLength(6);
    expect(loop.step).toMatchObject({ output: 1, error: { code: 'too_many_redirects' } });

    receiver.reset({ status: 302, headers: { Location: 'http://0.0.0.0/x' } });
    const refused = await runOnce(graphOf(invoke({ endpoint: receiver.url() })));
    expect(refused.step).toMatchObject({ output: 1, error: { code: 'unsafe_target' } });
    expect(receiver.seen).toHaveLength(1);
  });

  it('a receiver that never answers times out (retried), then the second output', async () => {
    receiver.reset('hang', 'hang', 'hang');
    const r = await runOnce(graphOf(invoke({ endpoint: receiver.url() })));
    expect(receiver.seen).toHaveLength(3);
    expect(r.step).toMatchObject({ output: 1, error: { code: 'timeout' }, call: { status: null, attempts: 3 } });
  });

  it('an endpoint that is not http or https takes the second output at once', async () => {
    const r = await runOnce(graphOf(invoke({ endpoint: 'ftp://{contact.first_name}.example.com/x' })));
    expect(r.step).toMatchObject({ status: 'failed', output: 1, error: { code: 'invalid_endpoint' } });
    expect(r.sent).toEqual(['falhou']);
  });

  it('a deleted automation’s pending call makes no further request', async () => {
    receiver.reset({ status: 500 });
    const s = await setUp();
    const workflowId = await publish(s.me, s.connection.id, graphOf(invoke({ endpoint: receiver.url() })), ANY);
    await s.writes('oi');
    expect(receiver.seen).toHaveLength(1);
    // The second attempt waits on the clock; the automation is deleted meanwhile (its runs end `stopped`).
    const del = await s.me.call('DELETE', `/v1/workflows/${workflowId}`);
    expect(del.status).toBeLessThan(300);
    await settle();
    expect(receiver.seen).toHaveLength(1);
    const calls = await h.t.database.db
      .selectFrom('invoke_calls')
      .select('status')
      .where('account_id', '=', s.me.accountId)
      .execute();
    expect(calls.map((c) => c.status)).toEqual(['cancelled']);
  });
});

describe.each(engines)('the invoke block without INVOKE_DEV_TARGETS on %s', (engine) => {
  const hx = engineHarness(engine, { INVOKE_DEV_TARGETS: 'false' });
  const receiver = new Receiver();
  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  it('a loopback endpoint is refused: the second output, the step says why, no request', async () => {
    const s = await hx.setUp();
    const workflowId = await hx.publish(s.me, s.connection.id, graphOf(invoke({ endpoint: receiver.url() })), ANY);
    await s.writes('oi');
    await hx.drain();
    const [run] = await hx.runsOf(s.me, workflowId);
    const read = await hx.runOf(s.me, workflowId, run!.id);
    expect(read.steps.find((st) => st.node_id === 'inv')).toMatchObject({
      status: 'failed',
      output: 1,
      error: { code: 'unsafe_target' },
      call: { attempts: 1, status: null },
    });
    expect(receiver.seen).toHaveLength(0);
    expect(await hx.sentTexts(s.me)).toEqual(['falhou']);
  });
});

describe('INVOKE_DEV_TARGETS', () => {
  const production = {
    APP_ENV: 'production',
    DATABASE_URL: 'postgres://db/x',
    ADMIN_TOKEN: 'x'.repeat(32),
    CHANNEL_CREDENTIALS_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
  };
  it('is on in the embedded development default, off with DATABASE_URL or in production, refused there', () => {
    expect(loadConfig({}).invokeDevTargets).toBe(true);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/x' }).invokeDevTargets).toBe(false);
    expect(loadConfig({ APP_ENV: 'test' }).invokeDevTargets).toBe(false);
    expect(loadConfig({ INVOKE_DEV_TARGETS: 'true', DATABASE_URL: 'postgres://db/x' }).invokeDevTargets).toBe(true);
    const prod = loadConfig({ ...production, PUBLIC_BASE_URL: 'https://api.example.com' });
    expect(prod.invokeDevTargets).toBe(false);
    expect(() =>
      loadConfig({ ...production, PUBLIC_BASE_URL: 'https://api.example.com', INVOKE_DEV_TARGETS: 'true' }),
    ).toThrow(/INVOKE_DEV_TARGETS/);
  });
});
