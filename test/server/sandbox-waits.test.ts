// GET /admin/v1/sandbox/accounts/{accountId}/waits: what of an account waits on the clock, soonest first, told by
// what each job will do (a run's sleep or question timeout, a webhook or invoke attempt, an arranged failure);
// jobs that gave up, a run's jobs that would do nothing (its wait answered, the run ended, its automation deleted)
// and other accounts' jobs are not listed; 404 for an unknown account and while the sandbox is off. (The console's
// clock pane moving the clock past a wait is in console-webhooks.test.ts.)
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../generated/admin-api.js';
import {
  ADVANCE_RUN_JOB,
  DELIVER_JOB,
  FAIL_LATER_JOB,
  INVOKE_JOB,
  INBOUND_MESSAGE_JOB,
} from '../../server/job-kinds.js';
import { waitOf } from '../../server/domain/sandbox/waits.js';
import { enqueueJobs } from '../../server/store/jobs.js';
import type { SchemaMessage, SchemaWorkflowRun } from '../../generated/api.js';
import { DAY, engineHarness, keyword } from './engine-harness.js';
import { call, engines, startTestApp, type TestApp } from './harness.js';
import { expectError, json } from './http-helpers.js';

type WaitList = components['schemas']['SandboxWaitList'];
const TOKEN = 'sandbox-waits-admin-token-0123456789abcdef';
const MINUTE = 60_000;

describe.each(engines)('sandbox waits on %s', (engine) => {
  let t: TestApp;
  let off: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, { env: { ADMIN_TOKEN: TOKEN, SANDBOX_ENABLED: 'true' } });
    off = await startTestApp(engine, { env: { ADMIN_TOKEN: TOKEN, SANDBOX_ENABLED: 'false' } });
  });
  afterAll(async () => {
    await t?.close();
    await off?.close();
  });
  const waits = (app: TestApp, accountId: string, token = TOKEN) =>
    call(app.baseUrl, token, 'GET', `/admin/v1/sandbox/accounts/${accountId}/waits`);

  it('lists the account’s pending jobs as waits, soonest first, each by what it does', async () => {
    const a = await t.account();
    const other = await t.account();
    const now = t.clock.now().getTime();
    const later = (minutes: number) => new Date(now + minutes * MINUTE);
    const ids = { sleeping: randomUUID(), asking: randomUUID(), delivery: randomUUID(), call: randomUUID() };
    const message = randomUUID();
    await enqueueJobs(
      t.database.db,
      [
        {
          kind: ADVANCE_RUN_JOB,
          accountId: a.accountId,
          payload: { run_id: ids.asking, wake: { kind: 'expire', step: 2 } },
          runAt: later(90 * 24 * 60),
        },
        {
          kind: ADVANCE_RUN_JOB,
          accountId: a.accountId,
          payload: { run_id: ids.sleeping, wake: { kind: 'timer', step: 3 } },
          runAt: later(60),
        },
        { kind: DELIVER_JOB, accountId: a.accountId, payload: { delivery_id: ids.delivery }, runAt: later(1) },
        { kind: INVOKE_JOB, accountId: a.accountId, payload: { call_id: ids.call, attempt: 2 }, runAt: later(5) },
        {
          kind: FAIL_LATER_JOB,
          accountId: a.accountId,
          payload: { message_id: message, provider_code: null, provider_message: null, base_url: t.baseUrl },
          runAt: later(2),
        },
        {
          kind: ADVANCE_RUN_JOB,
          accountId: a.accountId,
          payload: { run_id: ids.sleeping, wake: { kind: 'start' } },
          runAt: later(30),
        },
        { kind: INBOUND_MESSAGE_JOB, accountId: other.accountId, payload: { message_id: message }, runAt: later(1) },
      ],
      t.clock.now(),
    );
    const at = (minutes: number) =>
      later(minutes)
        .toISOString()
        .replace(/\.(\d{3})Z$/, '.$1000Z');
    const list = await json<WaitList>(await waits(t, a.accountId), 200);
    expect(list).toEqual({
      data: [
        { kind: 'webhook_attempt', due_at: at(1), subject: { type: 'webhook_delivery', id: ids.delivery } },
        { kind: 'message_failure', due_at: at(2), subject: { type: 'message', id: message } },
        { kind: 'invoke_attempt', due_at: at(5), subject: { type: 'invoke_call', id: ids.call } },
        // The run jobs name runs that do not exist: they would do nothing, so they wait for nothing.
      ],
      next_cursor: null,
    });
    // What a run's job is called, by its wake (the runs themselves are below).
    const runJob = (wake: unknown) =>
      waitOf({ id: '1', kind: ADVANCE_RUN_JOB, payload: { run_id: ids.sleeping, wake }, run_at: later(1) });
    expect(
      [
        { kind: 'start' },
        { kind: 'timer', step: 3 },
        { kind: 'expire', step: 2 },
        { kind: 'call', step: 4 },
        { kind: 'continue' },
      ].map((w) => runJob(w).kind),
    ).toEqual(['run_start', 'run_sleep', 'run_question_timeout', 'run_call_bound', 'run_continue']);

    // A job that gave up waits for nothing: not listed.
    await t.database.db
      .updateTable('jobs')
      .set({ failed_at: t.clock.now() })
      .where('account_id', '=', a.accountId)
      .where('kind', '=', INVOKE_JOB)
      .execute();
    const after = await json<WaitList>(await waits(t, a.accountId), 200);
    expect(after.data.map((w) => w.kind)).not.toContain('invoke_attempt');
    expect(after.data).toHaveLength(2);

    // The other account sees only its own.
    const theirs = await json<WaitList>(await waits(t, other.accountId), 200);
    expect(theirs.data).toEqual([
      { kind: 'other', due_at: at(1), subject: { type: 'other', id: INBOUND_MESSAGE_JOB } },
    ]);
  });

  it('answers 404 for an unknown account, 401 without the token, 404 while the sandbox is off', async () => {
    await expectError(await waits(t, randomUUID()), 404, { code: 'not_found' });
    expect((await waits(t, randomUUID(), '')).status).toBe(401);
    const a = await off.account();
    await expectError(await waits(off, a.accountId), 404, { code: 'not_found' });
  });
});

describe.each(engines)('the waits of runs on %s: exactly what the engine would wake', (engine) => {
  const { h, admin, drain, setUp, publish, runsOf, runOf, messagesOf } = engineHarness(engine);
  /** The demo's shape: a question, two reply buttons, a sleep, a goodbye. */
  const graph = {
    nodes: {
      root: { type: 'root', data: { next: ['cidade'] } },
      cidade: {
        type: 'question',
        data: { text: 'Sua cidade?', answer_type: 'any', answer_field: '', next: ['oferta'] },
      },
      oferta: {
        type: 'buttons',
        data: {
          subtitle: 'Quer a oferta?',
          buttons: [{ title: 'Quero' }, { title: 'Agora não' }],
          next: ['lembrete', null, null, null],
        },
      },
      lembrete: { type: 'sleep', data: { seconds: 3600, next: ['tchau'] } },
      tchau: { type: 'message', data: { text: 'Até logo!', next: [null] } },
    },
  };
  const runWaits = async (accountId: string, runId: string) =>
    (await json<WaitList>(await admin('GET', `/sandbox/accounts/${accountId}/waits`), 200)).data.filter(
      (w) => w.subject.id === runId,
    );
  const dueIn = (wait: { due_at: string } | undefined) => Date.parse(wait?.due_at ?? '') - h.t.clock.now().getTime();

  it('lists a question’s timeout until the answer, the buttons’ until the tap, the sleep until it ends, then nothing', async () => {
    const { me, connection, writes } = await setUp();
    const workflowId = await publish(me, connection.id, graph, keyword('contains', 'oferta'));
    await writes('oferta');
    const [run] = await runsOf(me, workflowId);
    const runId = run!.id;
    const asked = await runWaits(me.accountId, runId);
    expect(asked.map((w) => w.kind)).toEqual(['run_question_timeout']);
    expect(dueIn(asked[0])).toBe(90 * DAY);

    // The answer: the question's timeout is over (its job stays and would do nothing); the buttons' is listed.
    h.t.clock.advance(60_000);
    await writes('Recife');
    const buttons = await runWaits(me.accountId, runId);
    expect(buttons.map((w) => w.kind)).toEqual(['run_question_timeout']);
    expect(dueIn(buttons[0])).toBe(90 * DAY);
    expect(buttons[0]?.due_at).not.toBe(asked[0]?.due_at);

    // The tap: only the sleep.
    const menu = (await messagesOf(me)).find(
      (m: SchemaMessage) => m.sender.type === 'workflow' && m.text !== 'Sua cidade?',
    );
    await json(await admin('POST', `/sandbox/messages/${menu!.id}/button-taps`, { button_id: 'button_0' }), 201);
    await drain();
    const sleeping = await runWaits(me.accountId, runId);
    expect(sleeping.map((w) => w.kind)).toEqual(['run_sleep']);
    expect(dueIn(sleeping[0])).toBe(3600_000);

    // The run's end: none of its waits.
    h.t.clock.advance(3600_000);
    await drain();
    expect((await runOf(me, workflowId, runId)).status).toBe<SchemaWorkflowRun['status']>('completed');
    expect(await runWaits(me.accountId, runId)).toEqual([]);
  });

  it('lists none of a run’s waits once its automation is deleted, nor after the run ended stopped', async () => {
    const { me, connection, writes } = await setUp();
    const workflowId = await publish(me, connection.id, graph, keyword('contains', 'oferta'));
    await writes('oferta');
    const [run] = await runsOf(me, workflowId);
    expect((await runWaits(me.accountId, run!.id)).map((w) => w.kind)).toEqual(['run_question_timeout']);
    expect((await me.call('DELETE', `/v1/workflows/${workflowId}`)).status).toBe(200);
    // Before the job that stops its runs ran: the automation's deletion already ends the wait.
    expect(await runWaits(me.accountId, run!.id)).toEqual([]);
    await drain();
    expect(await runWaits(me.accountId, run!.id)).toEqual([]);
  });
});
