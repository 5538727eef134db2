// The README's Instagram round trip (examples/instagram.ts) against a real server and the fake Graph API
// (test/fakes/meta, as `npm run fake:meta` serves it, its demo instagram account included), on every engine of the
// run: the demo account's `loja.demo` attached through the admin API (Instagram Login), a contact's direct message
// signed by the fake and taken by the server's instagram webhook, reply buttons sent through the Graph API as a
// button template, the tap (a postback) read as an answer to them, then a comment with an automation's keyword
// answered with a private reply (`recipient.comment_id`) and a public reply under the comment (the automation's
// reply list), each reaching the example's own webhook receiver, signed. The server is set up as a client team
// sets it up for the fake: META_APP_SECRET, GRAPH_API_BASE_URL, INSTAGRAM_GRAPH_BASE_URL, INSTAGRAM_CDN_BASE_URL
// (test/server/fake-meta-app.ts) and WEBHOOK_DEV_TARGETS so that a receiver on loopback is allowed; a job worker
// beside it as in `npm start`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, verifyWebhookSignature } from '../../client/index.js';
import { FAKE_DEMO_INSTAGRAM, instagram } from '../../examples/instagram.js';
import { createAdminClient } from '../../examples/sandbox-exchange.js';
import { startReceiver, type ReceivedRequest, type WebhookReceiver } from '../../examples/webhook-receiver.js';
import { demoInstagram } from '../../scripts/fake-meta.js';
import { ensureDemoAccount } from '../../server/console/demo.js';
import type { JobWorker } from '../../server/jobs/worker.js';
import { type FakeMeta } from '../fakes/meta/index.js';
import { engines, type TestApp } from './harness.js';
import { startFakeMetaApp } from './fake-meta-app.js';

const ADMIN_TOKEN = 'instagram-example-admin-token-0123456789';
const APP_SECRET = 'instagram-example-app-secret';

it("attaches `npm run fake:meta`'s demo instagram account by default", () => {
  const { igUserId, accessToken, login, username } = demoInstagram({});
  expect(FAKE_DEMO_INSTAGRAM).toEqual({ igUserId, accessToken });
  expect(login).toBe('instagram');
  expect(username).toBe('loja.demo');
});

describe.each(engines)('the Instagram example on %s', (engine) => {
  let t: TestApp;
  let meta: FakeMeta;
  let worker: JobWorker;
  let receiver: WebhookReceiver;
  const lines: string[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'ep-instagram-example-'));

  beforeAll(async () => {
    ({ t, meta, worker } = await startFakeMetaApp(engine, {
      adminToken: ADMIN_TOKEN,
      appSecret: APP_SECRET,
      env: {
        DATA_DIR: dataDir,
        SANDBOX_ENABLED: 'true',
        WEBHOOK_DEV_TARGETS: 'true',
        META_VERIFY_TOKEN: 'instagram-example-verify-token',
      },
    }));
    // The fake plays `npm run fake:meta`'s demo account, its webhooks to the app's instagram webhook.
    meta.addInstagramAccount(demoInstagram({}));
    meta.setInstagramWebhookUrl(`${t.baseUrl}/channels/instagram/webhook`);
    worker.start();
    receiver = await startReceiver({ secrets: [], log: (line) => lines.push(line) });
  });
  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
    await t?.close();
    await meta?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The signature checked again here, with the endpoint's secret alone. */
  const verifies = (r: ReceivedRequest, secret: string) => {
    try {
      verifyWebhookSignature({ payload: r.body, header: r.signature, secret, now: t.clock.now() });
      return true;
    } catch {
      return false;
    }
  };

  it('attaches the account, takes a signed DM, answers with buttons, sees the tap, answers a comment', async () => {
    const demo = await ensureDemoAccount(t.database.db, t.clock, dataDir);
    const api = createClient({ baseUrl: t.baseUrl, apiKey: demo.apiKey });
    const progress: string[] = [];
    const x = await instagram(api, createAdminClient(t.baseUrl, ADMIN_TOKEN), receiver.url, receiver, {
      fakeUrl: meta.url,
      webhookUrl: `${t.baseUrl}/channels/instagram/webhook`,
      account: FAKE_DEMO_INSTAGRAM,
      timeoutMs: 15_000,
      log: (line) => progress.push(line),
    });

    // 1–2. The endpoint on the receiver, for the three events; the account attached without its token in the
    //      answer, the token checked with the Graph API and the app subscribed to the account's webhooks.
    expect(x.endpoint).toMatchObject({ url: receiver.url, status: 'enabled' });
    expect([...x.endpoint.event_types].sort()).toEqual(['comment.received', 'message.received', 'message.sent']);
    expect(x.attached).toMatchObject({
      provider: 'instagram_graph',
      login: 'instagram',
      ig_user_id: FAKE_DEMO_INSTAGRAM.igUserId,
      page_id: null,
      username: 'loja.demo',
      token_last4: FAKE_DEMO_INSTAGRAM.accessToken.slice(-4),
      connection: { status: 'connected', channel: 'instagram' },
    });
    expect(JSON.stringify(x.attached)).not.toContain(FAKE_DEMO_INSTAGRAM.accessToken);
    expect(meta.requestsTo('/me', 'GET')[0]?.headers.authorization).toBe(`Bearer ${FAKE_DEMO_INSTAGRAM.accessToken}`);
    expect(meta.requestsTo(`/${FAKE_DEMO_INSTAGRAM.igUserId}/subscribed_apps`, 'POST')).toHaveLength(1);

    // 3. The signed DM: answered 200, recorded as the contact's message on the attached connection.
    expect(x.inbound.webhookStatus).toBe(200);
    expect(x.inbound.mid).toMatch(/^aWdf/);
    expect(x.inbound.message).toMatchObject({
      direction: 'inbound',
      type: 'message',
      channel: { type: 'instagram', connection_id: x.attached.connection_id },
      text: 'Oi! Vocês entregam em Campinas?',
      sender: { type: 'contact' },
    });

    // 4. The buttons went out through the Graph API as the button template, each reply button a postback.
    expect(x.buttons.graphBody).toEqual({
      recipient: { id: x.igsid },
      message: {
        attachment: {
          type: 'template',
          payload: {
            template_type: 'button',
            text: 'Entregamos sim! Quando prefere receber?',
            buttons: [
              { type: 'postback', title: 'De manhã', payload: 'manha' },
              { type: 'postback', title: 'À tarde', payload: 'tarde' },
            ],
          },
        },
      },
    });
    expect(x.buttons.message).toMatchObject({ direction: 'outbound', sender: { type: 'api' } });

    // 5. The tap (a postback with the button's payload): a contact message answering the buttons, source api.
    expect(x.tap.webhookStatus).toBe(200);
    expect(x.tap.message).toMatchObject({
      direction: 'inbound',
      text: 'À tarde',
      reply_to_message_id: x.buttons.message.id,
      button: { id: 'tarde', title: 'À tarde', source: 'api' },
    });

    // 6. The comment-keyword automation, published with its reply list.
    expect(x.automation.workflow).toMatchObject({
      status: 'published',
      channel: { type: 'instagram', connection_id: x.attached.connection_id },
      trigger: {
        events: ['comment'],
        match: 'contains',
        keywords: ['cupom'],
        replies_list_id: x.automation.repliesList.id,
      },
    });
    // The comment: comment.received for the same contact, the commented post named.
    expect(x.comment.webhookStatus).toBe(200);
    expect(x.comment.message).toMatchObject({
      type: 'comment',
      direction: 'inbound',
      text: 'Quero o cupom!',
      contact_id: x.inbound.message.contact_id,
      post: { type: 'feed' },
    });
    // The private reply: the automation's message to the comment (`recipient.comment_id`), once.
    expect(x.privateReply.graphBody).toEqual({
      recipient: { comment_id: x.comment.commentId },
      message: { text: 'Oi! Aqui está o seu cupom: FRETE10 (frete grátis até domingo).' },
    });
    expect(
      meta.instagramSent.filter((m) => 'comment_id' in m.recipient && m.recipient.comment_id === x.comment.commentId),
    ).toHaveLength(1);
    expect(x.privateReply.message).toMatchObject({
      type: 'comment_dm_reply',
      direction: 'outbound',
      reply_to_message_id: x.comment.message.id,
      text: 'Oi! Aqui está o seu cupom: FRETE10 (frete grátis até domingo).',
      sender: { type: 'workflow', workflow_id: x.automation.workflow.id },
      contact_id: x.inbound.message.contact_id,
    });
    // The public reply under the comment: the reply list's reply, posted once.
    expect(x.publicReply.graphBody).toEqual({ message: 'Te mandei no direct! 📩' });
    expect(meta.requestsTo(`/${x.comment.commentId}/replies`, 'POST')).toHaveLength(1);
    expect(x.publicReply.message).toMatchObject({
      type: 'comment_reply',
      direction: 'outbound',
      text: 'Te mandei no direct! 📩',
      reply_to_message_id: x.comment.message.id,
      sender: { type: 'workflow', workflow_id: x.automation.workflow.id },
    });
    // The comment brought the contact's username (a DM names none): the contact now goes by it.
    expect(x.contact).toMatchObject({ name: 'ana.souza', instagram: { id: x.igsid, username: 'ana.souza' } });

    // Every event the example waited for came signed with the endpoint's secret, first attempt; the receiver
    // refused nothing.
    const [secret] = receiver.requests[0]?.verifiedWith ?? [];
    expect(secret).toMatch(/^whsec_/);
    const events = [x.inbound, x.tap, x.comment, x.privateReply, x.publicReply].map((a) => a.event);
    expect(events.map((r) => r.type)).toEqual([
      'message.received',
      'message.received',
      'comment.received',
      'message.sent',
      'message.sent',
    ]);
    for (const r of events) {
      expect(r).toMatchObject({ status: 200, outcome: 'accepted', attempt: 1 });
      expect(verifies(r, secret ?? '')).toBe(true);
      expect(verifies(r, 'whsec_not-the-endpoints-secret')).toBe(false);
    }
    expect(receiver.requests.filter((r) => r.outcome === 'refused')).toEqual([]);
    expect(lines.some((l) => l.startsWith(`200 accepted comment.received ${x.comment.event.eventId}`))).toBe(true);
    expect(progress).toHaveLength(9);
    expect(progress[5]).toMatch(/^6\. published/);
  }, 45_000);

  it('runs again on the same account: the earlier endpoint and automation go, the reply list is reused', async () => {
    const demo = await ensureDemoAccount(t.database.db, t.clock, dataDir);
    const api = createClient({ baseUrl: t.baseUrl, apiKey: demo.apiKey });
    const before = await api.GET('/v1/replies-lists');
    const x = await instagram(api, createAdminClient(t.baseUrl, ADMIN_TOKEN), receiver.url, receiver, {
      fakeUrl: meta.url,
      webhookUrl: `${t.baseUrl}/channels/instagram/webhook`,
      account: FAKE_DEMO_INSTAGRAM,
      timeoutMs: 15_000,
    });
    expect(x.automation.repliesList.id).toBe(before.data?.data[0]?.id);
    const webhooks = (await api.GET('/v1/webhooks')).data?.data ?? [];
    expect(webhooks.map((w) => w.id)).toEqual([x.endpoint.id]);
    const workflows =
      (await api.GET('/v1/workflows', { params: { query: { connection_id: x.attached.connection_id } } })).data?.data ??
      [];
    expect(workflows.filter((w) => w.description === 'examples/instagram.ts').map((w) => w.id)).toEqual([
      x.automation.workflow.id,
    ]);
    expect(x.publicReply.message.text).toBe('Te mandei no direct! 📩');
  }, 45_000);
});
