// Automations on a WhatsApp Cloud number (issue 35), on every engine of the run, against the fake Graph API: a
// contact's signed text starts the published automation and its messages reach the fake. A block's send waits on
// Meta with no transaction open (engine/walk/later-send.ts): the stretch commits with the run waiting at the block,
// the send's job calls the Graph API, then records the message and the block's step and moves the run on. So on
// PGlite (one session) the API answers while Meta is slow, and on PostgreSQL no session sits idle in a transaction.
import { randomInt } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchemaConnection, SchemaWorkflowRun } from '../../generated/api.js';
import type { JobWorker } from '../../server/jobs/index.js';
import { LateJobsAtCommit, type JobRegistry } from '../../server/jobs/registry.js';
import { webhooks, type FakeMeta, type FakeNumber } from '../fakes/meta/index.js';
import { startFakeMetaApp, type FakeMetaApp } from './fake-meta-app.js';
import { engines, type TestApp } from './harness.js';
import { json as ok } from './http-helpers.js';

const TOKEN = 'admin-token-for-whatsapp-cloud-automation-0123';
const APP_SECRET = 'meta-app-secret-for-automation-tests';

describe.each(engines)('an automation on a WhatsApp Cloud number on %s', (engine) => {
  let t: TestApp;
  let meta: FakeMeta;
  let worker: JobWorker;
  let registry: JobRegistry;
  let admin: FakeMetaApp['admin'];
  /** As main.ts: the app's handle on the worker (attached only by the test that runs jobs at commit). */
  const jobsAtCommit = new LateJobsAtCommit();

  beforeAll(async () => {
    const options = { adminToken: TOKEN, appSecret: APP_SECRET, jobsAtCommit };
    ({ t, meta, worker, registry, admin } = await startFakeMetaApp(engine, options));
  });
  afterAll(async () => {
    await t?.close();
    await meta?.close();
  });

  /** An automation's graph, as the API takes it (positions are optional there). */
  type Graph = { nodes: Record<string, { type: string; data: Record<string, unknown> }> };

  /** A number attached to a new whatsapp connection, with a published automation answering any message by `graph`. */
  async function numberAnswering(graph: Graph) {
    const me = await t.account();
    const local = `9${randomInt(1000_0000, 9999_9999)}`;
    const number: FakeNumber = {
      phoneNumberId: `10${randomInt(1e12, 9e12)}`,
      wabaId: `10${randomInt(1e12, 9e12)}`,
      accessToken: `EAAG${randomInt(1e9, 9e9)}automation${randomInt(1e9, 9e9)}`,
      displayPhoneNumber: `+55 11 ${local.slice(0, 5)}-${local.slice(5)}`,
      verifiedName: 'Loja Aurora',
      templates: [],
    };
    meta.addNumber(number);
    const connection = await ok<SchemaConnection>(
      await admin('POST', `/accounts/${me.accountId}/connections`, {
        channel: 'whatsapp',
        name: 'Vendas',
        phone: `+5511${local}`,
      }),
      201,
    );
    await ok(
      await admin('PUT', `/connections/${connection.id}/whatsapp-cloud`, {
        phone_number_id: number.phoneNumberId,
        waba_id: number.wabaId,
        access_token: number.accessToken,
      }),
    );
    const workflow = await ok<{ id: string }>(
      await me.call('POST', '/v1/workflows', {
        body: {
          title: 'Resposta',
          channel: { type: 'whatsapp', connection_id: connection.id },
          trigger: { events: ['message'], match: 'any' },
          graph,
        },
      }),
      201,
    );
    await ok(await me.call('POST', `/v1/workflows/${workflow.id}/publish`));
    const from = `+5511${randomInt(9_1000_0000, 9_9999_9999)}`;
    /** The automation's one run, as the API shows it. */
    const run = async () => {
      const { data } = await ok<{ data: SchemaWorkflowRun[] }>(
        await me.call('GET', `/v1/workflows/${workflow.id}/runs`),
      );
      expect(data).toHaveLength(1);
      const id = data[0]?.id ?? '';
      return ok<SchemaWorkflowRun>(await me.call('GET', `/v1/workflows/${workflow.id}/runs/${id}`));
    };
    const sentTo = () => meta.sent.filter((m) => m.phoneNumberId === number.phoneNumberId);
    return { me, number, from, run, sentTo };
  }

  /** Runs every job due, each within the test's timeout (a deadlocked session never returns). */
  const drain = async () => {
    while ((await worker.runOnce()) > 0);
  };

  const replying: Graph = {
    nodes: {
      root: { type: 'root', data: { next: ['reply'] } },
      reply: { type: 'message', data: { text: 'Oi! Recebemos sua mensagem.', next: [null] } },
    },
  };

  it("answers a contact's text through the Graph API, recorded as the automation's", { timeout: 30_000 }, async () => {
    const { me, number, from, run, sentTo } = await numberAnswering(replying);
    const sent = await meta.sendWebhook(webhooks.text(number, { from, text: 'Oi' }));
    expect(sent.status).toBe(200);
    await drain();

    expect(sentTo().map((m) => [webhooks.digitsOf(m.to), m.type])).toEqual([[webhooks.digitsOf(from), 'text']]);
    const ended = await run();
    expect(ended.status).toBe('completed');
    const step = ended.steps.find((s) => s.node_id === 'reply');
    expect(step).toMatchObject({ status: 'completed', output: 0 });
    const message = await ok<{ id: string; sender: { type: string }; status: string }>(
      await me.call('GET', `/v1/messages/${step?.message_id ?? ''}`),
    );
    expect(message).toMatchObject({ sender: { type: 'workflow' } });
    // The send marked the contact's message read at Meta, after the send's own work.
    expect(meta.reads.filter((r) => r.phoneNumberId === number.phoneNumberId)).toHaveLength(1);
  });

  it('holds no transaction while the Graph API is slow to answer', { timeout: 30_000 }, async () => {
    const { me, number, from, run, sentTo } = await numberAnswering(replying);
    meta.script(webhooks.digitsOf(from), { kind: 'delay', ms: 2_500 });
    await meta.sendWebhook(webhooks.text(number, { from, text: 'Oi' }));
    const draining = drain();
    const asked = Date.now();
    while (meta.requestsTo(`${number.phoneNumberId}/messages`, 'POST').length === 0) {
      if (Date.now() - asked > 10_000) throw new Error('the send never reached the fake');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Meta is answering: the database serves others at once (PGlite: one session, which a transaction waiting on
    // Meta would hold), and no session waits in a transaction (PostgreSQL).
    const began = Date.now();
    await ok(await me.call('GET', '/v1/me'));
    expect(Date.now() - began).toBeLessThan(1_500);
    if (engine === 'postgres') {
      const idle = await sql<{ n: number }>`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and state = 'idle in transaction'`.execute(t.database.db);
      expect(idle.rows[0]?.n).toBe(0);
    }
    expect((await run()).status).toBe('running');
    await draining;
    expect(sentTo()).toHaveLength(1);
    expect((await run()).status).toBe('completed');
  });

  it('waits for the tap on buttons it sent, and follows it', { timeout: 30_000 }, async () => {
    const { number, from, run, sentTo } = await numberAnswering({
      nodes: {
        root: { type: 'root', data: { next: ['ask'] } },
        ask: {
          type: 'buttons',
          data: {
            subtitle: 'Quer o catálogo?',
            buttons: [{ title: 'Sim' }, { title: 'Não' }],
            next: ['yes', null, null, null],
          },
        },
        yes: { type: 'message', data: { text: 'Aqui está.', next: [null] } },
      },
    });
    await meta.sendWebhook(webhooks.text(number, { from, text: 'Oi' }));
    await drain();
    const waiting = await run();
    expect(waiting.status).toBe('waiting');
    expect(waiting.steps.find((s) => s.node_id === 'ask')).toMatchObject({ status: 'waiting' });
    const buttons = sentTo().find((m) => m.type === 'interactive');
    if (!buttons) throw new Error('the buttons were not sent');

    await meta.sendWebhook(
      webhooks.buttonReply(number, { from, buttonId: 'button_0', title: 'Sim', contextId: buttons.id }),
    );
    await drain();
    const ended = await run();
    expect(ended.status).toBe('completed');
    expect(ended.steps.find((s) => s.node_id === 'ask')).toMatchObject({ status: 'completed', output: 0 });
    expect(sentTo().map((m) => m.type)).toEqual(['interactive', 'text']);
  });

  it("fails the block's step on Meta's refusal and stops the run", { timeout: 30_000 }, async () => {
    const { number, from, run, sentTo } = await numberAnswering(replying);
    meta.script(webhooks.digitsOf(from), { kind: 'error', code: 131026 });
    await meta.sendWebhook(webhooks.text(number, { from, text: 'Oi' }));
    await drain();
    const ended = await run();
    expect(ended.status).toBe('stopped');
    expect(ended.steps.find((s) => s.node_id === 'reply')).toMatchObject({
      status: 'failed',
      message_id: null,
      error: { code: 'recipient_unavailable' },
    });
    expect(sentTo()).toHaveLength(0);
  });

  it(
    'claimed again after a crash, never calls Meta twice: the step fails outcome_unknown',
    { timeout: 30_000 },
    async () => {
      const { number, from, run, sentTo } = await numberAnswering(replying);
      await meta.sendWebhook(webhooks.text(number, { from, text: 'Oi' }));
      // Up to the send's job, then as if a claim of it had ended in a crash (its next claim is its second).
      const sendJob = () =>
        t.database.db
          .selectFrom('jobs')
          .select(['id', 'attempts'])
          .where('kind', '=', 'workflow.send')
          .executeTakeFirst();
      for (let i = 0; i < 50 && !(await sendJob()); i += 1) await worker.runOnce(1);
      const job = await sendJob();
      if (!job) throw new Error('no send job');
      await t.database.db.updateTable('jobs').set({ attempts: 1 }).where('id', '=', job.id).execute();
      await drain();
      const ended = await run();
      expect(ended.status).toBe('stopped');
      expect(ended.steps.find((s) => s.node_id === 'reply')).toMatchObject({
        status: 'failed',
        error: { code: 'outcome_unknown' },
      });
      expect(sentTo()).toHaveLength(0);
    },
  );

  it("a send whose job never comes: the wait's bound fails the step outcome_unknown", { timeout: 30_000 }, async () => {
    const { number, from, run, sentTo } = await numberAnswering(replying);
    await meta.sendWebhook(webhooks.text(number, { from, text: 'Oi' }));
    const sendJob = () =>
      t.database.db.selectFrom('jobs').select('id').where('kind', '=', 'workflow.send').executeTakeFirst();
    for (let i = 0; i < 50 && !(await sendJob()); i += 1) await worker.runOnce(1);
    const job = await sendJob();
    if (!job) throw new Error('no send job');
    // As if the job were lost: the run waits for a send nobody makes.
    await t.database.db.deleteFrom('jobs').where('id', '=', job.id).execute();
    await drain();
    expect((await run()).status).toBe('running');
    t.clock.advance(10 * 60_000 + 1);
    await drain();
    const ended = await run();
    expect(ended.status).toBe('stopped');
    expect(ended.steps.find((s) => s.node_id === 'reply')).toMatchObject({
      status: 'failed',
      error: { code: 'outcome_unknown' },
    });
    expect(sentTo()).toHaveLength(0);
  });

  it(
    "runs the webhook's job, the message's and the send's at once after their commits, with no claim",
    { timeout: 30_000 },
    async () => {
      const { number, sentTo } = await numberAnswering(replying);
      // As a server process: the worker runs at once what this process commits for it; its loops never run here.
      worker.runJobsAtCommit();
      jobsAtCommit.attach(registry);
      try {
        const texts = ['Oi', 'Tudo bem?', 'Alguém aí?'];
        const sent = await Promise.all(
          texts.map((text, i) => meta.sendWebhook(webhooks.text(number, { from: `+55119876500${10 + i}`, text }))),
        );
        expect(sent.map((s) => s.status)).toEqual([200, 200, 200]);
        const replies = () => sentTo().map((m) => [webhooks.digitsOf(m.to), m.type]);
        await expect.poll(() => replies().length, { timeout: 20_000, interval: 20 }).toBe(texts.length);
        expect(replies().sort()).toEqual(texts.map((_, i) => [`55119876500${10 + i}`, 'text']));
        await expect
          .poll(
            () =>
              t.database.db
                .selectFrom('jobs')
                .select('kind')
                .where('kind', 'in', ['channels.webhook', 'messaging.inbound', 'workflow.send'])
                .execute(),
            { timeout: 20_000, interval: 50 },
          )
          .toEqual([]);
      } finally {
        jobsAtCommit.attach(undefined);
        registry.runJobsWith(undefined);
      }
    },
  );
});
