// The console on a connection a real channel serves (issue 35 §5), in a real browser (Debian's Chromium through
// playwright-core, every request that leaves the test server refused and recorded), on every engine of the run:
// the demo account's whatsapp number attached to the fake Graph API (test/fakes/meta, as `npm run fake:meta`
// serves it), a contact's message taken by Meta's webhook and the account's answer sent through the Graph API.
// The page shows the connection's provider, the conversation and its messages, live as Meta's webhooks bring them
// (a new message, a failed status), and offers none of the sandbox's act-as-the-contact or act-as-the-channel
// controls for it; the account's instagram connection, on the sandbox, still offers them.
//
// Skipped, saying so, only when /usr/bin/chromium is missing (`apt-get install -y chromium`; .ci/run does it).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PREFIX } from '../../generated/operations.js';
import type { SchemaConnection, SchemaMessage } from '../../generated/api.js';
import { demoNumber } from '../../scripts/fake-meta.js';
import { ensureDemoAccount, type Demo } from '../../server/console/demo.js';
import type { JobWorker } from '../../server/jobs/worker.js';
import { webhooks, type FakeMeta } from '../fakes/meta/index.js';
import { hasChromium, POLL, skippedWithoutChromium } from './console-browser.js';
import { openWhereToPlay } from './console-flow.js';
import { launchChromium, openConsoleTab } from './console-tab.js';
import { call, engines, type TestApp } from './harness.js';
import { startFakeMetaApp } from './fake-meta-app.js';
import { json as ok } from './http-helpers.js';

const ADMIN_TOKEN = 'console-real-channel-admin-token-0123456789';
const APP_SECRET = 'console-real-channel-app-secret';
const CONTACT = '+5511987654321';
skippedWithoutChromium('console real channel test');

describe.skipIf(!hasChromium).each(engines)('the console on a WhatsApp Cloud connection on %s', (engine) => {
  let t: TestApp;
  let meta: FakeMeta;
  let worker: JobWorker;
  let browser: Browser;
  let demo: Demo;
  const dataDir = mkdtempSync(join(tmpdir(), 'ep-console-real-channel-'));
  const number = demoNumber({});

  beforeAll(async () => {
    ({ t, meta, worker } = await startFakeMetaApp(engine, {
      adminToken: ADMIN_TOKEN,
      appSecret: APP_SECRET,
      numbers: [number],
      env: { DATA_DIR: dataDir, SANDBOX_ENABLED: 'true', META_VERIFY_TOKEN: 'console-real-channel-verify-token' },
    }));
    worker.start();
    demo = await ensureDemoAccount(t.database.db, t.clock, dataDir);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await t?.close();
    await meta?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Meta's time of a message (Unix seconds), on the test's clock as the server's own messages are. */
  const now = () => Math.floor(t.clock.now().getTime() / 1000);

  const api = (method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) =>
    call(t.baseUrl, demo.apiKey, method, path, init);

  /** The contact's messages once the webhook's job applied them (newest first), `count` of them at least. */
  async function messagesOnce(count: number): Promise<{ conversationId: string; messages: SchemaMessage[] }> {
    for (let i = 0; i < 400; i++) {
      const list = await ok<{ data: { id: string }[] }>(await api('GET', '/v1/conversations?limit=1'));
      const conversationId = list.data[0]?.id;
      if (conversationId) {
        const page = await ok<{ data: SchemaMessage[] }>(
          await api('GET', `/v1/conversations/${conversationId}/messages`),
        );
        if (page.data.length >= count) return { conversationId, messages: page.data };
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`the webhook's ${count} messages never arrived`);
  }

  it('shows the provider, the conversation and its messages live, and no act-as-the-contact controls', async () => {
    const outside: string[] = [];
    const errors: string[] = [];
    const target = { baseUrl: t.baseUrl, adminToken: ADMIN_TOKEN, accountId: demo.accountId, outside, errors };
    const page = await openConsoleTab(browser, target);
    const provider = () => page.getByLabel('Provider').innerText();

    // Before a number is attached the sandbox serves the whatsapp connection.
    await page.getByLabel('Connection').selectOption({ label: 'Loja (whatsapp)' });
    await expect.poll(provider, POLL).toContain('Provider: sandbox');

    // The demo number attached while the page is open, as README "Playing a provider round trip without Meta"
    // does: the connection says who carries its messages, beside its name and below the choice.
    const connections = await ok<{ data: SchemaConnection[] }>(await api('GET', '/v1/connections'));
    const whatsapp = connections.data.find((c) => c.channel === 'whatsapp');
    if (!whatsapp) throw new Error('the demo account has a whatsapp connection');
    const setup = { phone_number_id: number.phoneNumberId, waba_id: number.wabaId, access_token: number.accessToken };
    const path = `${ADMIN_PREFIX}/connections/${whatsapp.id}/whatsapp-cloud`;
    await ok(await call(t.baseUrl, ADMIN_TOKEN, 'PUT', path, { body: setup }));
    await expect.poll(provider, POLL).toContain('Provider: WhatsApp Cloud API');
    const chosen = page.locator('#connection option:checked');
    // (Attaching passes through `setup_incomplete`: disconnected, then connected again.)
    await expect.poll(() => chosen.innerText(), POLL).toBe('Loja (whatsapp) · WhatsApp Cloud API');

    // A contact writes through Meta (listed at once: someone new), and the account answers with a reply button
    // through the Graph API.
    const first = webhooks.text(number, { from: CONTACT, name: 'Ana Souza', text: 'Oi!', timestamp: now() });
    expect((await meta.sendWebhook(first)).status).toBe(200);
    const { conversationId } = await messagesOnce(1);
    const answer = await ok<SchemaMessage>(
      await api('POST', `/v1/conversations/${conversationId}/messages`, {
        body: { text: 'Qual tamanho?', buttons: [{ type: 'reply', id: 'size_38', title: '38' }] },
        headers: { 'Idempotency-Key': `console-real-channel-${engine}` },
      }),
      201,
    );
    const wamid = meta.sent.at(-1)?.id ?? '';
    expect(wamid).toMatch(/^wamid\./);

    // Its contact and conversation, as any other: the contact's text, the answer with its button.
    await page.locator('#contact option', { hasText: CONTACT }).waitFor({ state: 'attached' });
    const contactValue = await page.locator('#contact option', { hasText: CONTACT }).getAttribute('value');
    await page.locator('#contact').selectOption(contactValue ?? '');
    await page.getByText('as Ana Souza · whatsapp · WhatsApp Cloud API').waitFor();
    const bubbles = page.getByRole('list', { name: 'Conversation' }).locator('li.bubble');
    await expect.poll(() => bubbles.allInnerTexts(), POLL).toHaveLength(2);
    const texts = await bubbles.locator('p.text, p.card-title').allInnerTexts();
    expect(texts).toEqual(['Oi!', 'Qual tamanho?']);

    // Nothing plays the contact or the channel: no composer, the button is the contact's to tap on the phone, and
    // the failures pane arranges no outcome and fails no message.
    expect(await page.locator('#composer-text').count()).toBe(0);
    expect(await page.getByRole('note', { name: 'Not played here' }).innerText()).toContain('WhatsApp Cloud API');
    const button = page.locator(`li[data-message-id="${answer.id}"] button.card-button`);
    expect(await button.innerText()).toBe('38');
    expect(await button.isDisabled()).toBe(true);
    expect(await page.getByRole('form', { name: "Next send's outcome" }).count()).toBe(0);
    expect(await page.getByRole('form', { name: 'Message fails later' }).count()).toBe(0);
    expect(await page.getByLabel('Channel failures').innerText()).toContain('arranges no outcome');

    // Live, as Meta's webhooks bring them: the contact's next message, then whatsapp failing the answer.
    t.clock.advance(2000);
    const next = webhooks.text(number, { from: CONTACT, name: 'Ana Souza', text: 'Tem no 39?', timestamp: now() });
    expect((await meta.sendWebhook(next)).status).toBe(200);
    await expect.poll(() => bubbles.locator('p.text').allInnerTexts(), POLL).toEqual(['Oi!', 'Tem no 39?']);
    const failed = webhooks.status(number, { messageId: wamid, recipient: CONTACT, status: 'failed' });
    expect((await meta.sendWebhook(failed)).status).toBe(200);
    const answerBubble = page.locator(`li[data-message-id="${answer.id}"]`);
    await expect.poll(() => answerBubble.getAttribute('class'), POLL).toContain('failed');
    expect(await answerBubble.locator('.meta').innerText()).toContain('failed');

    // The instagram connection stays the sandbox's: the page plays its contacts.
    await openWhereToPlay(page);
    await page.getByLabel('Connection').selectOption({ label: 'Loja (instagram)' });
    await expect.poll(() => page.getByLabel('Provider').innerText(), POLL).toContain('Provider: sandbox');

    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
    await page.context().close();
  });
});
