// POST /v1/conversations/{conversationId}/messages end to end over HTTP, on every engine of the run (Part A:
// the send, its body forms, Buttons, Template, the media table, the Messaging window, Side effects, the
// Idempotency rules and the errors of "Conversations and messages"). The channel is the sandbox: a test acts
// as the contact (inbound message), arranges the channel's next answer per connection, blocks a contact,
// disconnects a connection (admin API), moves the clock and runs the jobs (the whatsapp fail-later report).
// The channel rules themselves are unit-tested in test/send-rules.test.ts; here a few round trips prove the
// route wires them.
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PREFIX } from '../../generated/operations.js';
import type { Scope, ValidityDays } from '../../server/domain/accounts/keys.js';
import { FAIL_LATER_DELAY_MS } from '../../server/domain/messaging/send.js';
import { createJobRegistry } from '../../server/jobs/handlers.js';
import { JobWorker } from '../../server/jobs/index.js';
import { call, engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import { expectError, firstCards, firstMedia, json as ok, type ErrorBody } from './http-helpers.js';
import type { NewEvent } from '../../server/store/events.js';
import type {
  SchemaChannelType,
  SchemaConnection,
  SchemaContact,
  SchemaConversation,
  SchemaConversationList,
  SchemaMe,
  SchemaMedia,
  SchemaMessage,
  SchemaMessageList,
} from '../../generated/api.js';
import type {
  SchemaAdminTemplate,
  SchemaSandboxInboundRequest,
  SchemaSandboxInboundResult,
} from '../../generated/admin-api.js';
import { EXE, GIF, JPEG, MP3, MP4, PDF, PNG } from '../fixtures/media-bytes.js';

const TOKEN = 'admin-token-for-send-tests-0123456789';
const DAY = 24 * 3_600_000;
const MB = 1024 * 1024;
const SIGNATURE = 'Enviado com Engagement Platform';

interface EventRow {
  type: string;
  resource_type: string;
  resource_id: string;
  data: Record<string, unknown>;
  created_at: string;
}

/** What a contact writing to the sandbox is: an instagram user or a whatsapp user. */
type From = SchemaSandboxInboundRequest['from'];

/** A conversation a contact opened by writing, with the account's key and the connection. */
interface Thread {
  me: TestCaller;
  channel: SchemaChannelType;
  connectionId: string;
  conversationId: string;
  contactId: string;
  from: From;
  /** The contact's first message. */
  inbound: SchemaMessage;
}

/** A moment as the database gives it back: ISO 8601 with microseconds. */
const stamp = (d: Date) => d.toISOString().replace('Z', '000Z');
const hex = (bytes = 4) => randomBytes(bytes).toString('hex');
const mobile = () => `+55119${randomInt(10_000_000, 99_999_999)}`;
const parsed = (v: unknown) => (typeof v === 'string' ? (JSON.parse(v) as unknown) : v);

describe.each(engines)('sending a message on %s', (engine) => {
  let t: TestApp;
  let dataDir: string;
  let worker: JobWorker;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'ep-send-'));
    t = await startTestApp(engine, { env: { ADMIN_TOKEN: TOKEN, DATA_DIR: dataDir, SANDBOX_ENABLED: 'true' } });
    worker = new JobWorker({
      db: t.database.db,
      clock: t.clock,
      registry: createJobRegistry({ config: t.config, baseUrl: t.baseUrl, ...t.services }),
      pollIntervalMs: 5,
    });
  });
  afterAll(async () => {
    await t?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const admin = (method: string, path: string, body?: unknown) =>
    call(t.baseUrl, TOKEN, method, `${ADMIN_PREFIX}${path}`, body === undefined ? {} : { body });

  async function connect(me: TestCaller, channel: SchemaChannelType): Promise<string> {
    const body =
      channel === 'whatsapp'
        ? { channel, name: 'Loja Aurora Vendas', phone: `+55113${randomInt(1_000_000, 9_999_999)}` }
        : { channel, name: 'Loja Aurora', username: `loja_${hex()}` };
    const connection = await ok<SchemaConnection>(
      await admin('POST', `/accounts/${me.accountId}/connections`, body),
      201,
    );
    return connection.id;
  }

  /** The contact writes to the connection (sandbox inbound): the conversation and its reply window open. */
  async function writes(connectionId: string, from: From, text = 'Oi! Vocês têm o Runner no 38?') {
    return ok<SchemaSandboxInboundResult>(
      await admin('POST', `/sandbox/connections/${connectionId}/inbound`, { from, text }),
      201,
    );
  }

  async function thread(
    channel: SchemaChannelType,
    options: { scopes?: readonly Scope[]; validityDays?: ValidityDays } = {},
  ): Promise<Thread> {
    const me = await t.account(options);
    const connectionId = await connect(me, channel);
    const from: From =
      channel === 'instagram'
        ? { instagram_id: hex(8), username: `cliente_${hex()}`, name: 'Ana Souza' }
        : { phone: mobile(), name: 'Ana Souza' };
    const first = await writes(connectionId, from);
    return {
      me,
      channel,
      connectionId,
      conversationId: first.conversation.id,
      contactId: first.contact.id,
      from,
      inbound: first.message,
    };
  }

  const send = (th: Pick<Thread, 'me' | 'conversationId'>, body: unknown, key: string | null = randomUUID()) =>
    th.me.call('POST', `/v1/conversations/${th.conversationId}/messages`, {
      body,
      ...(key === null ? {} : { headers: { 'Idempotency-Key': key } }),
    });

  const sent = async (th: Pick<Thread, 'me' | 'conversationId'>, body: unknown, key?: string) =>
    ok<SchemaMessage>(await send(th, body, key), 201);

  /** Arranges the sandbox channel's answer to the next send on the connection. */
  async function arrange(connectionId: string, outcome: Record<string, unknown>): Promise<void> {
    await ok(await admin('POST', `/sandbox/connections/${connectionId}/send-outcomes`, outcome), 201);
  }

  async function addTemplate(th: Thread, extra: Record<string, unknown> = {}): Promise<{ id: string }> {
    return ok<SchemaAdminTemplate>(
      await admin('POST', `/accounts/${th.me.accountId}/templates`, {
        connection_id: th.connectionId,
        name: 'order_shipped',
        language: 'pt_BR',
        body: 'Olá {{1}}! Seu pedido #{{2}} foi enviado.',
        ...extra,
      }),
      201,
    );
  }
  const TEMPLATE = { template: { name: 'order_shipped', language: 'pt_BR', body_variables: ['Ana', '4821'] } };

  /** POST /v1/media: a media waiting for its bytes. */
  const createMedia = async (me: TestCaller, contentType: string, filename?: string) =>
    ok<SchemaMedia>(
      await me.call('POST', '/v1/media', { body: { content_type: contentType, ...(filename ? { filename } : {}) } }),
      201,
    );
  async function putBytes(uploadUrl: string, bytes: Buffer, contentType: string): Promise<void> {
    const put = await fetch(uploadUrl, { method: 'PUT', body: bytes, headers: { 'Content-Type': contentType } });
    expect(put.status).toBe(204);
  }
  /** An uploaded media of the account: POST /v1/media, then the bytes PUT to its upload_url. */
  async function upload(me: TestCaller, contentType: string, bytes: Buffer, filename?: string): Promise<string> {
    const media = await createMedia(me, contentType, filename);
    await putBytes(media.upload_url, bytes, contentType);
    return media.id;
  }

  const getMessage = async (me: TestCaller, id: string) =>
    ok<SchemaMessage>(await me.call('GET', `/v1/messages/${id}`));
  const getConversation = async (th: Thread) =>
    ok<SchemaConversation>(await th.me.call('GET', `/v1/conversations/${th.conversationId}`));

  const messagesOf = (accountId: string) =>
    t.database.db
      .selectFrom('messages')
      .select(['id', 'direction', 'status'])
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  const outbound = async (accountId: string) => (await messagesOf(accountId)).filter((m) => m.direction === 'outbound');

  async function eventsOf(accountId: string, type?: NewEvent['type']): Promise<EventRow[]> {
    let q = t.database.db
      .selectFrom('events')
      .select(['type', 'resource_type', 'resource_id', 'data', 'created_at'])
      .where('account_id', '=', accountId);
    if (type) q = q.where('type', '=', type);
    const rows = await q.orderBy('sequence').execute();
    return rows.map((r) => ({ ...r, data: parsed(r.data) as Record<string, unknown> }));
  }

  /** What a send may write: the account's messages and events, and the conversation. */
  async function written(th: Thread) {
    return {
      messages: await messagesOf(th.me.accountId),
      events: (await eventsOf(th.me.accountId)).length,
      conversation: await getConversation(th),
    };
  }

  describe('the Idempotency-Key', () => {
    it('is required: 400 without it, and nothing is sent', async () => {
      const th = await thread('instagram');
      const res = await send(th, { text: 'Olá!' }, null);
      const body = (await res.json()) as ErrorBody;
      expect(res.status).toBe(400);
      expect(body.type).toBe('error');
      expect(body.context.code).toBeUndefined();
      expect(JSON.stringify(body.context.details)).toMatch(/idempotency-key/i);
      expect(await outbound(th.me.accountId)).toEqual([]);
    });

    it('same key and same body: the first answer again, one message and one message.sent', async () => {
      const th = await thread('whatsapp');
      const key = randomUUID();
      const body = { text: 'Seu pedido saiu para entrega.' };
      const first = await sent(th, body, key);
      t.clock.advance(1000);
      const again = await send(th, body, key);
      expect(again.status).toBe(201);
      expect(await again.json()).toEqual(first);
      expect(await outbound(th.me.accountId)).toEqual([{ id: first.id, direction: 'outbound', status: 'sent' }]);
      expect((await eventsOf(th.me.accountId, 'message.sent')).map((e) => e.resource_id)).toEqual([first.id]);

      // Another key sends again.
      const second = await sent(th, body);
      expect(second.id).not.toBe(first.id);
      expect(await outbound(th.me.accountId)).toHaveLength(2);
    });

    it('same key and another body: 422 idempotency_key_reused, nothing sent', async () => {
      const th = await thread('instagram');
      const key = randomUUID();
      await sent(th, { text: 'Primeira' }, key);
      await expectError(await send(th, { text: 'Segunda' }, key), 422, { code: 'idempotency_key_reused' });
      await expectError(
        await th.me.call('POST', `/v1/conversations/${randomUUID()}/messages`, {
          body: { text: 'Primeira' },
          headers: { 'Idempotency-Key': key },
        }),
        422,
        { code: 'idempotency_key_reused' },
      );
      expect(await outbound(th.me.accountId)).toHaveLength(1);
    });

    it('every refusal of a channel answer releases the key: the repeat runs again and is sent', async () => {
      const cases: [SchemaChannelType, Record<string, unknown>, number][] = [
        ['instagram', { outcome: 'provider_rejected' }, 422],
        ['whatsapp', { outcome: 'provider_throttled' }, 429],
        ['instagram', { outcome: 'provider_unavailable' }, 503],
        ['whatsapp', { outcome: 'recipient_unavailable' }, 422],
        ['instagram', { outcome: 'conversation_not_owned' }, 422],
      ];
      for (const [channel, outcome, status] of cases) {
        const th = await thread(channel);
        await arrange(th.connectionId, outcome);
        const key = randomUUID();
        const body = { text: 'Oi, tudo bem?' };
        const refused = await send(th, body, key);
        expect(refused.status, String(outcome.outcome)).toBe(status);
        expect(((await refused.json()) as ErrorBody).context.code).toBe(outcome.outcome);
        const repeat = await sent(th, body, key);
        expect(repeat.status).toBe('sent');
        expect(await outbound(th.me.accountId)).toEqual([{ id: repeat.id, direction: 'outbound', status: 'sent' }]);
      }
    });

    it('every refusal of a rule releases the key: once the cause is gone, the repeat is sent', async () => {
      // channel_disconnected → reconnected.
      const ig = await thread('instagram');
      const text = { text: 'Chegou o seu 38!' };
      const path = `/connections/${ig.connectionId}`;
      await ok(await admin('PATCH', path, { status: 'disconnected', disconnect_reason: 'authorization_lost' }));
      let key = randomUUID();
      expect((await send(ig, text, key)).status).toBe(422);
      await ok(await admin('PATCH', path, { status: 'connected' }));
      await sent(ig, text, key);

      // contact_blocked → unblocked.
      await ok(await admin('PATCH', `/sandbox/contacts/${ig.contactId}`, { blocked_from_automations: true }));
      key = randomUUID();
      expect((await send(ig, text, key)).status).toBe(422);
      await ok(await admin('PATCH', `/sandbox/contacts/${ig.contactId}`, { blocked_from_automations: false }));
      await sent(ig, text, key);

      // messaging_window_closed → the contact writes again.
      t.clock.advance(DAY);
      key = randomUUID();
      expect(((await (await send(ig, text, key)).json()) as ErrorBody).context.code).toBe('messaging_window_closed');
      await writes(ig.connectionId, ig.from, 'Ainda tem?');
      await sent(ig, text, key);
      expect(await outbound(ig.me.accountId)).toHaveLength(3);

      // media_not_uploaded → the bytes arrive.
      const wa = await thread('whatsapp');
      const media = await createMedia(wa.me, 'image/png');
      const photo = { text: 'A foto do produto', attachments: [{ type: 'image', media_id: media.id }] };
      key = randomUUID();
      expect(((await (await send(wa, photo, key)).json()) as ErrorBody).context.code).toBe('media_not_uploaded');
      await putBytes(media.upload_url, PNG, 'image/png');
      await sent(wa, photo, key);

      // template_not_found → the template is added; template_not_approved → it is approved.
      key = randomUUID();
      expect(((await (await send(wa, TEMPLATE, key)).json()) as ErrorBody).context.code).toBe('template_not_found');
      const added = await addTemplate(wa, { status: 'pending' });
      expect(((await (await send(wa, TEMPLATE, key)).json()) as ErrorBody).context.code).toBe('template_not_approved');
      await ok(await admin('PATCH', `/templates/${added.id}`, { status: 'approved' }));
      const filled = await sent(wa, TEMPLATE, key);
      expect(filled.text).toBe('Olá Ana! Seu pedido #4821 foi enviado.');

      // template_required → the contact writes again.
      t.clock.advance(DAY);
      key = randomUUID();
      expect(((await (await send(wa, text, key)).json()) as ErrorBody).context.code).toBe('template_required');
      await writes(wa.connectionId, wa.from, 'Oi de novo');
      await sent(wa, text, key);
      expect(await outbound(wa.me.accountId)).toHaveLength(3);
    });

    it('outcome_unknown without acceptance keeps the key: the repeat answers the same 502, nothing stored', async () => {
      const th = await thread('instagram');
      await arrange(th.connectionId, { outcome: 'outcome_unknown' });
      const key = randomUUID();
      const body = { text: 'Oi, tudo bem?' };
      const before = await written(th);
      const first = await expectError(await send(th, body, key), 502, {
        code: 'outcome_unknown',
        provider_accepted: false,
      });
      expect(await written(th)).toEqual(before);
      // The queue is empty now: a run would be accepted. The key answers as before.
      const again = await send(th, body, key);
      expect(again.status).toBe(502);
      expect(await again.json()).toEqual(first);
      expect(await written(th)).toEqual(before);
    });

    it('outcome_unknown with acceptance stores the message (sent, message.sent) and keeps the key', async () => {
      const th = await thread('whatsapp');
      await arrange(th.connectionId, { outcome: 'outcome_unknown', provider_accepted: true });
      t.clock.advance(1000);
      const key = randomUUID();
      const body = { text: 'Seu pedido saiu para entrega.' };
      const first = await expectError(await send(th, body, key), 502, {
        code: 'outcome_unknown',
        provider_accepted: true,
      });
      const stored = await outbound(th.me.accountId);
      expect(stored).toEqual([{ id: expect.any(String), direction: 'outbound', status: 'sent' }]);
      const message = await getMessage(th.me, stored[0]!.id);
      expect(message).toMatchObject({
        text: body.text,
        status: 'sent',
        sender: { type: 'api', api_key_id: th.me.keyId },
      });
      const list = await ok<SchemaMessageList>(
        await th.me.call('GET', `/v1/conversations/${th.conversationId}/messages`),
      );
      expect(list.data[0]).toEqual(message);
      const events = await eventsOf(th.me.accountId, 'message.sent');
      expect(events.map((e) => e.data)).toEqual([message]);

      const again = await send(th, body, key);
      expect(again.status).toBe(502);
      expect(await again.json()).toEqual(first);
      expect(await outbound(th.me.accountId)).toHaveLength(1);
    });
  });

  describe('the channel’s answers (sandbox arrangements)', () => {
    it('refusals answer with their code and context, and write no message and no event', async () => {
      const cases: [SchemaChannelType, Record<string, unknown>, number, Record<string, unknown>][] = [
        [
          'instagram',
          { outcome: 'provider_rejected', provider_message: 'The user is not allowed to receive this message.' },
          422,
          {
            code: 'provider_rejected',
            channel: 'instagram',
            provider_message: 'The user is not allowed to receive this message.',
          },
        ],
        [
          'whatsapp',
          { outcome: 'provider_rejected' },
          422,
          { code: 'provider_rejected', channel: 'whatsapp', provider_message: 'The channel refused the message.' },
        ],
        ['instagram', { outcome: 'provider_throttled' }, 429, { code: 'provider_throttled', channel: 'instagram' }],
        ['whatsapp', { outcome: 'provider_throttled' }, 429, { code: 'provider_throttled', channel: 'whatsapp' }],
        ['instagram', { outcome: 'provider_unavailable' }, 503, { code: 'provider_unavailable', channel: 'instagram' }],
        ['instagram', { outcome: 'recipient_unavailable' }, 422, { code: 'recipient_unavailable' }],
        ['whatsapp', { outcome: 'recipient_unavailable' }, 422, { code: 'recipient_unavailable' }],
        ['instagram', { outcome: 'conversation_not_owned' }, 422, { code: 'conversation_not_owned' }],
      ];
      for (const [channel, outcome, status, context] of cases) {
        const th = await thread(channel);
        await arrange(th.connectionId, outcome);
        const before = await written(th);
        await expectError(await send(th, { text: 'Oi, tudo bem?' }), status, context);
        expect(await written(th), JSON.stringify(outcome)).toEqual(before);
        // One arrangement, one send: the next one is accepted.
        await sent(th, { text: 'Oi, tudo bem?' });
      }
    });

    it('arrangements are used in order, one per send that reaches the channel', async () => {
      const th = await thread('instagram');
      await arrange(th.connectionId, { outcome: 'provider_throttled' });
      await arrange(th.connectionId, { outcome: 'recipient_unavailable' });
      // A send refused before the channel uses none.
      expect(((await (await send(th, { text: 'x'.repeat(1001) })).json()) as ErrorBody).context.code).toBe(
        'text_too_long',
      );
      expect(((await (await send(th, { text: 'a' })).json()) as ErrorBody).context.code).toBe('provider_throttled');
      expect(((await (await send(th, { text: 'b' })).json()) as ErrorBody).context.code).toBe('recipient_unavailable');
      await sent(th, { text: 'c' });
    });

    it('a lone UTF-16 surrogate anywhere in the body is a 400 before the channel: nothing sent or stored', async () => {
      // JSON may spell "\ud800", but it is no Unicode character and jsonb refuses it: once a 502
      // outcome_unknown after the channel had taken the message.
      const th = await thread('instagram');
      const mediaId = await upload(th.me, 'image/png', PNG);
      await arrange(th.connectionId, { outcome: 'recipient_unavailable' });
      const before = await written(th);
      const bodies: [unknown, string][] = [
        [{ text: 'Oi \ud83d' }, '/text'],
        [{ text: '\udfff Escolha', buttons: [{ type: 'reply', id: 'a', title: 'Um' }] }, '/text'],
        [{ text: 'Escolha', buttons: [{ type: 'reply', id: 'a', title: 'Um\ud800' }] }, '/buttons/0/title'],
        [
          { attachments: [{ type: 'cards', cards: [{ title: '\udc00', media_id: mediaId }] }] },
          '/attachments/0/cards/0/title',
        ],
      ];
      for (const [body, path] of bodies) {
        const res = await send(th, body);
        const json = (await res.json()) as ErrorBody;
        expect(res.status, JSON.stringify(json)).toBe(400);
        expect(json.context).toEqual({
          details: [{ location: 'body', path, message: expect.stringMatching(/surrogate/) }],
        });
      }
      expect(await written(th)).toEqual(before);
      // The arrangement is still there: none of them reached the channel. A well-formed pair is text like any other.
      expect(((await (await send(th, { text: 'a' })).json()) as ErrorBody).context.code).toBe('recipient_unavailable');
      expect((await sent(th, { text: 'Oi \ud83d\ude00' })).text).toBe('Oi 😀');
    });

    it('fails_later on whatsapp: 201 sent, then after the delay the job marks it failed with message.failed', async () => {
      const th = await thread('whatsapp');
      await arrange(th.connectionId, {
        outcome: 'fails_later',
        provider_code: '131047',
        provider_message: 'Re-engagement message.',
      });
      const message = await sent(th, { text: 'Seu pedido saiu para entrega.' });
      expect(message).toMatchObject({ status: 'sent', failure: null });
      expect((await eventsOf(th.me.accountId, 'message.sent')).map((e) => e.resource_id)).toEqual([message.id]);

      // The contacts' messages were handed to the automation engine (jobs due now); then: not due yet.
      while ((await worker.runOnce()) > 0);
      t.clock.advance(FAIL_LATER_DELAY_MS - 1);
      expect(await worker.runOnce()).toBe(0);
      expect((await getMessage(th.me, message.id)).status).toBe('sent');

      t.clock.advance(1);
      const failedAt = stamp(t.clock.now());
      expect(await worker.runOnce()).toBe(1);
      const failed = await getMessage(th.me, message.id);
      expect(failed).toEqual({
        ...message,
        status: 'failed',
        failure: { failed_at: failedAt, provider_code: '131047', provider_message: 'Re-engagement message.' },
      });
      const events = await eventsOf(th.me.accountId, 'message.failed');
      expect(events).toEqual([
        {
          type: 'message.failed',
          resource_type: 'message',
          resource_id: message.id,
          data: failed,
          created_at: failedAt,
        },
      ]);
      // Done once: nothing left to run.
      t.clock.advance(60_000);
      expect(await worker.runOnce()).toBe(0);
      expect(await eventsOf(th.me.accountId, 'message.failed')).toHaveLength(1);
    });

    it('fails_later uses the default code and words when none were arranged', async () => {
      const th = await thread('whatsapp');
      await arrange(th.connectionId, { outcome: 'fails_later' });
      const message = await sent(th, { text: 'Oi' });
      while ((await worker.runOnce()) > 0); // the contacts' messages, handed to the automation engine
      t.clock.advance(FAIL_LATER_DELAY_MS);
      expect(await worker.runOnce()).toBe(1);
      expect((await getMessage(th.me, message.id)).failure).toEqual({
        failed_at: expect.any(String),
        provider_code: '131026',
        provider_message: 'Message undeliverable.',
      });
    });
  });

  describe('the 24-hour window', () => {
    it('instagram: 422 messaging_window_closed with channel and last_inbound_at', async () => {
      const th = await thread('instagram');
      t.clock.advance(DAY);
      const before = await written(th);
      await expectError(await send(th, { text: 'Ainda tem interesse?' }), 422, {
        code: 'messaging_window_closed',
        channel: 'instagram',
        last_inbound_at: th.inbound.created_at,
      });
      expect(await written(th)).toEqual(before);
    });

    it('whatsapp: 422 template_required with channel and last_inbound_at; a template passes', async () => {
      const th = await thread('whatsapp');
      await addTemplate(th);
      t.clock.advance(3 * DAY);
      await expectError(await send(th, { text: 'Ainda tem interesse?' }), 422, {
        code: 'template_required',
        channel: 'whatsapp',
        last_inbound_at: th.inbound.created_at,
      });
      // Every form but a template needs the window.
      const media = await upload(th.me, 'image/png', PNG);
      await expectError(await send(th, { attachments: [{ type: 'image', media_id: media }] }), 422, {
        code: 'template_required',
        channel: 'whatsapp',
        last_inbound_at: th.inbound.created_at,
      });
      const message = await sent(th, TEMPLATE);
      expect(message).toMatchObject({ status: 'sent', template: { name: 'order_shipped', language: 'pt_BR' } });
      // The body's values went to the channel; the message keeps the filled text, the template is name and language.
      expect(message.template).toEqual({ name: 'order_shipped', language: 'pt_BR' });
      // Sending does not open the window.
      expect((await getConversation(th)).reply_window.state).toBe('closed');
      expect(((await (await send(th, { text: 'E agora?' })).json()) as ErrorBody).context.code).toBe(
        'template_required',
      );
    });

    it('a whatsapp contact created by POST /v1/contacts has no window; only a template reaches it', async () => {
      const me = await t.account();
      const connectionId = await connect(me, 'whatsapp');
      const contact = await ok<SchemaContact>(
        await me.call('POST', '/v1/contacts', {
          body: { phone: mobile(), name: 'Bruno Lima', connection_id: connectionId, consent: true },
        }),
        201,
      );
      // POST /v1/contacts gives the contact its conversation (no message yet): contact_id finds it.
      const found = await ok<SchemaConversationList>(
        await me.call('GET', `/v1/conversations?contact_id=${contact.id}`),
      );
      const conversationId = found.data[0]!.id;
      const th = { me, conversationId };
      const conversation = await ok<SchemaConversation>(await me.call('GET', `/v1/conversations/${conversationId}`));
      expect(conversation.reply_window).toEqual({ state: 'closed', closes_at: null });
      await expectError(await send(th, { text: 'Olá Bruno!' }), 422, {
        code: 'template_required',
        channel: 'whatsapp',
        last_inbound_at: null,
      });
      await ok(
        await admin('POST', `/accounts/${me.accountId}/templates`, {
          connection_id: connectionId,
          name: 'welcome',
          language: 'pt_BR',
          body: 'Olá {{1}}, bem-vindo à Loja Aurora!',
        }),
        201,
      );
      const message = await sent(th, {
        template: { name: 'welcome', language: 'pt_BR', body_variables: ['Bruno'] },
      });
      expect(message.text).toBe('Olá Bruno, bem-vindo à Loja Aurora!');
    });

    it('opens when the contact writes and closes exactly 24 hours after its last message', async () => {
      const th = await thread('instagram');
      const t0 = Date.parse(th.inbound.created_at);
      t.clock.advance(DAY - 1);
      await sent(th, { text: 'Ainda dá tempo' });
      const window = (await getConversation(th)).reply_window;
      expect(window.state).toBe('open');
      expect(Date.parse(window.closes_at!)).toBe(t0 + DAY);
      t.clock.advance(1);
      expect((await getConversation(th)).reply_window.state).toBe('closed');
      await expectError(await send(th, { text: 'Tarde demais' }), 422, {
        code: 'messaging_window_closed',
        channel: 'instagram',
        last_inbound_at: th.inbound.created_at,
      });

      // The contact writes: open again for 24 hours from that message.
      t.clock.advance(5 * DAY);
      const again = await writes(th.connectionId, th.from, 'Voltei!');
      await sent(th, { text: 'Que bom!' });
      t.clock.advance(DAY - 1);
      await sent(th, { text: 'Última chamada' });
      t.clock.advance(1);
      await expectError(await send(th, { text: 'Fechou' }), 422, {
        code: 'messaging_window_closed',
        channel: 'instagram',
        last_inbound_at: again.message.created_at,
      });
    });

    it('a comment does not open the window', async () => {
      const th = await thread('instagram');
      t.clock.advance(DAY);
      await ok(
        await admin('POST', `/sandbox/connections/${th.connectionId}/inbound`, {
          from: th.from,
          type: 'comment',
          text: 'Quanto custa?',
          post: { id: '17895695668004550', type: 'feed' },
        }),
        201,
      );
      expect(((await (await send(th, { text: 'Oi' })).json()) as ErrorBody).context.code).toBe(
        'messaging_window_closed',
      );
    });
  });

  describe('the connection and the contact', () => {
    it('channel_disconnected with reason authorization_lost only when that is the disconnect_reason', async () => {
      const th = await thread('whatsapp');
      const path = `/connections/${th.connectionId}`;
      await ok(await admin('PATCH', path, { status: 'disconnected', disconnect_reason: 'authorization_lost' }));
      const before = await written(th);
      await expectError(await send(th, { text: 'Oi' }), 422, {
        code: 'channel_disconnected',
        channel: 'whatsapp',
        reason: 'authorization_lost',
      });
      // It comes before every other check: a template on a closed window, an arranged answer.
      await arrange(th.connectionId, { outcome: 'provider_throttled' });
      await expectError(await send(th, TEMPLATE), 422, {
        code: 'channel_disconnected',
        channel: 'whatsapp',
        reason: 'authorization_lost',
      });
      expect((await written(th)).messages).toEqual(before.messages);

      for (const reason of ['disconnected_by_user', 'account_suspended', 'activation_expired', 'setup_incomplete']) {
        await ok(await admin('PATCH', path, { status: 'connected' }));
        await ok(await admin('PATCH', path, { status: 'disconnected', disconnect_reason: reason }));
        await expectError(await send(th, { text: 'Oi' }), 422, { code: 'channel_disconnected', channel: 'whatsapp' });
      }
      // The arranged answer was never used.
      await ok(await admin('PATCH', path, { status: 'connected' }));
      expect(((await (await send(th, { text: 'Oi' })).json()) as ErrorBody).context.code).toBe('provider_throttled');
      await sent(th, { text: 'Oi' });
    });

    it('contact_blocked when the account blocked the contact', async () => {
      const th = await thread('instagram');
      await ok(await admin('PATCH', `/sandbox/contacts/${th.contactId}`, { blocked_from_automations: true }));
      const before = await written(th);
      await expectError(await send(th, { text: 'Oi' }), 422, { code: 'contact_blocked' });
      expect(await written(th)).toEqual(before);
    });
  });

  describe('the sent message', () => {
    it('201: sender api with the key, status sent, the same as GET /v1/messages/{id} and the list', async () => {
      const th = await thread('instagram');
      const me = await ok<SchemaMe>(await th.me.call('GET', '/v1/me'));
      t.clock.advance(60_000);
      const res = await send(th, { text: 'Temos sim! Quer que eu separe?' });
      expect(res.headers.get('cache-control')).toBe('no-store');
      const message = await ok<SchemaMessage>(res, 201);
      expect(message).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        conversation_id: th.conversationId,
        contact_id: th.contactId,
        channel: { type: 'instagram', connection_id: th.connectionId },
        type: 'message',
        direction: 'outbound',
        sender: { type: 'api', user_id: null, name: me.api_key.name, workflow_id: null, api_key_id: th.me.keyId },
        text: 'Temos sim! Quer que eu separe?',
        attachments: [],
        template: null,
        reply_to_message_id: null,
        button: null,
        post: null,
        status: 'sent',
        failure: null,
        is_unsupported: false,
        is_removed: false,
        is_edited: false,
        reactions: [],
        read_at: null,
        created_at: stamp(t.clock.now()),
      });
      expect(me.api_key.id).toBe(th.me.keyId);
      expect(await getMessage(th.me, message.id)).toEqual(message);
      const list = await ok<SchemaMessageList>(
        await th.me.call('GET', `/v1/conversations/${th.conversationId}/messages`),
      );
      expect(list.data.map((m) => m.id)).toEqual([message.id, th.inbound.id]);
      expect(list.data[0]).toEqual(message);
    });

    it('text with buttons reads back as one cards attachment whose title is the text', async () => {
      const th = await thread('instagram');
      const message = await sent(th, {
        text: 'Qual tamanho você prefere?',
        buttons: [
          { type: 'reply', id: 'size_38', title: '38' },
          { type: 'open_url', title: 'Tabela de medidas', url: 'https://loja.example/medidas' },
        ],
      });
      expect(message.text).toBeNull();
      expect(message.attachments).toEqual([
        {
          type: 'cards',
          cards: [
            {
              title: 'Qual tamanho você prefere?',
              subtitle: null,
              image: null,
              buttons: [
                { type: 'postback', id: 'size_38', title: '38', url: null },
                { type: 'open_url', id: null, title: 'Tabela de medidas', url: 'https://loja.example/medidas' },
              ],
            },
          ],
        },
      ]);
      expect(await getMessage(th.me, message.id)).toEqual(message);
    });

    it('a template reads back with its body filled into text, and template name and language', async () => {
      const th = await thread('whatsapp');
      await addTemplate(th);
      const message = await sent(th, TEMPLATE);
      expect(message).toMatchObject({
        text: 'Olá Ana! Seu pedido #4821 foi enviado.',
        attachments: [],
        template: { name: 'order_shipped', language: 'pt_BR' },
        status: 'sent',
      });
      expect(await getMessage(th.me, message.id)).toEqual(message);
    });

    it('a media attachment carries a url of the service that redirects to the bytes', async () => {
      const th = await thread('whatsapp');
      const mediaId = await upload(th.me, 'application/pdf', Buffer.from('%PDF-1.7\n%%EOF\n'), 'nota-4821.pdf');
      const message = await sent(th, { text: 'Sua nota fiscal', attachments: [{ type: 'file', media_id: mediaId }] });
      expect(message.text).toBe('Sua nota fiscal');
      expect(message.attachments).toEqual([
        {
          type: 'file',
          media_id: mediaId,
          url: `${t.baseUrl}/v1/media/${mediaId}/content`,
          content_type: 'application/pdf',
          size: 15,
          filename: 'nota-4821.pdf',
          expires_at: null,
        },
      ]);
      expect(await getMessage(th.me, message.id)).toEqual(message);
      const res = await fetch(firstMedia(message).url, {
        headers: { Authorization: `Bearer ${th.me.apiKey}` },
        redirect: 'manual',
      });
      expect(res.status).toBe(302);
      const file = await fetch(res.headers.get('location')!);
      expect(Buffer.from(await file.arrayBuffer()).toString()).toBe('%PDF-1.7\n%%EOF\n');
    });

    /** The attachment of a 2 KB photo the contact of `th` sends through the sandbox. */
    const receivedPhoto = async (th: { connectionId: string; from: unknown }) =>
      firstMedia(
        (
          await ok<SchemaSandboxInboundResult>(
            await admin('POST', `/sandbox/connections/${th.connectionId}/inbound`, {
              from: th.from,
              attachment: { type: 'image', content_type: 'image/jpeg', size: 2048 },
            }),
            201,
          )
        ).message,
      );

    it('a received media can be sent again by its media_id', async () => {
      const th = await thread('instagram');
      const received = await receivedPhoto(th);
      const message = await sent(th, { attachments: [{ type: 'image', media_id: received.media_id }] });
      expect(message.attachments).toEqual([
        {
          type: 'image',
          media_id: received.media_id,
          url: `${t.baseUrl}/v1/media/${received.media_id}/content`,
          content_type: 'image/jpeg',
          size: 2048,
          filename: null,
          expires_at: received.expires_at,
        },
      ]);
    });

    it('a received media is sent until just before its expires_at; at it and after, 410 media_expired', async () => {
      const th = await thread('instagram', { validityDays: 365 });
      const received = await receivedPhoto(th);
      const body = { attachments: [{ type: 'image', media_id: received.media_id }] };
      t.clock.advance(Date.parse(String(received.expires_at)) - t.clock.now().getTime() - 1);
      await writes(th.connectionId, th.from); // the reply window opens again
      await sent(th, body);
      for (const step of [1, 1]) {
        t.clock.advance(step); // at expires_at, then after it
        await expectError(await send(th, body), 410, { code: 'media_expired' });
      }
    });

    it('the platform signature goes under a lone text and a text above buttons, within the limit', async () => {
      const ig = await thread('instagram');
      await t.database.db
        .updateTable('accounts')
        .set({ platform_signature: SIGNATURE })
        .where('id', '=', ig.me.accountId)
        .execute();
      const signed = (text: string) => `${text}\n\n${SIGNATURE}`;

      const lone = await sent(ig, { text: 'Temos sim!' });
      expect(lone.text).toBe(signed('Temos sim!'));
      expect(await getMessage(ig.me, lone.id)).toEqual(lone);

      const buttons = [{ type: 'reply', id: 'sim', title: 'Sim' }];
      const above = await sent(ig, { text: 'Separo para você?', buttons });
      expect(above.text).toBeNull();
      expect(firstCards(above).cards[0]?.title).toBe(signed('Separo para você?'));

      // Within the channel limit: what fits exactly is signed, one character more is sent without it.
      const room = (limit: number) => limit - `\n\n${SIGNATURE}`.length;
      const fits = 'a'.repeat(room(1000));
      expect((await sent(ig, { text: fits })).text).toBe(signed(fits));
      expect((await sent(ig, { text: `${fits}b` })).text).toBe(`${fits}b`);
      expect((await sent(ig, { text: 'c'.repeat(1000) })).text).toBe('c'.repeat(1000));
      const fitsAbove = 'd'.repeat(room(640));
      expect(firstCards(await sent(ig, { text: fitsAbove, buttons })).cards[0]?.title).toBe(signed(fitsAbove));
      expect(firstCards(await sent(ig, { text: `${fitsAbove}e`, buttons })).cards[0]?.title).toBe(`${fitsAbove}e`);

      // Never on cards.
      const cards = await sent(ig, {
        attachments: [
          { type: 'cards', cards: [{ title: 'Runner 38', buttons: [{ type: 'reply', id: 'r', title: 'Quero' }] }] },
        ],
      });
      expect(firstCards(cards).cards[0]?.title).toBe('Runner 38');
      expect(cards.text).toBeNull();

      // The event carries what was delivered.
      const event = (await eventsOf(ig.me.accountId, 'message.sent')).find((e) => e.resource_id === lone.id);
      expect(event?.data).toEqual(lone);

      // whatsapp: the limit is 4096 under a lone text; never on a caption or a template.
      const wa = await thread('whatsapp');
      await t.database.db
        .updateTable('accounts')
        .set({ platform_signature: SIGNATURE })
        .where('id', '=', wa.me.accountId)
        .execute();
      const waFits = 'f'.repeat(room(4096));
      expect((await sent(wa, { text: waFits })).text).toBe(signed(waFits));
      expect((await sent(wa, { text: `${waFits}g` })).text).toBe(`${waFits}g`);
      const waAbove = 'h'.repeat(room(1024));
      expect(firstCards(await sent(wa, { text: waAbove, buttons })).cards[0]?.title).toBe(signed(waAbove));
      const mediaId = await upload(wa.me, 'image/png', PNG);
      const caption = await sent(wa, { text: 'A foto', attachments: [{ type: 'image', media_id: mediaId }] });
      expect(caption.text).toBe('A foto');
      await addTemplate(wa);
      expect((await sent(wa, TEMPLATE)).text).toBe('Olá Ana! Seu pedido #4821 foi enviado.');
    });
  });

  describe('side effects', () => {
    it('marks what the contact sent as read, clears unread, moves last_message_at, writes message.sent', async () => {
      const th = await thread('whatsapp');
      t.clock.advance(30_000);
      const second = await writes(th.connectionId, th.from, 'Alguém aí?');
      expect(second.conversation.unread).toBe(true);
      t.clock.advance(30_000);

      const message = await sent(th, { text: 'Oi! Estou aqui.' });
      const at = stamp(t.clock.now());
      expect(message.created_at).toBe(at);
      for (const inbound of [th.inbound, second.message]) {
        const read = await getMessage(th.me, inbound.id);
        expect(read).toEqual({ ...inbound, read_at: at });
      }
      const conversation = await getConversation(th);
      expect(conversation).toMatchObject({ unread: false, last_message_at: at });
      const unread = await ok<SchemaConversationList>(await th.me.call('GET', '/v1/conversations?unread=true'));
      expect(unread.data).toEqual([]);

      const events = await eventsOf(th.me.accountId, 'message.sent');
      expect(events).toEqual([
        { type: 'message.sent', resource_type: 'message', resource_id: message.id, data: message, created_at: at },
      ]);
      // The contact's activity moves too.
      const contact = await ok<SchemaContact>(await th.me.call('GET', `/v1/contacts/${th.contactId}`));
      expect(contact).toMatchObject({ updated_at: at, last_interaction_at: at });
    });

    it('never moves last_message_at back: a send older than the conversation’s last message leaves it', async () => {
      const th = await thread('whatsapp');
      const later = new Date(t.clock.now().getTime() + 3_600_000);
      await t.database.db
        .updateTable('conversations')
        .set({ last_message_at: later.toISOString() })
        .where('contact_id', '=', th.contactId)
        .execute();
      const message = await sent(th, { text: 'Oi' });
      expect(Date.parse(message.created_at)).toBeLessThan(later.getTime());
      expect((await getConversation(th)).last_message_at).toBe(stamp(later));
    });

    it('the message and its message.sent commit together; an accepted send that cannot be recorded is outcome_unknown and keeps the key', async () => {
      const th = await thread('instagram');
      // The outbox refuses this account's message.sent: the whole send must roll back.
      await sql
        .raw(
          `create or replace function send_test_refuse_event() returns trigger language plpgsql as $$
           begin
             if new.type = 'message.sent' and new.account_id = '${th.me.accountId}' then
               raise exception 'outbox refused';
             end if;
             return new;
           end $$`,
        )
        .execute(t.database.db);
      await sql
        .raw(
          'create trigger send_test_refuse_event before insert on events for each row execute function send_test_refuse_event()',
        )
        .execute(t.database.db);
      const key = randomUUID();
      const before = await written(th);
      try {
        const res = await send(th, { text: 'Oi' }, key);
        // The channel took the message: a retry with the key must not send it again.
        expect(res.status).toBe(502);
        expect(((await res.json()) as ErrorBody).context).toEqual({
          code: 'outcome_unknown',
          provider_accepted: true,
        });
        expect(await written(th)).toEqual(before);
      } finally {
        await sql.raw('drop trigger send_test_refuse_event on events').execute(t.database.db);
        await sql.raw('drop function send_test_refuse_event()').execute(t.database.db);
      }
      // outcome_unknown keeps the key: the repeat answers the same 502 and sends nothing.
      const again = await send(th, { text: 'Oi' }, key);
      expect(again.status).toBe(502);
      expect(await written(th)).toEqual(before);
      // A new key sends.
      const message = await sent(th, { text: 'Oi' }, randomUUID());
      expect((await eventsOf(th.me.accountId, 'message.sent')).map((e) => e.resource_id)).toEqual([message.id]);
    });
  });

  describe('the channel rules, through the route', () => {
    it('text_too_long with max_length on each channel and form', async () => {
      const ig = await thread('instagram');
      const wa = await thread('whatsapp');
      const reply = [{ type: 'reply', id: 'ok', title: 'OK' }];
      const unknownMedia = [{ type: 'image', media_id: randomUUID() }];
      const cases: [Thread, Record<string, unknown>, number][] = [
        [ig, { text: 'x'.repeat(1001) }, 1000],
        [ig, { text: 'x'.repeat(641), buttons: reply }, 640],
        [wa, { text: 'x'.repeat(4097) }, 4096],
        [wa, { text: 'x'.repeat(1025), buttons: reply }, 1024],
        [wa, { text: 'x'.repeat(1025), attachments: unknownMedia }, 1024],
      ];
      for (const [th, body, max] of cases) {
        const before = await written(th);
        await expectError(await send(th, body), 422, {
          code: 'text_too_long',
          channel: th.channel,
          field: 'text',
          max_length: max,
        });
        expect(await written(th)).toEqual(before);
      }
      // The limit itself passes; code points are counted (an emoji is one).
      expect((await sent(ig, { text: '👇'.repeat(1000) })).text).toBe('👇'.repeat(1000));
      await sent(wa, { text: 'x'.repeat(4096) });
    });

    it('invalid_message duplicate_button_id; content_not_supported for a template on instagram', async () => {
      const ig = await thread('instagram');
      await expectError(
        await send(ig, {
          text: 'Escolha',
          buttons: [
            { type: 'reply', id: 'a', title: 'Um' },
            { type: 'reply', id: 'a', title: 'Dois' },
          ],
        }),
        422,
        { code: 'invalid_message', reason: 'duplicate_button_id', field: 'buttons[1].id' },
      );
      await expectError(await send(ig, {}), 422, { code: 'invalid_message', reason: 'empty', field: null });
      await expectError(await send(ig, TEMPLATE), 422, {
        code: 'content_not_supported',
        channel: 'instagram',
        field: 'template',
      });
      expect(await outbound(ig.me.accountId)).toEqual([]);
    });

    it('media_not_found, media_not_uploaded, media_not_supported too_large and content_type', async () => {
      const wa = await thread('whatsapp');
      const missing = randomUUID();
      await expectError(await send(wa, { attachments: [{ type: 'image', media_id: missing }] }), 422, {
        code: 'media_not_found',
        media_id: missing,
      });
      // Another account's media is not found either.
      const other = await t.account();
      const theirs = await upload(other, 'image/png', PNG);
      await expectError(await send(wa, { attachments: [{ type: 'image', media_id: theirs }] }), 422, {
        code: 'media_not_found',
        media_id: theirs,
      });

      const waiting = await createMedia(wa.me, 'image/png');
      await expectError(await send(wa, { attachments: [{ type: 'image', media_id: waiting.id }] }), 422, {
        code: 'media_not_uploaded',
        media_id: waiting.id,
      });

      // 5 MB is whatsapp's image limit: one byte more is too large; instagram takes up to 8 MB.
      const big = Buffer.concat([PNG, Buffer.alloc(5 * MB + 1 - PNG.length, 0x2a)]);
      const large = await upload(wa.me, 'image/png', big);
      await expectError(await send(wa, { attachments: [{ type: 'image', media_id: large }] }), 422, {
        code: 'media_not_supported',
        channel: 'whatsapp',
        field: 'attachments[0]',
        media_id: large,
        reason: 'too_large',
        content_type: 'image/png',
        size: 5 * MB + 1,
        max_size: 5 * MB,
      });
      const gif = await upload(wa.me, 'image/gif', PNG);
      await expectError(await send(wa, { attachments: [{ type: 'image', media_id: gif }] }), 422, {
        code: 'media_not_supported',
        channel: 'whatsapp',
        field: 'attachments[0]',
        media_id: gif,
        reason: 'content_type',
        content_type: 'image/gif',
        size: PNG.length,
        max_size: 5 * MB,
      });
      // The bytes must be what the Content-Type says (issue 33): a program, a PDF or a GIF declared as an image the
      // channel takes is refused with content_type; a file whose first bytes show no known format too.
      for (const [bytes, declared, reads] of [
        [EXE, 'image/jpeg', 'exe'],
        [PDF, 'image/png', 'pdf'],
        [GIF, 'image/png', 'gif'],
        [Buffer.from('just text'), 'image/jpeg', 'no known format'],
      ] as const) {
        const mediaId = await upload(wa.me, declared, bytes);
        const refused = await expectError(
          await send(wa, { attachments: [{ type: 'image', media_id: mediaId }] }),
          422,
          {
            code: 'media_not_supported',
            channel: 'whatsapp',
            field: 'attachments[0]',
            media_id: mediaId,
            reason: 'content_type',
            content_type: declared,
            size: bytes.length,
            max_size: 5 * MB,
          },
        );
        expect(refused.message).toBe(`The file is not ${declared}: its bytes read as ${reads}.`);
      }
      // What they say they are, they pass.
      const jpeg = await upload(wa.me, 'image/jpeg', JPEG);
      expect((await sent(wa, { attachments: [{ type: 'image', media_id: jpeg }] })).attachments[0]).toMatchObject({
        type: 'image',
        content_type: 'image/jpeg',
      });
      const mp3 = await upload(wa.me, 'audio/mpeg', MP3);
      expect((await sent(wa, { attachments: [{ type: 'audio', media_id: mp3 }] })).attachments[0]).toMatchObject({
        type: 'audio',
      });
      const mp4 = await upload(wa.me, 'video/mp4', MP4);
      expect((await sent(wa, { attachments: [{ type: 'video', media_id: mp4 }] })).attachments[0]).toMatchObject({
        type: 'video',
      });
      expect((await outbound(wa.me.accountId)).length).toBe(3);

      const ig = await thread('instagram');
      const igLarge = await upload(ig.me, 'image/png', big);
      const message = await sent(ig, { attachments: [{ type: 'image', media_id: igLarge }] });
      expect(message.attachments[0]).toMatchObject({ type: 'image', size: 5 * MB + 1 });
    });

    it('template_not_found, template_not_approved, template_not_supported, template_variables_mismatch', async () => {
      const wa = await thread('whatsapp');
      await expectError(await send(wa, TEMPLATE), 422, {
        code: 'template_not_found',
        name: 'order_shipped',
        language: 'pt_BR',
      });
      await addTemplate(wa, { status: 'paused' });
      await expectError(await send(wa, TEMPLATE), 422, { code: 'template_not_approved', status: 'paused' });
      await addTemplate(wa, { language: 'en_US' });
      await expectError(
        await send(wa, { template: { name: 'order_shipped', language: 'en_US', body_variables: ['Ana'] } }),
        422,
        { code: 'template_variables_mismatch', expected: 2, received: 1 },
      );
      await expectError(
        await send(wa, { template: { name: 'order_shipped', language: 'en_US', body_variables: ['A', 'B', 'C'] } }),
        422,
        { code: 'template_variables_mismatch', expected: 2, received: 3 },
      );
      await addTemplate(wa, { name: 'promo', body: 'Oferta!', unsupported_features: ['header_media'] });
      await expectError(await send(wa, { template: { name: 'promo', language: 'pt_BR' } }), 422, {
        code: 'template_not_supported',
        reason: 'header_media',
      });
      // Another connection's template is not this conversation's.
      const otherConnection = await connect(wa.me, 'whatsapp');
      await ok(
        await admin('POST', `/accounts/${wa.me.accountId}/templates`, {
          connection_id: otherConnection,
          name: 'elsewhere',
          language: 'pt_BR',
          body: 'Oi',
        }),
        201,
      );
      await expectError(await send(wa, { template: { name: 'elsewhere', language: 'pt_BR' } }), 422, {
        code: 'template_not_found',
        name: 'elsewhere',
        language: 'pt_BR',
      });
      expect(await outbound(wa.me.accountId)).toEqual([]);
    });
  });

  describe('access', () => {
    it('needs messages:send: 403 insufficient_scope, nothing sent', async () => {
      const th = await thread('instagram', { scopes: ['conversations:read', 'contacts:read'] });
      await expectError(await send(th, { text: 'Oi' }), 403, {
        code: 'insufficient_scope',
        required_scope: 'messages:send',
      });
      expect(await outbound(th.me.accountId)).toEqual([]);
    });

    it('another account’s conversation, or none, is 404 not_found; its channel is not reached', async () => {
      const theirs = await thread('instagram');
      await arrange(theirs.connectionId, { outcome: 'provider_throttled' });
      const me = await t.account();
      const before = await written(theirs);
      await expectError(await send({ me, conversationId: theirs.conversationId }, { text: 'Oi' }), 404, {
        code: 'not_found',
      });
      await expectError(await send({ me, conversationId: randomUUID() }, { text: 'Oi' }), 404, { code: 'not_found' });
      expect(await written(theirs)).toEqual(before);
      expect(await outbound(me.accountId)).toEqual([]);
      // The arranged answer is still there for its own account.
      expect(((await (await send(theirs, { text: 'Oi' })).json()) as ErrorBody).context.code).toBe(
        'provider_throttled',
      );
    });
  });
});
