// A real WhatsApp number end to end (issue 35), on every engine of the run, against the fake Graph API on loopback
// (test/fakes/meta): attaching the number through the admin API (the token checked, the templates read, the
// connection's events), Meta's webhook (the subscription check, the signature on the raw bytes, each inbound kind
// and status decoded after the 200, a payload delivered twice making one message), and the send route through the
// Graph API (the encoded body, the read receipt, Meta's error table row by row).
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchemaConnection, SchemaMessage, SchemaMessageList } from '../../generated/api.js';
import type { SchemaAdminWhatsAppCloudNumber } from '../../generated/admin-api.js';
import type { JobWorker } from '../../server/jobs/index.js';
import { webhooks, type FakeMeta, type FakeNumber } from '../fakes/meta/index.js';
import { startFakeMetaApp, type FakeMetaApp } from './fake-meta-app.js';
import { engines, type TestApp, type TestCaller } from './harness.js';
import { expectError, json as ok } from './http-helpers.js';

let keys = 0;
/** A send's Idempotency-Key (required on POST /v1/conversations/{id}/messages). */
const idempotent = () => ({ headers: { 'Idempotency-Key': `wa-cloud-${Date.now()}-${(keys += 1)}` } });

const TOKEN = 'admin-token-for-whatsapp-cloud-0123456789';
const APP_SECRET = 'meta-app-secret-for-tests';
const VERIFY_TOKEN = 'meta-verify-token-for-tests';

interface EventRow {
  type: string;
  resource_id: string;
  data: unknown;
}

/** A number of the fake: `+55 11 9xxxx-xxxx` as Meta displays it, and its E.164 form for the connection. */
function fakeNumber(): { number: FakeNumber; phone: string } {
  const local = `9${randomInt(1000_0000, 9999_9999)}`;
  const phone = `+5511${local}`;
  const number: FakeNumber = {
    phoneNumberId: `10${randomInt(1e12, 9e12)}`,
    wabaId: `10${randomInt(1e12, 9e12)}`,
    accessToken: `EAAG${randomInt(1e9, 9e9)}testtoken${randomInt(1e9, 9e9)}`,
    displayPhoneNumber: `+55 11 ${local.slice(0, 5)}-${local.slice(5)}`,
    verifiedName: 'Loja Aurora',
    templates: [
      {
        name: 'order_update',
        language: 'pt_BR',
        status: 'APPROVED',
        category: 'UTILITY',
        components: [{ type: 'BODY', text: 'Olá {{1}}, seu pedido {{2}} saiu.' }],
      },
      {
        name: 'welcome',
        language: 'pt_BR',
        status: 'APPROVED',
        category: 'MARKETING',
        components: [{ type: 'BODY', text: 'Bem-vindo!' }],
      },
      {
        name: 'spring_sale',
        language: 'pt_BR',
        status: 'PAUSED',
        category: 'MARKETING',
        components: [{ type: 'BODY', text: 'Promoção' }],
      },
    ],
  };
  return { number, phone };
}

describe.each(engines)('a WhatsApp Cloud number on %s', (engine) => {
  let t: TestApp;
  let meta: FakeMeta;
  let worker: JobWorker;
  let admin: FakeMetaApp['admin'];

  beforeAll(async () => {
    const options = { adminToken: TOKEN, appSecret: APP_SECRET, env: { META_VERIFY_TOKEN: VERIFY_TOKEN } };
    ({ t, meta, worker, admin } = await startFakeMetaApp(engine, options));
  });
  afterAll(async () => {
    await t?.close();
    await meta?.close();
  });

  /**
   * Runs the jobs until none is due, then once more a minute on: two first messages of one new contact applied at
   * once race to create it, and the loser's job runs again on its retry schedule.
   */
  const drain = async () => {
    for (let round = 0; round < 2; round++) {
      while ((await worker.runOnce()) > 0);
      t.clock.advance(60_000);
    }
  };
  const events = async (
    accountId: string,
    type:
      'connection.connected' | 'connection.disconnected' | 'message.received' | 'message.failed' | 'message.updated',
  ) =>
    (
      await t.database.db
        .selectFrom('events')
        .select(['type', 'resource_id', 'data'])
        .where('account_id', '=', accountId)
        .where('type', '=', type)
        .orderBy('created_at')
        .execute()
    ).map((row): EventRow => row);

  /** An account with a whatsapp connection whose number the fake serves, attached. */
  async function attached() {
    const me = await t.account();
    const { number, phone } = fakeNumber();
    meta.addNumber(number);
    const connection = await ok<SchemaConnection>(
      await admin('POST', `/accounts/${me.accountId}/connections`, { channel: 'whatsapp', name: 'Vendas', phone }),
      201,
    );
    const attachedNumber = await ok<SchemaAdminWhatsAppCloudNumber>(
      await admin('PUT', `/connections/${connection.id}/whatsapp-cloud`, {
        phone_number_id: number.phoneNumberId,
        waba_id: number.wabaId,
        access_token: number.accessToken,
      }),
    );
    return { me, number, phone, connection, attachedNumber };
  }

  /** A contact writes to the number (a signed text webhook), and the job applies it. */
  async function contactWrites(number: FakeNumber, from: string, text = 'Oi! Tem o Runner no 38?') {
    const id = webhooks.newWamid();
    const sent = await meta.sendWebhook(webhooks.text(number, { from, name: 'Ana Souza', text, id }));
    expect(sent.status).toBe(200);
    await drain();
    return id;
  }

  async function messagesOf(me: TestCaller, conversationId: string) {
    return ok<SchemaMessageList>(await me.call('GET', `/v1/conversations/${conversationId}/messages?limit=50`));
  }

  async function conversationOf(me: TestCaller) {
    const list = await ok<{ data: { id: string }[] }>(await me.call('GET', '/v1/conversations?limit=5'));
    const first = list.data[0];
    if (!first) throw new Error('no conversation');
    return first.id;
  }

  describe('attaching a number', () => {
    it('checks the token, reads every page of templates and answers without the token', async () => {
      const { me, number, connection, attachedNumber } = await attached();
      expect(attachedNumber).toMatchObject({
        connection_id: connection.id,
        provider: 'whatsapp_cloud',
        phone_number_id: number.phoneNumberId,
        waba_id: number.wabaId,
        token_last4: number.accessToken.slice(-4),
        verified_name: 'Loja Aurora',
        templates_synced: 3,
        connection: { status: 'connected' },
      });
      expect(JSON.stringify(attachedNumber)).not.toContain(number.accessToken);
      // The fake's pages hold two templates: both pages were read.
      expect(meta.requestsTo(`${number.wabaId}/message_templates`, 'GET').length).toBeGreaterThanOrEqual(2);
      const templates = await t.database.db
        .selectFrom('templates')
        .select(['name', 'status', 'variable_count'])
        .where('connection_id', '=', connection.id)
        .orderBy('name')
        .execute();
      expect(templates).toEqual([
        { name: 'order_update', status: 'approved', variable_count: 2 },
        { name: 'spring_sale', status: 'paused', variable_count: 0 },
        { name: 'welcome', status: 'approved', variable_count: 0 },
      ]);
      // Attaching a connected connection takes it through setup_incomplete (it sends nothing meanwhile), and a
      // number set up again (a new token) too: each time disconnected, then connected.
      const changesOf = async () => [
        ...(await events(me.accountId, 'connection.disconnected')),
        ...(await events(me.accountId, 'connection.connected')),
      ];
      expect((await changesOf()).map((e) => e.type).sort()).toEqual([
        'connection.connected',
        'connection.disconnected',
      ]);
      await ok(
        await admin('PUT', `/connections/${connection.id}/whatsapp-cloud`, {
          phone_number_id: number.phoneNumberId,
          waba_id: number.wabaId,
          access_token: number.accessToken,
        }),
      );
      const changes = await changesOf();
      expect(changes).toHaveLength(4);
      expect(changes.find((e) => e.type === 'connection.disconnected')?.data).toMatchObject({
        status: 'disconnected',
        disconnect_reason: 'setup_incomplete',
      });
      // The token is in no event, audit entry or stored column in the clear.
      const audit = await t.database.db
        .selectFrom('audit_log')
        .selectAll()
        .where('account_id', '=', me.accountId)
        .execute();
      const stored = await t.database.db.selectFrom('connection_providers').selectAll().execute();
      for (const text of [JSON.stringify(changes), JSON.stringify(audit), JSON.stringify(stored)])
        expect(text).not.toContain(number.accessToken);
      expect(await ok(await admin('GET', `/connections/${connection.id}/whatsapp-cloud`))).toMatchObject({
        phone_number_id: number.phoneNumberId,
      });
    });

    it('refuses a token Meta refuses, another number, and an instagram connection, changing nothing', async () => {
      const me = await t.account();
      const { number, phone } = fakeNumber();
      meta.addNumber(number);
      const connection = await ok<SchemaConnection>(
        await admin('POST', `/accounts/${me.accountId}/connections`, { channel: 'whatsapp', name: 'Vendas', phone }),
        201,
      );
      const setup = { phone_number_id: number.phoneNumberId, waba_id: number.wabaId, access_token: number.accessToken };
      await expectError(
        await admin('PUT', `/connections/${connection.id}/whatsapp-cloud`, {
          ...setup,
          access_token: 'EAAGwrongwrongwrong',
        }),
        422,
        { code: 'invalid_credentials', provider_message: expect.any(String) },
      );
      const other = fakeNumber();
      meta.addNumber(other.number);
      const mismatch = await expectError(
        await admin('PUT', `/connections/${connection.id}/whatsapp-cloud`, {
          phone_number_id: other.number.phoneNumberId,
          waba_id: other.number.wabaId,
          access_token: other.number.accessToken,
        }),
        422,
        { code: 'identity_mismatch', display_phone_number: other.number.displayPhoneNumber },
      );
      expect(mismatch.context.display_phone_number).toBe(other.number.displayPhoneNumber);
      const instagram = await ok<SchemaConnection>(
        await admin('POST', `/accounts/${me.accountId}/connections`, {
          channel: 'instagram',
          name: 'IG',
          username: `loja_${randomInt(1e6)}`,
        }),
        201,
      );
      await expectError(await admin('PUT', `/connections/${instagram.id}/whatsapp-cloud`, setup), 422, {
        code: 'not_whatsapp',
      });
      await expectError(await admin('GET', `/connections/${connection.id}/whatsapp-cloud`), 404, {
        code: 'not_whatsapp_cloud',
      });
      expect(await events(me.accountId, 'connection.disconnected')).toEqual([]);
      const row = await t.database.db
        .selectFrom('connections')
        .select(['status', 'provider'])
        .where('id', '=', connection.id)
        .executeTakeFirst();
      expect(row).toEqual({ status: 'connected', provider: 'sandbox' });
    });

    it('detaches: the sandbox serves the connection again, disconnected by the user', async () => {
      const { me, connection } = await attached();
      const detached = await ok<SchemaConnection>(
        await admin('DELETE', `/connections/${connection.id}/whatsapp-cloud`),
      );
      expect(detached).toMatchObject({ status: 'disconnected', disconnect_reason: 'disconnected_by_user' });
      // One while it was attached (setup_incomplete), one now.
      expect(await events(me.accountId, 'connection.disconnected')).toHaveLength(2);
      await expectError(await admin('DELETE', `/connections/${connection.id}/whatsapp-cloud`), 404, {
        code: 'not_whatsapp_cloud',
      });
    });
  });

  describe("Meta's webhook", () => {
    it('answers the subscription check with the challenge only for the verify token', async () => {
      const url = `${t.baseUrl}/channels/whatsapp/webhook`;
      const good = await fetch(`${url}?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`);
      expect(good.status).toBe(200);
      expect(good.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await good.text()).toBe('1158201444');
      const bad = await fetch(`${url}?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1158201444`);
      expect(bad.status).toBe(403);
    });

    it('refuses unsigned, wrongly signed, non-JSON and oversized payloads, keeping nothing', async () => {
      const jobsBefore = await t.database.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      const body = JSON.stringify({ object: 'whatsapp_business_account', entry: [] });
      expect((await meta.sendRawWebhook(body, { signature: null })).status).toBe(401);
      expect((await meta.sendRawWebhook(body, { signature: `sha256=${'0'.repeat(64)}` })).status).toBe(401);
      expect((await meta.sendRawWebhook(body, { secret: 'another-secret' })).status).toBe(401);
      // Signed over other bytes than sent: the body was changed on the way.
      expect((await meta.sendRawWebhook(body, { signature: meta.sign(`${body} `) })).status).toBe(401);
      expect((await meta.sendRawWebhook('{"object": "whatsapp_business_acc')).status).toBe(400);
      expect((await meta.sendRawWebhook(Buffer.alloc(1024 * 1024 + 10, 0x20))).status).toBe(413);
      const jobsAfter = await t.database.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(jobsAfter.n)).toBe(Number(jobsBefore.n));
    });

    it('records a text once though Meta delivers it twice, and names the new contact', async () => {
      const { me, number } = await attached();
      const from = `+5521${randomInt(9_1000_0000, 9_9999_9999)}`;
      const payload = webhooks.text(number, { from, name: 'Ana Souza', text: 'Oi!', id: webhooks.newWamid() });
      expect((await meta.sendWebhook(payload)).status).toBe(200);
      expect((await meta.sendWebhook(payload)).status).toBe(200);
      await drain();
      const conversationId = await conversationOf(me);
      const { data } = await messagesOf(me, conversationId);
      expect(data).toHaveLength(1);
      expect(data[0]).toMatchObject({ direction: 'inbound', text: 'Oi!', sender: { type: 'contact' } });
      expect(await events(me.accountId, 'message.received')).toHaveLength(1);
      const contacts = await ok<{ data: { name: string; whatsapp: { phone: string } | null }[] }>(
        await me.call('GET', '/v1/contacts?limit=5'),
      );
      expect(contacts.data[0]).toMatchObject({ name: 'Ana Souza', whatsapp: { phone: from } });
    });

    it('stores a media fetched from Meta, and a message whose media cannot be fetched with it marked missing', async () => {
      const { me, number } = await attached();
      const from = `+5521${randomInt(9_1000_0000, 9_9999_9999)}`;
      const bytes = Buffer.from('\x89PNG\r\n\x1a\nfake-image-bytes');
      const mediaId = meta.registerMedia({ bytes, mimeType: 'image/png', phoneNumberId: number.phoneNumberId });
      await meta.sendWebhook(
        webhooks.media(number, { from, kind: 'image', mediaId, mimeType: 'image/png', caption: 'Olha' }),
      );
      await meta.sendWebhook(
        webhooks.media(number, { from, kind: 'document', mediaId: '999999999999999', mimeType: 'application/pdf' }),
      );
      await drain();
      const { data } = await messagesOf(me, await conversationOf(me));
      // Both came in the same second (Meta's timestamps are in seconds): told apart by their attachment.
      const typeOf = (m: SchemaMessage) => m.attachments[0]?.type;
      const image = data.find((m) => typeOf(m) === 'image');
      const missing = data.find((m) => typeOf(m) === 'file');
      expect(image).toMatchObject({
        text: 'Olha',
        attachments: [{ type: 'image', content_type: 'image/png', size: bytes.length }],
      });
      expect(missing).toMatchObject({ attachments: [{ type: 'file' }] });
      const missingAttachment = missing?.attachments[0];
      if (!missingAttachment || missingAttachment.type === 'cards') throw new Error('no media attachment');
      t.clock.advance(5_000);
      const content = await me.call('GET', `/v1/media/${missingAttachment.media_id}/content`, { redirect: 'manual' });
      expect(content.status).toBe(410);
    });
  });

  describe('every other inbound kind, through the webhook route', () => {
    it('a list row, a template quick reply, video, audio, sticker, unsupported and unknown types; a reaction changes nothing', async () => {
      const { me, number } = await attached();
      const from = `+5521${randomInt(9_1000_0000, 9_9999_9999)}`;
      await contactWrites(number, from, 'Oi');
      const conversationId = await conversationOf(me);
      const ours = await ok<SchemaMessage>(
        await me.call('POST', `/v1/conversations/${conversationId}/messages`, {
          body: { text: 'Escolha' },
          ...idempotent(),
        }),
        201,
      );
      const wamid = meta.sent.find((m) => m.phoneNumberId === number.phoneNumberId)?.id ?? '';
      const media = (kind: 'video' | 'audio' | 'sticker', mimeType: string) =>
        webhooks.media(number, {
          from,
          kind,
          mimeType,
          mediaId: meta.registerMedia({
            bytes: Buffer.from(`${kind}-bytes`),
            mimeType,
            phoneNumberId: number.phoneNumberId,
          }),
        });
      const payloads = [
        webhooks.listReply(number, { from, rowId: 'row_2', title: 'Entrega', contextId: wamid }),
        webhooks.templateButton(number, { from, payload: 'STOP', text: 'Parar', contextId: wamid }),
        media('video', 'video/mp4'),
        media('audio', 'audio/ogg'),
        media('sticker', 'image/webp'),
        webhooks.unsupported(number, { from }),
        webhooks.unsupported(number, { from, type: 'hologram' }),
        webhooks.reaction(number, { from, messageId: wamid, emoji: '👍' }),
      ];
      for (const payload of payloads) expect((await meta.sendWebhook(payload)).status).toBe(200);
      await drain();
      const inbound = (await messagesOf(me, conversationId)).data.filter((m) => m.direction === 'inbound');
      // The first text, and one message for each payload but the reaction.
      expect(inbound).toHaveLength(1 + payloads.length - 1);
      expect(inbound.find((m) => m.button?.id === 'row_2')).toMatchObject({
        text: 'Entrega',
        reply_to_message_id: ours.id,
        button: { title: 'Entrega', source: 'api' },
      });
      expect(inbound.find((m) => m.button?.id === 'STOP')).toMatchObject({
        text: 'Parar',
        button: { source: 'other' },
      });
      const types = inbound.flatMap((m) => m.attachments.map((a) => a.type)).sort();
      expect(types).toEqual(['audio', 'sticker', 'video']);
      expect(inbound.filter((m) => m.is_unsupported)).toHaveLength(2);
      expect(await events(me.accountId, 'message.updated')).toEqual([]);
    });

    it("a template's new status from Meta: the number reads its templates again", async () => {
      const { connection, number } = await attached();
      const statusOf = async (name: string) =>
        (
          await t.database.db
            .selectFrom('templates')
            .select('status')
            .where('connection_id', '=', connection.id)
            .where('name', '=', name)
            .executeTakeFirst()
        )?.status;
      expect(await statusOf('welcome')).toBe('approved');
      // Meta pauses the template (its own list changes), then tells the webhook.
      const welcome = number.templates.find((template) => template.name === 'welcome');
      if (!welcome) throw new Error('no welcome template');
      welcome.status = 'PAUSED';
      const sent = await meta.sendWebhook(
        webhooks.templateStatus(number, { event: 'PAUSED', name: 'welcome', language: 'pt_BR' }),
      );
      expect(sent.status).toBe(200);
      await drain();
      expect(await statusOf('welcome')).toBe('paused');
    });

    it('a payload for a number no connection has: 200, and nothing recorded', async () => {
      const { number } = fakeNumber();
      const before = await t.database.db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      const payload = webhooks.text(number, { from: '+5521987654321', text: 'Oi' });
      expect((await meta.sendWebhook(payload)).status).toBe(200);
      await drain();
      const after = await t.database.db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));
    });
  });

  describe('sending through the Graph API', () => {
    it('sends the encoded text, keeps the wamid, tells Meta the contact message was read', async () => {
      const { me, number } = await attached();
      const from = `+5521${randomInt(9_1000_0000, 9_9999_9999)}`;
      const inboundId = await contactWrites(number, from);
      const conversationId = await conversationOf(me);
      const sent = await ok<SchemaMessage>(
        await me.call('POST', `/v1/conversations/${conversationId}/messages`, {
          body: { text: 'Temos sim!' },
          ...idempotent(),
        }),
        201,
      );
      const accepted = meta.sent.find((m) => m.phoneNumberId === number.phoneNumberId);
      expect(accepted?.body).toMatchObject({
        messaging_product: 'whatsapp',
        to: from.slice(1),
        type: 'text',
        text: { body: 'Temos sim!', preview_url: false },
      });
      const row = await t.database.db
        .selectFrom('messages')
        .select('provider_message_id')
        .where('id', '=', sent.id)
        .executeTakeFirst();
      expect(row?.provider_message_id).toBe(accepted?.id);
      await expect.poll(() => meta.reads.filter((r) => r.messageId === inboundId).length).toBe(1);
    });

    it('a retry with the same Idempotency-Key never sends twice: after a success, and after an unknown outcome', async () => {
      const { me, number } = await attached();
      const from = `+5521${randomInt(9_1000_0000, 9_9999_9999)}`;
      await contactWrites(number, from);
      const conversationId = await conversationOf(me);
      // The messages asked of Meta (a read receipt goes to the same path: not one of them).
      const sendsToMeta = () =>
        meta
          .requestsTo(`${number.phoneNumberId}/messages`, 'POST')
          .filter((r) => !(typeof r.body === 'object' && r.body !== null && 'status' in r.body)).length;
      const send = (key: string) =>
        me.call('POST', `/v1/conversations/${conversationId}/messages`, {
          body: { text: 'Chegou!' },
          headers: { 'Idempotency-Key': key },
        });
      const before = sendsToMeta();
      const first = await ok<SchemaMessage>(await send(`wa-retry-ok-${Date.now()}`), 201);
      const okKey = `wa-retry-ok-again-${Date.now()}`;
      const sent = await ok<SchemaMessage>(await send(okKey), 201);
      const again = await ok<SchemaMessage>(await send(okKey), 201);
      expect(again.id).toBe(sent.id);
      expect(sent.id).not.toBe(first.id);
      expect(sendsToMeta()).toBe(before + 2);
      // The connection is reset after Meta read the request: the outcome is unknown, and the same key answers the
      // same without asking Meta again.
      meta.script(from.slice(1), { kind: 'reset' });
      const unknownKey = `wa-retry-unknown-${Date.now()}`;
      await expectError(await send(unknownKey), 502, expect.objectContaining({ code: 'outcome_unknown' }));
      const afterUnknown = sendsToMeta();
      await expectError(await send(unknownKey), 502, expect.objectContaining({ code: 'outcome_unknown' }));
      expect(sendsToMeta()).toBe(afterUnknown);
    });

    it("sees a tap on its reply buttons with the send's source, and a failed status as message.failed once", async () => {
      const { me, number } = await attached();
      const from = `+5521${randomInt(9_1000_0000, 9_9999_9999)}`;
      await contactWrites(number, from);
      const conversationId = await conversationOf(me);
      const sent = await ok<SchemaMessage>(
        await me.call('POST', `/v1/conversations/${conversationId}/messages`, {
          body: { text: 'Qual tamanho?', buttons: [{ type: 'reply', id: 'size_38', title: '38' }] },
          ...idempotent(),
        }),
        201,
      );
      const wamid = meta.sent.find((m) => m.phoneNumberId === number.phoneNumberId && m.type === 'interactive')?.id;
      if (!wamid) throw new Error('the buttons were not sent');
      await meta.sendWebhook(
        webhooks.buttonReply(number, { from, buttonId: 'size_38', title: '38', contextId: wamid }),
      );
      await drain();
      const { data } = await messagesOf(me, conversationId);
      expect(data.find((m) => m.button !== null)).toMatchObject({
        text: '38',
        reply_to_message_id: sent.id,
        button: { id: 'size_38', title: '38', source: 'api' },
      });

      const failed = webhooks.status(number, {
        messageId: wamid,
        recipient: from,
        status: 'failed',
        error: { code: 131026, details: 'Message undeliverable.' },
      });
      await meta.sendWebhook(webhooks.status(number, { messageId: wamid, recipient: from, status: 'delivered' }));
      await meta.sendWebhook(failed);
      await meta.sendWebhook(failed);
      await drain();
      const after = await ok<SchemaMessage>(await me.call('GET', `/v1/messages/${sent.id}`));
      expect(after).toMatchObject({
        status: 'failed',
        failure: { provider_code: '131026', provider_message: 'Message undeliverable.' },
      });
      expect((await events(me.accountId, 'message.failed')).filter((e) => e.resource_id === sent.id)).toHaveLength(1);
    });

    it("answers Meta's errors with the seeds' outcomes, row by row", async () => {
      const { me, number, connection } = await attached();
      const from = `+5521${randomInt(9_1000_0000, 9_9999_9999)}`;
      await contactWrites(number, from);
      const conversationId = await conversationOf(me);
      const send = (text: string) =>
        me.call('POST', `/v1/conversations/${conversationId}/messages`, { body: { text }, ...idempotent() });
      const recipient = from.slice(1);
      const rows: [Parameters<FakeMeta['script']>[1], number, Record<string, unknown>][] = [
        [
          { kind: 'error', code: 131047 },
          422,
          { code: 'template_required', channel: 'whatsapp', last_inbound_at: expect.any(String) },
        ],
        [{ kind: 'error', code: 131026 }, 422, { code: 'recipient_unavailable' }],
        [{ kind: 'error', code: 130429 }, 429, { code: 'provider_throttled' }],
        [
          { kind: 'error', code: 131049, message: 'Meta chose not to deliver.' },
          422,
          { code: 'provider_rejected', provider_message: 'Meta chose not to deliver.' },
        ],
        [
          { kind: 'http', status: 500, body: '<html>oops</html>', contentType: 'text/html' },
          502,
          { code: 'outcome_unknown', provider_accepted: false },
        ],
        [{ kind: 'no_message_id' }, 502, { code: 'outcome_unknown', provider_accepted: false }],
        [{ kind: 'reset' }, 502, { code: 'outcome_unknown', provider_accepted: false }],
        [{ kind: 'error', code: 131056 }, 429, { code: 'provider_throttled' }],
        [{ kind: 'error', code: 80007 }, 429, { code: 'provider_throttled' }],
        [{ kind: 'error', code: 4 }, 429, { code: 'provider_throttled' }],
        [{ kind: 'error', code: 131050 }, 422, { code: 'provider_rejected' }],
        // Our encoder's defect (logged at error level): refused, the connection untouched.
        [{ kind: 'error', code: 100 }, 422, { code: 'provider_rejected' }],
        [{ kind: 'error', code: 131009 }, 422, { code: 'provider_rejected' }],
      ];
      for (const [answer, status, context] of rows) {
        meta.script(recipient, answer);
        await expectError(await send('Oi'), status, expect.objectContaining(context));
      }
      const messages = await messagesOf(me, conversationId);
      expect(messages.data.filter((m) => m.direction === 'outbound')).toEqual([]);
      expect(
        (
          await t.database.db
            .selectFrom('connections')
            .select('status')
            .where('id', '=', connection.id)
            .executeTakeFirst()
        )?.status,
      ).toBe('connected');

      // A template Meta answers for (the number's own templates): its code, and 132001 reads the templates again.
      const template = (name: string, values: string[]) =>
        me.call('POST', `/v1/conversations/${conversationId}/messages`, {
          body: { template: { name, language: 'pt_BR', body_variables: values } },
          ...idempotent(),
        });
      meta.script(recipient, { kind: 'error', code: 132000 });
      await expectError(
        await template('order_update', ['Ana', '123']),
        422,
        expect.objectContaining({ code: 'template_variables_mismatch' }),
      );
      meta.script(recipient, { kind: 'error', code: 132015 });
      await expectError(await template('welcome', []), 422, expect.objectContaining({ code: 'template_not_approved' }));
      const syncsBefore = meta.requestsTo(`${number.wabaId}/message_templates`, 'GET').length;
      meta.script(recipient, { kind: 'error', code: 132001 });
      await expectError(await template('welcome', []), 422, expect.objectContaining({ code: 'template_not_found' }));
      await drain();
      expect(meta.requestsTo(`${number.wabaId}/message_templates`, 'GET').length).toBeGreaterThan(syncsBefore);
      // An approved template with its values goes out as Meta's template form.
      expect((await template('order_update', ['Ana', '123'])).status).toBe(201);
      expect(meta.sent.at(-1)?.body).toMatchObject({
        type: 'template',
        template: {
          name: 'order_update',
          language: { code: 'pt_BR' },
          components: [
            {
              type: 'body',
              parameters: [
                { type: 'text', text: 'Ana' },
                { type: 'text', text: '123' },
              ],
            },
          ],
        },
      });

      // The token gone: the connection disconnected (authorization_lost), once, and the send says so.
      meta.script(recipient, { kind: 'error', code: 190 });
      await expectError(await send('Oi'), 422, {
        code: 'channel_disconnected',
        channel: 'whatsapp',
        reason: 'authorization_lost',
      });
      const lost = (await events(me.accountId, 'connection.disconnected')).filter((e) =>
        JSON.stringify(e.data).includes('"disconnect_reason":"authorization_lost"'),
      );
      expect(lost.map((e) => e.resource_id)).toEqual([connection.id]);
      await expectError(await send('Oi'), 422, {
        code: 'channel_disconnected',
        channel: 'whatsapp',
        reason: 'authorization_lost',
      });
    });
  });
});
