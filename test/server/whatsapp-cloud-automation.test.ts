// An automation answering on a WhatsApp Cloud number (issue 35), on every engine of the run, against the fake
// Graph API: a contact's signed text starts the published automation and its message reaches the fake. The send
// runs inside the automation's transaction; the number's credentials must be read in that session, since on
// PGlite (one session) a read outside it waits for the transaction that waits for it (found by bench:whatsapp:
// the first reply wedged the embedded database for good).
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PREFIX } from '../../generated/operations.js';
import type { SchemaConnection } from '../../generated/api.js';
import { createJobRegistry } from '../../server/jobs/handlers.js';
import { JobWorker } from '../../server/jobs/index.js';
import { LateJobsAtCommit, type JobRegistry } from '../../server/jobs/registry.js';
import { startFakeMeta, webhooks, type FakeMeta, type FakeNumber } from '../fakes/meta/index.js';
import { call, engines, startTestApp, type TestApp } from './harness.js';
import { json as ok } from './http-helpers.js';

const TOKEN = 'admin-token-for-whatsapp-cloud-automation-0123';
const APP_SECRET = 'meta-app-secret-for-automation-tests';

describe.each(engines)('an automation on a WhatsApp Cloud number on %s', (engine) => {
  let t: TestApp;
  let meta: FakeMeta;
  let worker: JobWorker;
  let registry: JobRegistry;
  /** As main.ts: the app's handle on the worker (attached only by the test that runs jobs at commit). */
  const jobsAtCommit = new LateJobsAtCommit();

  beforeAll(async () => {
    meta = await startFakeMeta({ appSecret: APP_SECRET });
    t = await startTestApp(engine, {
      env: { ADMIN_TOKEN: TOKEN, META_APP_SECRET: APP_SECRET, GRAPH_API_BASE_URL: meta.url },
      jobsAtCommit,
    });
    meta.setWebhookUrl(`${t.baseUrl}/channels/whatsapp/webhook`);
    registry = createJobRegistry({ config: t.config, baseUrl: t.baseUrl, ...t.services });
    worker = new JobWorker({ db: t.database.db, clock: t.clock, registry, pollIntervalMs: 5 });
  });
  afterAll(async () => {
    await t?.close();
    await meta?.close();
  });

  /** A number of the fake attached to a connection of a new account, with a published automation answering any message. */
  async function answering() {
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
    const admin = (method: string, path: string, body: unknown) =>
      call(t.baseUrl, TOKEN, method, `${ADMIN_PREFIX}${path}`, { body });
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
          graph: {
            nodes: {
              root: { type: 'root', data: { next: ['reply'] } },
              reply: { type: 'message', data: { text: 'Oi! Recebemos sua mensagem.', next: [null] } },
            },
          },
        },
      }),
      201,
    );
    await ok(await me.call('POST', `/v1/workflows/${workflow.id}/publish`));
    return number;
  }

  const repliesTo = (number: FakeNumber) =>
    meta.sent.filter((m) => m.phoneNumberId === number.phoneNumberId).map((m) => [webhooks.digitsOf(m.to), m.type]);

  it("answers a contact's text through the Graph API", { timeout: 30_000 }, async () => {
    const number = await answering();
    const sent = await meta.sendWebhook(webhooks.text(number, { from: '+5511987650001', text: 'Oi' }));
    expect(sent.status).toBe(200);
    // The webhook's job, the contact's message job, the run's stretch (each within the test's timeout: a
    // deadlocked session never returns).
    while ((await worker.runOnce()) > 0);

    expect(repliesTo(number)).toEqual([['5511987650001', 'text']]);
  });

  it(
    "runs the webhook's job and the message's job at once after their commits, with no claim",
    { timeout: 30_000 },
    async () => {
      const number = await answering();
      // As a server process: the worker runs at once what this process commits for it; its loops never run here.
      worker.runJobsAtCommit();
      jobsAtCommit.attach(registry);
      try {
        const texts = ['Oi', 'Tudo bem?', 'Alguém aí?'];
        const sent = await Promise.all(
          texts.map((text, i) => meta.sendWebhook(webhooks.text(number, { from: `+55119876500${10 + i}`, text }))),
        );
        expect(sent.map((s) => s.status)).toEqual([200, 200, 200]);
        await expect.poll(() => repliesTo(number).length, { timeout: 20_000, interval: 20 }).toBe(texts.length);
        expect(repliesTo(number).sort()).toEqual(texts.map((_, i) => [`55119876500${10 + i}`, 'text']));
        await expect
          .poll(() =>
            t.database.db
              .selectFrom('jobs')
              .select('kind')
              .where('kind', 'in', ['channels.webhook', 'messaging.inbound'])
              .execute(),
          )
          .toEqual([]);
      } finally {
        jobsAtCommit.attach(undefined);
        registry.runJobsWith(undefined);
      }
    },
  );
});
