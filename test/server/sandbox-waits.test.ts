// GET /admin/v1/sandbox/accounts/{accountId}/waits: what of an account waits on the clock, soonest first, told by
// what each job will do (a run's sleep or question timeout, a webhook or invoke attempt, an arranged failure);
// jobs that gave up and other accounts' jobs are not listed; 404 for an unknown account and while the sandbox is
// off. (The console's clock pane moving the clock past a wait is in console-webhooks.test.ts.)
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
import { enqueueJobs } from '../../server/store/jobs.js';
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
        { kind: 'run_start', due_at: at(30), subject: { type: 'workflow_run', id: ids.sleeping } },
        { kind: 'run_sleep', due_at: at(60), subject: { type: 'workflow_run', id: ids.sleeping } },
        { kind: 'run_question_timeout', due_at: at(90 * 24 * 60), subject: { type: 'workflow_run', id: ids.asking } },
      ],
      next_cursor: null,
    });

    // A job that gave up waits for nothing: not listed.
    await t.database.db
      .updateTable('jobs')
      .set({ failed_at: t.clock.now() })
      .where('account_id', '=', a.accountId)
      .where('kind', '=', INVOKE_JOB)
      .execute();
    const after = await json<WaitList>(await waits(t, a.accountId), 200);
    expect(after.data.map((w) => w.kind)).not.toContain('invoke_attempt');
    expect(after.data).toHaveLength(5);

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
