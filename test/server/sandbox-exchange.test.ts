// The README's sandbox walkthrough (examples/sandbox-exchange.ts) against a real server: a client team plays a
// whole exchange with the sandbox alone, and every step reads back as Part A describes. On PGlite alone
// (walkthroughEngines): the example is published text; the sandbox's rules run on both engines in sandbox.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../client/index.js';
import { ensureDemoAccount } from '../../server/console/demo.js';
import { createAdminClient, sandboxExchange } from '../../examples/sandbox-exchange.js';
import { walkthroughEngines, startTestApp, type TestApp } from './harness.js';
import { firstCards, firstMedia } from './http-helpers.js';

const ADMIN_TOKEN = 'sandbox-exchange-admin-token-0123456789';

describe.each(walkthroughEngines)('the sandbox exchange on %s', (engine) => {
  let t: TestApp;
  const dataDir = mkdtempSync(join(tmpdir(), 'ep-exchange-'));
  beforeAll(async () => {
    t = await startTestApp(engine, { env: { ADMIN_TOKEN, SANDBOX_ENABLED: 'true', DATA_DIR: dataDir } });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('plays a whole exchange on the demo account and reads every step back', async () => {
    const demo = await ensureDemoAccount(t.database.db, t.clock, dataDir);
    const api = createClient({ baseUrl: t.baseUrl, apiKey: demo.apiKey });
    const x = await sandboxExchange(api, createAdminClient(t.baseUrl, ADMIN_TOKEN));

    expect(x.conversation.reply_window.state).toBe('open');
    const [text, buttons, image, cards, template, doomed] = x.sent;
    for (const m of x.sent) {
      expect(m.sender.type).toBe('api');
      expect(m.direction).toBe('outbound');
      expect(m.conversation_id).toBe(x.conversation.id);
    }
    expect(text!.text).toBe('Oi, Bia! Temos sim.');
    // Text with buttons reads back as one card titled with the text; reply buttons are postbacks with their id.
    expect(buttons!.text).toBeNull();
    expect(buttons!.attachments).toHaveLength(1);
    const card = firstCards(buttons!);
    expect(card.type).toBe('cards');
    expect(card.cards[0]!.title).toBe('Qual cor você prefere?');
    expect(card.cards[0]!.buttons).toEqual([
      expect.objectContaining({ type: 'postback', id: 'color_blue', title: 'Azul' }),
      expect.objectContaining({ type: 'postback', id: 'color_black', title: 'Preto' }),
    ]);
    expect(image!.text).toBe('Runner, azul');
    expect(image!.attachments[0]).toMatchObject({ type: 'image', content_type: 'image/png' });
    expect(firstMedia(image!).url).toMatch(/\/v1\/media\/[0-9a-f-]{36}\/content$/);
    expect(firstCards(cards!).cards).toHaveLength(2);
    // A template reads back with its body filled in.
    expect(template!.template).toEqual({ name: 'order_update', language: 'pt_BR' });
    expect(template!.text).toBe('Olá Bia, seu pedido 4821 saiu para entrega.');

    // The tap: a contact message with the title as text, the button and the message it answers.
    const tap = x.received[1]!;
    expect(tap).toMatchObject({
      direction: 'inbound',
      text: 'Azul',
      reply_to_message_id: buttons!.id,
      button: { id: 'color_blue', title: 'Azul', source: 'api' },
    });

    // The throttled send was retried with the same key and went out once; whatsapp then failed it.
    expect(doomed!.status).toBe('sent');
    expect(x.failed.status).toBe('failed');
    expect(x.failed.failure).toMatchObject({ provider_code: '131026', provider_message: 'Message undeliverable' });
    expect(x.history.filter((m) => m.text === 'Pedido 4821 confirmado.')).toHaveLength(1);

    // The whole conversation, oldest first: the contact's message, six sends and the tap, nothing else.
    expect(x.history.map((m) => m.id).sort()).toEqual([x.received[0]!.id, ...x.sent.map((m) => m.id), tap.id].sort());
    // Oldest first (the test clock stands still, so ties fall back to the id order).
    const keys = x.history.map((m) => `${m.created_at} ${m.id}`);
    expect(keys).toEqual([...keys].sort());
    // The sends marked what the contact wrote before them as read.
    expect(x.history.find((m) => m.id === x.received[0]!.id)!.read_at).not.toBeNull();
  });
});
