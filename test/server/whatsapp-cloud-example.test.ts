// The README's WhatsApp Cloud round trip (examples/whatsapp-cloud.ts) against a real server and the fake Graph API
// (test/fakes/meta, as `npm run fake:meta` serves it), on every engine of the run: the demo account's whatsapp
// number attached through the admin API, a contact's text signed by the fake and taken by the server's webhook,
// reply buttons sent through the Graph API, the tap on the wamid the fake recorded, and a failed status that
// reaches the example's own webhook receiver as message.failed, signed. The server is set up as a client team
// sets it up for the fake: META_APP_SECRET, META_VERIFY_TOKEN, GRAPH_API_BASE_URL, and WEBHOOK_DEV_TARGETS so
// that a receiver on loopback is allowed; a job worker beside it as in `npm start`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, verifyWebhookSignature } from '../../client/index.js';
import { createAdminClient } from '../../examples/sandbox-exchange.js';
import { startReceiver, type ReceivedRequest, type WebhookReceiver } from '../../examples/webhook-receiver.js';
import { FAKE_DEMO_NUMBER, whatsappCloud } from '../../examples/whatsapp-cloud.js';
import { demoNumber } from '../../scripts/fake-meta.js';
import { ensureDemoAccount } from '../../server/console/demo.js';
import type { JobWorker } from '../../server/jobs/worker.js';
import { type FakeMeta } from '../fakes/meta/index.js';
import { engines, type TestApp } from './harness.js';
import { startFakeMetaApp } from './fake-meta-app.js';

const ADMIN_TOKEN = 'whatsapp-cloud-example-admin-token-0123456789';
const APP_SECRET = 'whatsapp-cloud-example-app-secret';

it("attaches `npm run fake:meta`'s demo number by default", () => {
  const { phoneNumberId, wabaId, accessToken } = demoNumber({});
  expect(FAKE_DEMO_NUMBER).toEqual({ phoneNumberId, wabaId, accessToken });
});

describe.each(engines)('the WhatsApp Cloud example on %s', (engine) => {
  let t: TestApp;
  let meta: FakeMeta;
  let worker: JobWorker;
  let receiver: WebhookReceiver;
  const lines: string[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'ep-whatsapp-cloud-example-'));

  beforeAll(async () => {
    ({ t, meta, worker } = await startFakeMetaApp(engine, {
      adminToken: ADMIN_TOKEN,
      appSecret: APP_SECRET,
      numbers: [demoNumber({})],
      env: {
        DATA_DIR: dataDir,
        SANDBOX_ENABLED: 'true',
        WEBHOOK_DEV_TARGETS: 'true',
        META_VERIFY_TOKEN: 'whatsapp-cloud-example-verify-token',
      },
    }));
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

  it('connects the number, takes a signed message, answers with buttons, sees the tap and the failure', async () => {
    const demo = await ensureDemoAccount(t.database.db, t.clock, dataDir);
    const api = createClient({ baseUrl: t.baseUrl, apiKey: demo.apiKey });
    const progress: string[] = [];
    const x = await whatsappCloud(api, createAdminClient(t.baseUrl, ADMIN_TOKEN), receiver.url, receiver, {
      fakeUrl: meta.url,
      webhookUrl: `${t.baseUrl}/channels/whatsapp/webhook`,
      number: FAKE_DEMO_NUMBER,
      timeoutMs: 15_000,
      log: (line) => progress.push(line),
    });

    // 1–2. The endpoint on the receiver; the number attached without its token in the answer, templates read.
    expect(x.endpoint).toMatchObject({ url: receiver.url, status: 'enabled' });
    expect(x.attached).toMatchObject({
      provider: 'whatsapp_cloud',
      phone_number_id: FAKE_DEMO_NUMBER.phoneNumberId,
      waba_id: FAKE_DEMO_NUMBER.wabaId,
      token_last4: FAKE_DEMO_NUMBER.accessToken.slice(-4),
      verified_name: 'Loja Demo',
      templates_synced: 3,
      connection: { status: 'connected', whatsapp: { phone: '+5511930001234' } },
    });
    expect(JSON.stringify(x.attached)).not.toContain(FAKE_DEMO_NUMBER.accessToken);
    expect(meta.requestsTo(FAKE_DEMO_NUMBER.phoneNumberId, 'GET')[0]?.headers.authorization).toBe(
      `Bearer ${FAKE_DEMO_NUMBER.accessToken}`,
    );

    // 3. The signed text: answered 200, recorded as the contact's message, named after the profile.
    expect(x.inbound.webhookStatus).toBe(200);
    expect(x.inbound.wamid).toMatch(/^wamid\./);
    expect(x.inbound.message).toMatchObject({
      direction: 'inbound',
      channel: { type: 'whatsapp', connection_id: x.attached.connection_id },
      text: 'Oi! Vocês têm o Runner no 38?',
      sender: { type: 'contact' },
    });
    const contact = await api.GET('/v1/contacts/{contactId}', {
      params: { path: { contactId: x.inbound.message.contact_id } },
    });
    expect(contact.data).toMatchObject({ name: 'Ana Souza', whatsapp: { phone: x.contactPhone } });

    // 4. The buttons went out through the Graph API as interactive.button, and the contact's message was marked
    //    read.
    expect(x.buttons.graphBody).toMatchObject({
      messaging_product: 'whatsapp',
      to: x.contactPhone.slice(1),
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: 'Temos sim! Qual tamanho?' },
        action: {
          buttons: [
            { type: 'reply', reply: { id: 'size_38', title: '38' } },
            { type: 'reply', reply: { id: 'size_39', title: '39' } },
          ],
        },
      },
    });
    expect(x.markedRead).toBe(true);

    // 5. The tap on the wamid: a contact message answering the buttons, with the button and the send's source.
    expect(x.tap.webhookStatus).toBe(200);
    expect(x.tap.message).toMatchObject({
      direction: 'inbound',
      text: '38',
      reply_to_message_id: x.buttons.message.id,
      button: { id: 'size_38', title: '38', source: 'api' },
    });

    // 6. The failed status: the message reads failed with Meta's code and message, and message.failed reached
    //    the receiver signed with the endpoint's secret, carrying the same failure.
    expect(x.failed.message).toMatchObject({
      status: 'failed',
      failure: { provider_code: '131026', provider_message: expect.any(String) },
    });
    const failedEvent = JSON.parse(x.failed.event.body) as { type: string; data: { id: string; failure: unknown } };
    expect(failedEvent).toMatchObject({ type: 'message.failed', data: { id: x.failed.message.id } });
    expect(failedEvent.data.failure).toEqual(x.failed.message.failure);

    // Every event the example waited for came signed, first attempt; the receiver refused nothing.
    const [secret] = receiver.requests[0]?.verifiedWith ?? [];
    expect(secret).toMatch(/^whsec_/);
    for (const r of [x.inbound.event, x.tap.event, x.failed.event]) {
      expect(r).toMatchObject({ status: 200, outcome: 'accepted', attempt: 1 });
      expect(verifies(r, secret ?? '')).toBe(true);
    }
    expect(receiver.requests.filter((r) => r.outcome === 'refused')).toEqual([]);
    expect(lines.some((l) => l.startsWith(`200 accepted message.failed ${x.failed.event.eventId}`))).toBe(true);
    expect(progress).toHaveLength(6);
    expect(progress[5]).toContain('failed');
  }, 30_000);
});
