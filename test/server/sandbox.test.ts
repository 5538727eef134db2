// The sandbox admin API (`/admin/v1/sandbox/…`; docs/decisions.md "The sandbox"; Part A Message, Conversation,
// States and transitions; Part C "Messages and comments" and "Connections") on every engine of the run: each
// action over HTTP with what it stores and the events it writes to the outbox (each validated against the
// webhook body schema of its type in generated/openapi.json), every `invalid_sandbox_action` reason the rules
// raise, the native-app send, the connection events of the admin connections route, and the sandbox being off
// (`SANDBOX_ENABLED=false`, and the default configuration in production).
import { randomUUID } from 'node:crypto';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin, { type FormatsPlugin } from 'ajv-formats';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PREFIX, adminOperations } from '../../generated/operations.js';
import { deleteContactInConsole } from '../../server/domain/contacts/contacts.js';
import { deref, isObject, type JsonObject } from '../../scripts/lib/openapi.js';
import { adminBundledSpec, bundledSpec } from '../helpers.js';
import { call, engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import { expectError, firstMedia, json } from './http-helpers.js';
import type {
  SchemaConnection,
  SchemaConnectionList,
  SchemaContact,
  SchemaConversation,
  SchemaConversationList,
  SchemaMessage,
  SchemaMessageList,
} from '../../generated/api.js';
import type {
  SchemaSandboxButtonTapResult,
  SchemaSandboxClock,
  SchemaSandboxInboundResult,
  SchemaSandboxSamePersonResult,
} from '../../generated/admin-api.js';

// ajv-formats is CommonJS (`module.exports = plugin`): under NodeNext its default import is the plugin itself.
const addFormats = addFormatsPlugin as unknown as FormatsPlugin;

const TOKEN = 'sandbox-admin-token-for-tests-0123456789';
const DAY_S = 24 * 60 * 60;

interface EventRow {
  id: string;
  type: string;
  resource_type: string;
  resource_id: string;
  data: unknown;
  created_at: string;
}

// ----------------------------------------------------------------------------------- the spec's event schemas

const SPEC_ID = 'https://spec.local/openapi.json';
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, logger: false });
addFormats(ajv);
ajv.addSchema({ ...bundledSpec(), $id: SPEC_ID }, SPEC_ID);
const validators = new Map<string, ValidateFunction>();
/** The problems of an outbox row against the webhook body schema of its type (none: valid). */
function schemaProblems(row: EventRow): string[] {
  let v = validators.get(row.type);
  if (!v) {
    const escaped = row.type.replace(/~/g, '~0').replace(/\//g, '~1');
    v = ajv.compile({ $ref: `${SPEC_ID}#/webhooks/${escaped}/post/requestBody/content/application~1json/schema` });
    validators.set(row.type, v);
  }
  const body = { id: row.id, type: row.type, api_version: 'v1', created_at: row.created_at, data: row.data };
  if (v(body)) return [];
  return (v.errors ?? []).slice(0, 5).map((e) => `${row.type} ${e.instancePath || '/'} ${e.message ?? e.keyword}`);
}

/** A valid request body of each sandbox operation: its first named example in the vendor console's description. */
function exampleBody(method: string, path: string): unknown {
  const paths = adminBundledSpec().paths as JsonObject;
  const op = (paths[path] as JsonObject)[method] as JsonObject;
  const content = isObject(op.requestBody) ? (op.requestBody.content as JsonObject) : undefined;
  const json = content?.['application/json'];
  if (!isObject(json) || !isObject(json.examples)) return undefined;
  const first = Object.values(json.examples)[0];
  return isObject(first) ? deref<JsonObject>(adminBundledSpec(), first).value : undefined;
}

const sandboxOperations = Object.entries(adminOperations).filter(([, op]) => op.path.includes('/sandbox/'));

// ----------------------------------------------------------------------------------------------------- helpers

const expectInvalid = (res: Response, reason: string) =>
  expectError(res, 422, { code: 'invalid_sandbox_action', reason });

describe('the sandbox operations', () => {
  it('are admin routes under /admin/v1/sandbox, each with a valid example body when it takes one', () => {
    expect(sandboxOperations.length).toBeGreaterThanOrEqual(15);
    for (const [id, op] of sandboxOperations) {
      expect(id).toMatch(/Sandbox/);
      if (op.method !== 'get' && op.method !== 'delete' && id !== 'adminCreateSandboxFailure')
        expect(exampleBody(op.method, op.path), id).toBeDefined();
    }
    expect(sandboxOperations.map(([id]) => id)).toContain('adminCreateSandboxNativeMessage');
  });
});

describe.each(engines)('the sandbox on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, { env: { ADMIN_TOKEN: TOKEN, SANDBOX_ENABLED: 'true' } });
  });
  afterAll(async () => t?.close());

  /** The clock's now as the API writes timestamps (microseconds). */
  const nowIso = () => t.clock.now().toISOString().replace(/Z$/, '000Z');
  const admin = (method: string, path: string, body?: unknown) =>
    call(t.baseUrl, TOKEN, method, `${ADMIN_PREFIX}${path}`, body === undefined ? {} : { body });

  async function events(accountId: string): Promise<EventRow[]> {
    const rows = await t.database.db
      .selectFrom('events')
      .select(['id', 'type', 'resource_type', 'resource_id', 'data', 'created_at'])
      .where('account_id', '=', accountId)
      .orderBy('sequence')
      .execute();
    return rows as EventRow[];
  }
  /** Runs `action` and returns its result with the events it wrote, each checked against its webhook schema. */
  async function withEvents<T>(accountId: string, action: () => Promise<T>): Promise<[T, EventRow[]]> {
    const before = (await events(accountId)).length;
    const result = await action();
    const written = (await events(accountId)).slice(before);
    expect(written.flatMap(schemaProblems)).toEqual([]);
    return [result, written];
  }
  const noEvents = async (accountId: string, action: () => Promise<unknown>) => {
    const [, written] = await withEvents(accountId, action);
    expect(written.map((e) => e.type)).toEqual([]);
  };

  let n = 0;
  interface World {
    c: TestCaller;
    ig: SchemaConnection;
    wa: SchemaConnection;
    /** Someone new each call, on instagram. */
    igFrom(name?: string): { instagram_id: string; username: string; name: string };
    /** Someone new each call, on whatsapp. */
    waFrom(name?: string): { phone: string; name: string };
  }
  async function world(): Promise<World> {
    const c = await t.account();
    n += 1;
    const connect = async (body: Record<string, unknown>) =>
      json<SchemaConnection>(await admin('POST', `/accounts/${c.accountId}/connections`, body), 201);
    const ig = await connect({ channel: 'instagram', name: 'Loja IG', username: `loja.${engine}.${n}` });
    const wa = await connect({
      channel: 'whatsapp',
      name: 'Loja WA',
      phone: `+551130000${String(n).padStart(4, '0')}`,
    });
    let people = 0;
    return {
      c,
      ig,
      wa,
      igFrom: (name = 'Ana Souza') => {
        people += 1;
        return { instagram_id: `1784${n}${people}${randomUUID().slice(0, 8)}`, username: `ana_${n}_${people}`, name };
      },
      waFrom: (name = 'Bia Lima') => {
        people += 1;
        return { phone: `+55119${String(n).padStart(2, '0')}${String(people).padStart(6, '0')}`, name };
      },
    };
  }
  const inbound = (connectionId: string, body: unknown) =>
    admin('POST', `/sandbox/connections/${connectionId}/inbound`, body);
  const writes = async (connectionId: string, body: unknown) =>
    json<SchemaSandboxInboundResult>(await inbound(connectionId, body), 201);
  const getMessage = async (c: TestCaller, id: string) =>
    json<SchemaMessage>(await c.call('GET', `/v1/messages/${id}`), 200);
  const getConversation = async (c: TestCaller, id: string) =>
    json<SchemaConversation>(await c.call('GET', `/v1/conversations/${id}`), 200);
  const listed = async (c: TestCaller, query = '') =>
    (await json<SchemaConversationList>(await c.call('GET', `/v1/conversations?limit=100${query}`), 200)).data.map(
      (x) => x.id,
    );
  const send = (c: TestCaller, conversationId: string, body: unknown) =>
    c.call('POST', `/v1/conversations/${conversationId}/messages`, {
      body,
      headers: { 'Idempotency-Key': randomUUID() },
    });
  const sendOk = async (c: TestCaller, conversationId: string, body: unknown) =>
    json<SchemaMessage>(await send(c, conversationId, body), 201);
  const setConnection = (id: string, body: unknown) => admin('PATCH', `/connections/${id}`, body);

  // ------------------------------------------------------------------------------------------ a contact writes

  describe('a contact writes', () => {
    it('someone new: contact.created and message.received, contact and conversation created; not the second time', async () => {
      const w = await world();
      const from = w.igFrom();
      const [first, written] = await withEvents(w.c.accountId, () =>
        writes(w.ig.id, { from, text: 'Oi! Tem o Runner no 38?' }),
      );
      expect(first.contact_created).toBe(true);
      expect(written.map((e) => e.type)).toEqual(['contact.created', 'message.received']);
      expect(written[0]).toMatchObject({ resource_type: 'contact', resource_id: first.contact.id });
      expect(written[0]!.data).toEqual(first.contact);
      expect(written[1]).toMatchObject({ resource_type: 'message', resource_id: first.message.id });
      expect(written[1]!.data).toEqual(await getMessage(w.c, first.message.id));
      expect(first.contact).toMatchObject({
        name: 'Ana Souza',
        instagram: { id: from.instagram_id, username: from.username },
      });
      expect(first.message).toMatchObject({
        conversation_id: first.conversation.id,
        contact_id: first.contact.id,
        channel: { type: 'instagram', connection_id: w.ig.id },
        type: 'message',
        direction: 'inbound',
        sender: { type: 'contact', user_id: null, name: 'Ana Souza', workflow_id: null, api_key_id: null },
        text: 'Oi! Tem o Runner no 38?',
        status: 'received',
        read_at: null,
      });
      expect(first.conversation).toMatchObject({
        contact: { id: first.contact.id, name: 'Ana Souza' },
        person_id: first.contact.person_id,
        last_message_at: first.message.created_at,
        unread: true,
        reply_window: { state: 'open' },
      });
      expect(Date.parse(first.conversation.reply_window.closes_at!)).toBe(
        Date.parse(first.message.created_at) + DAY_S * 1000,
      );
      expect(await getConversation(w.c, first.conversation.id)).toEqual(first.conversation);
      expect(await listed(w.c)).toContain(first.conversation.id);

      // The same person again, with a new profile name and username: no contact.created, same contact.
      t.clock.advance(1000);
      const again = { ...from, username: `${from.username}_novo`, name: 'Ana S.' };
      const [second, written2] = await withEvents(w.c.accountId, () => writes(w.ig.id, { from: again, text: 'Alô?' }));
      expect(second.contact_created).toBe(false);
      expect(written2.map((e) => e.type)).toEqual(['message.received']);
      expect(second.contact.id).toBe(first.contact.id);
      expect(second.conversation.id).toBe(first.conversation.id);
      expect(second.contact).toMatchObject({
        name: 'Ana S.',
        instagram: { id: from.instagram_id, username: again.username },
      });
      expect(second.contact.updated_at).toBe(second.message.created_at);
      expect(second.conversation.last_message_at).toBe(second.message.created_at);

      // Deleted in the console, the contact comes back under its id when it writes again, without contact.created.
      await deleteContactInConsole(t.database.db, t.clock, w.c.accountId, first.contact.id);
      expect((await w.c.call('GET', `/v1/contacts/${first.contact.id}`)).status).toBe(404);
      const [back, written3] = await withEvents(w.c.accountId, () => writes(w.ig.id, { from: again, text: 'Voltei' }));
      expect(back.contact_created).toBe(false);
      expect(back.contact.id).toBe(first.contact.id);
      expect(written3.map((e) => e.type)).toEqual(['message.received']);
      expect((await w.c.call('GET', `/v1/contacts/${first.contact.id}`)).status).toBe(200);
    });

    it('someone new on whatsapp, found again by the same number written without its ninth digit', async () => {
      const w = await world();
      const [first, written] = await withEvents(w.c.accountId, () =>
        writes(w.wa.id, { from: { phone: '+5511987650001', name: 'Bia' }, text: 'Oi' }),
      );
      expect(first.contact_created).toBe(true);
      expect(written.map((e) => e.type)).toEqual(['contact.created', 'message.received']);
      expect(first.contact.whatsapp).toEqual({ phone: '+5511987650001' });
      const second = await writes(w.wa.id, { from: { phone: '+551187650001', name: 'Bia' }, text: 'Oi de novo' });
      expect(second.contact_created).toBe(false);
      expect(second.contact.id).toBe(first.contact.id);
    });

    it('a comment: comment.received, no reply window, conversation left out of the list but readable', async () => {
      const w = await world();
      const post = { id: '18034567891234567', type: 'feed', url: 'https://www.instagram.com/p/DB3xK9aPq2L/' };
      const [r, written] = await withEvents(w.c.accountId, () =>
        writes(w.ig.id, { from: w.igFrom(), type: 'comment', text: 'Quanto custa?', post }),
      );
      expect(written.map((e) => e.type)).toEqual(['contact.created', 'comment.received']);
      expect(written[1]!.data).toMatchObject({ type: 'comment', post, text: 'Quanto custa?' });
      expect(r.message).toMatchObject({ type: 'comment', post, direction: 'inbound' });
      expect(r.conversation.reply_window).toEqual({ state: 'closed', closes_at: null });
      expect(r.conversation.last_message_at).toBe(r.message.created_at);
      expect(await listed(w.c)).not.toContain(r.conversation.id);
      expect(await getConversation(w.c, r.conversation.id)).toEqual(r.conversation);
    });

    it('a live comment: live_comment.received', async () => {
      const w = await world();
      const [r, written] = await withEvents(w.c.accountId, () =>
        writes(w.ig.id, { from: w.igFrom(), type: 'live_comment', text: '🔥🔥', post: { id: 'live-1', type: 'live' } }),
      );
      expect(written.map((e) => e.type)).toEqual(['contact.created', 'live_comment.received']);
      expect(r.message).toMatchObject({ type: 'live_comment', post: { id: 'live-1', type: 'live', url: null } });
      expect(written[1]!.data).toMatchObject({ type: 'live_comment' });
      expect(await listed(w.c)).not.toContain(r.conversation.id);
    });

    it('a story reply and a story mention: message.received with data.type story_message and story_mention', async () => {
      const w = await world();
      const from = w.igFrom();
      const story = { id: 'story-1', type: 'story' };
      const [reply, written] = await withEvents(w.c.accountId, () =>
        writes(w.ig.id, { from, type: 'story_message', text: 'Que lindo!', post: story }),
      );
      expect(written.map((e) => e.type)).toEqual(['contact.created', 'message.received']);
      expect(written[1]!.data).toMatchObject({ type: 'story_message', post: { ...story, url: null } });
      expect(reply.conversation.reply_window.state).toBe('open');
      expect(await listed(w.c)).toContain(reply.conversation.id);

      const [mention, written2] = await withEvents(w.c.accountId, () =>
        writes(w.ig.id, {
          from,
          type: 'story_mention',
          attachment: { type: 'image', content_type: 'image/jpeg', size: 2048 },
          post: story,
        }),
      );
      expect(written2.map((e) => e.type)).toEqual(['message.received']);
      expect(written2[0]!.data).toMatchObject({ type: 'story_mention', text: null });
      expect(mention.message.attachments).toEqual([expect.objectContaining({ type: 'image', size: 2048 })]);
    });

    it('keeps the channel time given in created_at, up to 5 minutes back, and moves last_message_at only forward', async () => {
      const w = await world();
      const from = w.waFrom();
      const now = t.clock.now().getTime();
      const late = new Date(now - 2 * 60_000).toISOString();
      const r1 = await writes(w.wa.id, { from, text: 'agora' });
      const r2 = await writes(w.wa.id, { from, text: 'atrasada', created_at: late });
      expect(Date.parse(r2.message.created_at)).toBe(Date.parse(late));
      expect(r2.conversation.last_message_at).toBe(r1.message.created_at);
      const unsupported = await writes(w.wa.id, { from, is_unsupported: true });
      expect(unsupported.message).toMatchObject({ is_unsupported: true, text: null, attachments: [] });
    });

    it('answers each invalid_sandbox_action reason of an inbound message, writing nothing and storing no file', async () => {
      const w = await world();
      const igFrom = w.igFrom();
      const waFrom = w.waFrom();
      const known = await writes(w.ig.id, { from: igFrom, text: 'Oi' });
      const other = await writes(w.ig.id, { from: w.igFrom(), text: 'Oi também' });
      const mediaBefore = await t.database.db
        .selectFrom('media')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('account_id', '=', w.c.accountId)
        .executeTakeFirstOrThrow();
      const now = t.clock.now().getTime();
      const image = { type: 'image', content_type: 'image/jpeg', size: 10 };
      await noEvents(w.c.accountId, async () => {
        await expectInvalid(await inbound(w.ig.id, { from: waFrom, text: 'x' }), 'identity_mismatch');
        await expectInvalid(await inbound(w.ig.id, { from: waFrom, attachment: image }), 'identity_mismatch');
        await expectInvalid(await inbound(w.wa.id, { from: igFrom, text: 'x' }), 'identity_mismatch');
        await expectInvalid(
          await inbound(w.wa.id, { from: waFrom, type: 'comment', text: 'x', post: { id: 'p', type: 'feed' } }),
          'not_instagram',
        );
        await expectInvalid(await inbound(w.ig.id, { from: igFrom, type: 'comment', text: 'x' }), 'post_required');
        await expectInvalid(
          await inbound(w.ig.id, { from: igFrom, type: 'story_mention', attachment: image }),
          'post_required',
        );
        await expectInvalid(
          await inbound(w.ig.id, { from: igFrom, type: 'comment', text: 'x', post: { id: 'p', type: 'live' } }),
          'post_mismatch',
        );
        await expectInvalid(
          await inbound(w.ig.id, { from: igFrom, text: 'x', post: { id: 'p', type: 'feed' } }),
          'post_mismatch',
        );
        await expectInvalid(await inbound(w.ig.id, { from: igFrom }), 'empty');
        await expectInvalid(
          await inbound(w.ig.id, { from: igFrom, is_unsupported: true, text: 'x' }),
          'unsupported_with_content',
        );
        await expectInvalid(
          await inbound(w.ig.id, { from: igFrom, is_unsupported: true, attachment: image }),
          'unsupported_with_content',
        );
        await expectInvalid(
          await inbound(w.ig.id, { from: igFrom, text: 'x', created_at: new Date(now + 1000).toISOString() }),
          'created_at_out_of_range',
        );
        await expectInvalid(
          await inbound(w.ig.id, { from: igFrom, text: 'x', created_at: new Date(now - 5 * 60_000 - 1).toISOString() }),
          'created_at_out_of_range',
        );
        await expectInvalid(
          await inbound(w.ig.id, { from: igFrom, text: 'x', reply_to_message_id: randomUUID() }),
          'reply_to_unknown',
        );
        // A message of another contact of the account is not one this contact can quote.
        await expectInvalid(
          await inbound(w.ig.id, { from: igFrom, text: 'x', reply_to_message_id: other.message.id }),
          'reply_to_unknown',
        );
        await expectError(await inbound(w.wa.id, { from: { phone: '+1', name: 'X' }, attachment: image }), 422, {
          code: 'invalid_phone',
        });
      });
      // Disconnected: the channel delivers nothing.
      await json(
        await setConnection(w.ig.id, { status: 'disconnected', disconnect_reason: 'authorization_lost' }),
        200,
      );
      await noEvents(w.c.accountId, async () => {
        await expectInvalid(
          await inbound(w.ig.id, { from: igFrom, text: 'x', attachment: image }),
          'connection_disconnected',
        );
      });
      await json(await setConnection(w.ig.id, { status: 'connected' }), 200);
      const mediaAfter = await t.database.db
        .selectFrom('media')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('account_id', '=', w.c.accountId)
        .executeTakeFirstOrThrow();
      expect(Number(mediaAfter.n)).toBe(Number(mediaBefore.n));
      // Format errors are 400: both identities at once, an unknown field.
      const bad = await inbound(w.ig.id, { from: { ...igFrom, phone: '+5511987650001' }, text: 'x' });
      expect(bad.status).toBe(400);
      expect((await inbound(w.ig.id, { from: igFrom, text: 'x', extra: 1 })).status).toBe(400);
      await expectError(await inbound(randomUUID(), { from: igFrom, text: 'x' }), 404, { code: 'not_found' });
      // Quoting a message of its own conversation, in either direction, works.
      const quote = await writes(w.ig.id, {
        from: igFrom,
        text: 'como eu disse',
        reply_to_message_id: known.message.id,
      });
      expect(quote.message.reply_to_message_id).toBe(known.message.id);
    });

    it('stores a received attachment: 404 while it is stored, then readable', async () => {
      const w = await world();
      const r = await writes(w.wa.id, {
        from: w.waFrom(),
        text: 'segue o comprovante',
        attachment: { type: 'file', content_type: 'application/pdf', size: 4321, filename: 'comprovante.pdf' },
      });
      const attachment = firstMedia(r.message);
      expect(attachment).toMatchObject({
        type: 'file',
        content_type: 'application/pdf',
        size: 4321,
        filename: 'comprovante.pdf',
      });
      expect(attachment.url).toBe(`${t.baseUrl}/v1/media/${attachment.media_id}/content`);
      expect(Date.parse(String(attachment.expires_at)) - Date.parse(r.message.created_at)).toBe(90 * DAY_S * 1000);
      const content = () =>
        fetch(attachment.url, { headers: { Authorization: `Bearer ${w.c.apiKey}` }, redirect: 'manual' });
      expect((await content()).status).toBe(404);
      await json(await admin('PATCH', '/sandbox/clock', { advance_seconds: 5 }), 200);
      const res = await content();
      expect(res.status).toBe(302);
      const file = await fetch(new URL(res.headers.get('location')!, t.baseUrl));
      expect(file.status).toBe(200);
      expect((await file.arrayBuffer()).byteLength).toBe(4321);
    });
  });

  // ------------------------------------------------------------------------------------------ buttons

  describe('button taps', () => {
    it('a tap on an API message with reply buttons: message.received with the title as text', async () => {
      const w = await world();
      const r = await writes(w.ig.id, { from: w.igFrom(), text: 'Tem em outras cores?' });
      const sent = await sendOk(w.c, r.conversation.id, {
        text: 'Qual cor?',
        buttons: [
          { type: 'reply', id: 'color_blue', title: 'Azul' },
          { type: 'open_url', title: 'Ver loja', url: 'https://loja.example.com.br/runner' },
        ],
      });
      const [tap, written] = await withEvents(w.c.accountId, async () =>
        json<SchemaSandboxButtonTapResult>(
          await admin('POST', `/sandbox/messages/${sent.id}/button-taps`, { button_id: 'color_blue' }),
          201,
        ),
      );
      expect(written.map((e) => e.type)).toEqual(['message.received']);
      expect(tap.message).toMatchObject({
        direction: 'inbound',
        type: 'message',
        text: 'Azul',
        button: { id: 'color_blue', title: 'Azul', source: 'api' },
        reply_to_message_id: sent.id,
        conversation_id: r.conversation.id,
      });
      expect(written[0]!.data).toEqual(await getMessage(w.c, tap.message.id));

      await noEvents(w.c.accountId, async () => {
        await expectInvalid(
          await admin('POST', `/sandbox/messages/${sent.id}/button-taps`, { button_id: 'color_green' }),
          'no_such_button',
        );
        await expectInvalid(
          await admin('POST', `/sandbox/messages/${r.message.id}/button-taps`, { button_id: 'color_blue' }),
          'not_outbound',
        );
        await expectError(
          await admin('POST', `/sandbox/messages/${randomUUID()}/button-taps`, { button_id: 'color_blue' }),
          404,
          { code: 'not_found' },
        );
      });
    });
  });

  // ------------------------------------------------------------------------------------------ reactions, edits, unsends

  describe('reactions, edits and unsends (instagram)', () => {
    it('emit message.updated and message.deleted, and never move last_message_at', async () => {
      const w = await world();
      const r = await writes(w.ig.id, { from: w.igFrom(), text: 'Tem no 38?' });
      const at = r.conversation.last_message_at;
      t.clock.advance(1000);
      const path = `/sandbox/messages/${r.message.id}`;

      const [reacted, w1] = await withEvents(w.c.accountId, async () =>
        json<SchemaMessage>(await admin('PUT', `${path}/reaction`, { emoji: '❤️' }), 200),
      );
      expect(w1.map((e) => e.type)).toEqual(['message.updated']);
      expect(reacted.reactions).toEqual([{ emoji: '❤️', by: 'contact', created_at: nowIso() }]);
      expect(w1[0]!.data).toEqual(reacted);
      // A new reaction replaces the contact's one.
      const replaced = await json<SchemaMessage>(await admin('PUT', `${path}/reaction`, { emoji: '😂' }), 200);
      expect(replaced.reactions.map((x) => x.emoji)).toEqual(['😂']);
      const [unreacted, w2] = await withEvents(w.c.accountId, async () =>
        json<SchemaMessage>(await admin('DELETE', `${path}/reaction`), 200),
      );
      expect(w2.map((e) => e.type)).toEqual(['message.updated']);
      expect(unreacted.reactions).toEqual([]);

      const [edited, w3] = await withEvents(w.c.accountId, async () =>
        json<SchemaMessage>(await admin('PATCH', path, { text: 'Tem no 38 ou 39?' }), 200),
      );
      expect(w3.map((e) => e.type)).toEqual(['message.updated']);
      expect(edited).toMatchObject({ text: 'Tem no 38 ou 39?', is_edited: true, is_removed: false });
      expect(w3[0]!.data).toMatchObject({ text: 'Tem no 38 ou 39?', is_edited: true });

      const [removed, w4] = await withEvents(w.c.accountId, async () =>
        json<SchemaMessage>(await admin('DELETE', path), 200),
      );
      expect(w4.map((e) => e.type)).toEqual(['message.deleted']);
      expect(removed).toMatchObject({ is_removed: true, text: null, attachments: [] });
      expect(w4[0]!.data).toMatchObject({ is_removed: true, text: null });
      // message.updated kept the message as it was at that change.
      expect(w3[0]!.data).toMatchObject({ is_removed: false });
      expect(await getMessage(w.c, r.message.id)).toEqual(removed);
      expect((await getConversation(w.c, r.conversation.id)).last_message_at).toBe(at);

      await noEvents(w.c.accountId, async () => {
        await expectInvalid(await admin('PATCH', path, { text: 'de novo' }), 'message_removed');
        await expectInvalid(await admin('DELETE', path), 'message_removed');
        await expectInvalid(await admin('PUT', `${path}/reaction`, { emoji: '❤️' }), 'message_removed');
      });
    });

    it('refuse what the channel does not do', async () => {
      const w = await world();
      const dm = await writes(w.ig.id, { from: w.igFrom(), text: 'Oi' });
      const comment = await writes(w.ig.id, {
        from: w.igFrom(),
        type: 'comment',
        text: 'Lindo',
        post: { id: 'p1', type: 'feed' },
      });
      const wa = await writes(w.wa.id, { from: w.waFrom(), text: 'Oi' });
      const sent = await sendOk(w.c, dm.conversation.id, { text: 'Olá!' });
      await noEvents(w.c.accountId, async () => {
        await expectInvalid(
          await admin('PUT', `/sandbox/messages/${wa.message.id}/reaction`, { emoji: '❤️' }),
          'not_instagram',
        );
        await expectInvalid(await admin('PATCH', `/sandbox/messages/${wa.message.id}`, { text: 'x' }), 'not_instagram');
        await expectInvalid(await admin('DELETE', `/sandbox/messages/${wa.message.id}`), 'not_instagram');
        await expectInvalid(await admin('PATCH', `/sandbox/messages/${sent.id}`, { text: 'x' }), 'not_inbound');
        await expectInvalid(await admin('DELETE', `/sandbox/messages/${sent.id}`), 'not_inbound');
        await expectInvalid(
          await admin('PUT', `/sandbox/messages/${comment.message.id}/reaction`, { emoji: '❤️' }),
          'not_direct_message',
        );
        await expectError(await admin('DELETE', `/sandbox/messages/${randomUUID()}`), 404, { code: 'not_found' });
      });
      // A comment can be deleted (by its author, or by the account in the app): message.deleted.
      const [removed, deleted] = await withEvents(w.c.accountId, async () =>
        json<SchemaMessage>(await admin('DELETE', `/sandbox/messages/${comment.message.id}`), 200),
      );
      expect(removed).toMatchObject({ id: comment.message.id, type: 'comment', is_removed: true, text: null });
      expect(deleted.map((e) => e.type)).toEqual(['message.deleted']);
      // The contact may react to what the account sent.
      const reacted = await json<SchemaMessage>(
        await admin('PUT', `/sandbox/messages/${sent.id}/reaction`, { emoji: '👍' }),
        200,
      );
      expect(reacted.reactions).toEqual([expect.objectContaining({ emoji: '👍', by: 'contact' })]);
    });
  });

  // ------------------------------------------------------------------------------------------ failures and outcomes

  describe('whatsapp failures and arranged send outcomes', () => {
    it('fails a sent whatsapp message once: message.failed; instagram and inbound messages are refused', async () => {
      const w = await world();
      const r = await writes(w.wa.id, { from: w.waFrom(), text: 'Oi' });
      const sent = await sendOk(w.c, r.conversation.id, { text: 'Pedido confirmado.' });
      const [failed, written] = await withEvents(w.c.accountId, async () =>
        json<SchemaMessage>(
          await admin('POST', `/sandbox/messages/${sent.id}/failure`, {
            provider_code: '131026',
            provider_message: 'Message undeliverable',
          }),
          200,
        ),
      );
      expect(written.map((e) => e.type)).toEqual(['message.failed']);
      expect(failed).toMatchObject({
        status: 'failed',
        failure: {
          failed_at: nowIso(),
          provider_code: '131026',
          provider_message: 'Message undeliverable',
        },
      });
      expect(written[0]!.data).toEqual(failed);
      expect(await getMessage(w.c, sent.id)).toEqual(failed);

      const ig = await writes(w.ig.id, { from: w.igFrom(), text: 'Oi' });
      const igSent = await sendOk(w.c, ig.conversation.id, { text: 'Olá' });
      await noEvents(w.c.accountId, async () => {
        await expectInvalid(await admin('POST', `/sandbox/messages/${sent.id}/failure`), 'not_sent');
        await expectInvalid(await admin('POST', `/sandbox/messages/${igSent.id}/failure`, {}), 'not_whatsapp');
        await expectInvalid(await admin('POST', `/sandbox/messages/${r.message.id}/failure`), 'not_sent');
      });
      // A tap needs a message that reached the contact.
      const buttons = await sendOk(w.c, r.conversation.id, {
        text: 'Confirma?',
        buttons: [{ type: 'reply', id: 'yes', title: 'Sim' }],
      });
      await json(await admin('POST', `/sandbox/messages/${buttons.id}/failure`), 200);
      await expectInvalid(
        await admin('POST', `/sandbox/messages/${buttons.id}/button-taps`, { button_id: 'yes' }),
        'not_sent',
      );
      // Without a body: both failure fields null.
      const other = await sendOk(w.c, r.conversation.id, { text: 'Outra' });
      const bare = await json<SchemaMessage>(await admin('POST', `/sandbox/messages/${other.id}/failure`), 200);
      expect(bare.failure).toMatchObject({ provider_code: null, provider_message: null });
    });

    it('arranges the next sends’ answers in order and clears them', async () => {
      const w = await world();
      const r = await writes(w.ig.id, { from: w.igFrom(), text: 'Oi' });
      const outcomes = `/sandbox/connections/${w.ig.id}/send-outcomes`;
      expect(
        await json(await admin('POST', outcomes, { outcome: 'provider_rejected', provider_message: 'Nope.' }), 201),
      ).toEqual({ outcome: { outcome: 'provider_rejected', provider_message: 'Nope.' }, queued: 1 });
      expect(await json(await admin('POST', outcomes, { outcome: 'provider_throttled' }), 201)).toEqual({
        outcome: { outcome: 'provider_throttled' },
        queued: 2,
      });
      await noEvents(w.c.accountId, async () => {
        await expectError(await send(w.c, r.conversation.id, { text: 'a' }), 422, {
          code: 'provider_rejected',
          channel: 'instagram',
          provider_message: 'Nope.',
        });
        await expectError(await send(w.c, r.conversation.id, { text: 'b' }), 429, {
          code: 'provider_throttled',
          channel: 'instagram',
        });
      });
      await json(await admin('POST', outcomes, { outcome: 'provider_unavailable' }), 201);
      expect(await json(await admin('DELETE', outcomes), 200)).toEqual({ queued: 0 });
      const [, written] = await withEvents(w.c.accountId, () => sendOk(w.c, r.conversation.id, { text: 'c' }));
      expect(written.map((e) => e.type)).toEqual(['message.sent']);

      await expectInvalid(
        await admin('POST', `/sandbox/connections/${w.wa.id}/send-outcomes`, { outcome: 'provider_unavailable' }),
        'not_instagram',
      );
      await expectInvalid(
        await admin('POST', `/sandbox/connections/${w.wa.id}/send-outcomes`, { outcome: 'conversation_not_owned' }),
        'not_instagram',
      );
      await expectInvalid(await admin('POST', outcomes, { outcome: 'fails_later' }), 'not_whatsapp');
      expect((await admin('POST', outcomes, { outcome: 'provider_throttled', provider_message: 'x' })).status).toBe(
        400,
      );
      await expectError(await admin('DELETE', `/sandbox/connections/${randomUUID()}/send-outcomes`), 404, {
        code: 'not_found',
      });

      // fails_later: the send is accepted and whatsapp's later report is scheduled.
      const wr = await writes(w.wa.id, { from: w.waFrom(), text: 'Oi' });
      await json(await admin('POST', `/sandbox/connections/${w.wa.id}/send-outcomes`, { outcome: 'fails_later' }), 201);
      const doomed = await sendOk(w.c, wr.conversation.id, { text: 'Vai falhar' });
      expect(doomed.status).toBe('sent');
      const jobs = await t.database.db
        .selectFrom('jobs')
        .select(['kind', 'payload'])
        .where('account_id', '=', w.c.accountId)
        .execute();
      expect(jobs.filter((j) => JSON.stringify(j.payload).includes(doomed.id))).toHaveLength(1);
    });
  });

  // ------------------------------------------------------------------------------- text the store cannot hold

  describe('a lone UTF-16 surrogate in a body', () => {
    it('is a 400 naming the field, writing nothing (jsonb refuses it: once a 500)', async () => {
      const w = await world();
      const r = await writes(w.ig.id, { from: w.igFrom(), text: 'Oi' });
      const outcomes = `/sandbox/connections/${w.wa.id}/send-outcomes`;
      const cases: [string, string, unknown, string][] = [
        [
          'POST',
          `/sandbox/connections/${w.ig.id}/inbound`,
          { from: w.igFrom(), type: 'comment', text: 'Quanto custa?', post: { id: '\ud800', type: 'feed' } },
          '/post/id',
        ],
        ['PUT', `/sandbox/messages/${r.message.id}/reaction`, { emoji: '\udfff' }, '/emoji'],
        ['POST', outcomes, { outcome: 'fails_later', provider_code: '1310\ud83d' }, '/provider_code'],
        ['POST', outcomes, { outcome: 'provider_rejected', provider_message: 'Nope \udc00.' }, '/provider_message'],
      ];
      await noEvents(w.c.accountId, async () => {
        for (const [method, path, body, pointer] of cases)
          await expectError(await admin(method, path, body), 400, {
            details: [{ location: 'body', path: pointer, message: expect.stringMatching(/surrogate/) }],
          });
      });
      expect(await getMessage(w.c, r.message.id)).toEqual(r.message);
      expect(await json(await admin('DELETE', outcomes), 200)).toEqual({ queued: 0 });
      expect(await listed(w.c)).toEqual([r.conversation.id]);
    });
  });

  // ------------------------------------------------------------------------------------------ contacts

  describe('contacts', () => {
    it('a blocked contact still writes (message.received), but an API send answers contact_blocked', async () => {
      const w = await world();
      const r = await writes(w.ig.id, { from: w.igFrom(), text: 'Oi' });
      const contact = await json<SchemaContact>(
        await admin('PATCH', `/sandbox/contacts/${r.contact.id}`, { blocked_from_automations: true }),
        200,
      );
      expect(contact.id).toBe(r.contact.id);
      expect(contact).not.toHaveProperty('blocked_from_automations');
      await expectError(await send(w.c, r.conversation.id, { text: 'Olá' }), 422, { code: 'contact_blocked' });
      const [, written] = await withEvents(w.c.accountId, () =>
        writes(w.ig.id, {
          from: {
            instagram_id: r.contact.instagram!.id,
            username: r.contact.instagram!.username,
            name: r.contact.name,
          },
          text: 'Oi?',
        }),
      );
      expect(written.map((e) => e.type)).toEqual(['message.received']);
      await json(await admin('PATCH', `/sandbox/contacts/${r.contact.id}`, { blocked_from_automations: false }), 200);
      await sendOk(w.c, r.conversation.id, { text: 'Olá' });
      await expectError(
        await admin('PATCH', `/sandbox/contacts/${randomUUID()}`, { blocked_from_automations: true }),
        404,
        { code: 'not_found' },
      );
    });

    it('links two contacts as one person: both contacts and conversations share person_id', async () => {
      const w = await world();
      const ig = await writes(w.ig.id, { from: w.igFrom('Caio'), text: 'Oi pelo insta' });
      const wa = await writes(w.wa.id, { from: w.waFrom('Caio'), text: 'Oi pelo zap' });
      expect(ig.contact.person_id).not.toBe(wa.contact.person_id);
      const linked = await noEventsResult(w.c.accountId, async () =>
        json<SchemaSandboxSamePersonResult>(
          await admin('POST', `/sandbox/contacts/${wa.contact.id}/same-person`, { contact_id: ig.contact.id }),
          200,
        ),
      );
      expect(linked.contacts.map((c) => c.id)).toEqual([wa.contact.id, ig.contact.id]);
      expect(linked.contacts[0]!.person_id).toBe(linked.contacts[1]!.person_id);
      const person = linked.contacts[0]!.person_id;
      expect((await getConversation(w.c, ig.conversation.id)).person_id).toBe(person);
      expect((await getConversation(w.c, wa.conversation.id)).person_id).toBe(person);

      const ig2 = await writes(w.ig.id, { from: w.igFrom('Outro'), text: 'Oi' });
      await expectInvalid(
        await admin('POST', `/sandbox/contacts/${ig2.contact.id}/same-person`, { contact_id: ig.contact.id }),
        'same_connection',
      );
      // The person already has a whatsapp contact: another whatsapp contact would put two on one number.
      const wa2 = await writes(w.wa.id, { from: w.waFrom('Outro'), text: 'Oi' });
      await expectInvalid(
        await admin('POST', `/sandbox/contacts/${wa2.contact.id}/same-person`, { contact_id: ig.contact.id }),
        'same_connection',
      );
      await expectInvalid(
        await admin('POST', `/sandbox/contacts/${ig.contact.id}/same-person`, { contact_id: ig.contact.id }),
        'same_contact',
      );
      await expectError(
        await admin('POST', `/sandbox/contacts/${ig.contact.id}/same-person`, { contact_id: randomUUID() }),
        404,
        { code: 'not_found' },
      );
      // A contact of another account is unknown here.
      const stranger = await world();
      const theirs = await writes(stranger.wa.id, { from: stranger.waFrom(), text: 'Oi' });
      await expectError(
        await admin('POST', `/sandbox/contacts/${ig2.contact.id}/same-person`, { contact_id: theirs.contact.id }),
        404,
        { code: 'not_found' },
      );
    });

    it('lets one of two concurrent links win when together they would put two contacts on one connection', async () => {
      const w = await world();
      const ig = await writes(w.ig.id, { from: w.igFrom('Caio'), text: 'Oi pelo insta' });
      const wa1 = await writes(w.wa.id, { from: w.waFrom('Caio'), text: 'Oi pelo zap' });
      const wa2 = await writes(w.wa.id, { from: w.waFrom('Caio'), text: 'Oi de outro zap' });
      const link = (contactId: string) =>
        admin('POST', `/sandbox/contacts/${contactId}/same-person`, { contact_id: ig.contact.id });
      // Each link alone is fine; both would give the person two whatsapp contacts.
      const answers = await bothWaiting(ig.contact.id, () => Promise.all([link(wa1.contact.id), link(wa2.contact.id)]));
      expect(answers.map((res) => res.status).sort()).toEqual([200, 422]);
      await expectInvalid(
        answers.find((res) => res.status === 422)!,
        'same_connection',
      );
      const person = await t.database.db
        .selectFrom('contacts')
        .select('connection_id')
        .where('person_id', '=', (await getConversation(w.c, ig.conversation.id)).person_id)
        .execute();
      expect(person.map((c) => c.connection_id).sort()).toEqual([w.ig.id, w.wa.id].sort());
    });
  });

  /**
   * Runs two concurrent requests. On PostgreSQL, another transaction holds the row of `contactId` until both
   * wait for a lock, so each has done all it does before its first lock when the other starts merging.
   */
  async function bothWaiting<T>(contactId: string, action: () => Promise<T>): Promise<T> {
    if (!t.databaseUrl) return action();
    const holder = new pg.Client({ connectionString: t.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from contacts where id = $1 for update', [contactId]);
      const result = action();
      // Read from outside the holder's transaction, which sees one snapshot of pg_stat_activity.
      for (let i = 0; i < 250; i++) {
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'
        `.execute(t.database.db);
        if (rows[0]!.n >= 2) break;
        await new Promise((ok) => setTimeout(ok, 20));
      }
      await holder.query('commit');
      return await result;
    } finally {
      await holder.end();
    }
  }

  /** `action`'s result, checking it wrote no event. */
  async function noEventsResult<T>(accountId: string, action: () => Promise<T>): Promise<T> {
    const [result, written] = await withEvents(accountId, action);
    expect(written.map((e) => e.type)).toEqual([]);
    return result;
  }

  // ------------------------------------------------------------------------------------------ conversations

  describe('reading a conversation', () => {
    it('reads it, marks it unread and clears the mark, without events or moving last_message_at', async () => {
      const w = await world();
      const from = w.waFrom();
      const r = await writes(w.wa.id, { from, text: 'Oi' });
      await writes(w.wa.id, { from, text: 'Alguém?' });
      const path = `/sandbox/conversations/${r.conversation.id}`;
      const before = await getConversation(w.c, r.conversation.id);
      expect(before.unread).toBe(true);
      expect(await listed(w.c, '&unread=true')).toContain(r.conversation.id);
      t.clock.advance(2000);

      const read = await noEventsResult(w.c.accountId, async () =>
        json<SchemaConversation>(await admin('PATCH', path, { read: true }), 200),
      );
      expect(read).toEqual({ ...before, unread: false });
      const messages = await json<SchemaMessageList>(
        await w.c.call('GET', `/v1/conversations/${r.conversation.id}/messages`),
        200,
      );
      expect(messages.data.map((m) => m.read_at)).toEqual([nowIso(), nowIso()]);
      expect(await listed(w.c, '&unread=false')).toContain(r.conversation.id);

      const marked = await noEventsResult(w.c.accountId, async () =>
        json<SchemaConversation>(await admin('PATCH', path, { unread: true }), 200),
      );
      expect(marked).toEqual({ ...before, unread: true });
      expect(await listed(w.c, '&unread=true')).toContain(r.conversation.id);
      expect(await json<SchemaConversation>(await admin('PATCH', path, { unread: false }), 200)).toEqual({
        ...before,
        unread: false,
      });
      // A contact message still unread keeps unread true whatever the mark says.
      await writes(w.wa.id, { from, text: 'Oi?' });
      expect((await json<SchemaConversation>(await admin('PATCH', path, { unread: false }), 200)).unread).toBe(true);
      expect((await admin('PATCH', path, {})).status).toBe(400);
      expect((await admin('PATCH', path, { read: false })).status).toBe(400);
      await expectError(await admin('PATCH', `/sandbox/conversations/${randomUUID()}`, { read: true }), 404, {
        code: 'not_found',
      });
    });
  });

  // ------------------------------------------------------------------------------------------ the native app

  describe('the account writes from the native app', () => {
    it('stores an unattributed sent message and emits message.sent, with no reply-window check', async () => {
      const w = await world();
      const from = w.waFrom();
      const r = await writes(w.wa.id, { from, text: 'Oi' });
      // The reply window closes; the API may send only a template, the native app anything.
      await json(await admin('PATCH', '/sandbox/clock', { advance_seconds: DAY_S + 60 }), 200);
      await expectError(await send(w.c, r.conversation.id, { text: 'Olá' }), 422, {
        code: 'template_required',
        channel: 'whatsapp',
        last_inbound_at: r.message.created_at,
      });
      const closed = await getConversation(w.c, r.conversation.id);
      expect(closed.reply_window.state).toBe('closed');
      expect(closed.unread).toBe(true);

      const path = `/sandbox/conversations/${r.conversation.id}/native-messages`;
      const [message, written] = await withEvents(w.c.accountId, async () =>
        json<SchemaMessage>(await admin('POST', path, { text: 'Oi! Seu pedido saiu hoje.' }), 201),
      );
      const now = nowIso();
      expect(message).toMatchObject({
        conversation_id: r.conversation.id,
        contact_id: r.contact.id,
        channel: { type: 'whatsapp', connection_id: w.wa.id },
        type: 'message',
        direction: 'outbound',
        sender: { type: 'unattributed', user_id: null, name: null, workflow_id: null, api_key_id: null },
        text: 'Oi! Seu pedido saiu hoje.',
        attachments: [],
        status: 'sent',
        failure: null,
        read_at: null,
        created_at: now,
      });
      expect(written.map((e) => e.type)).toEqual(['message.sent']);
      expect(written[0]).toMatchObject({ resource_type: 'message', resource_id: message.id });
      expect(written[0]!.data).toEqual(message);
      expect(await getMessage(w.c, message.id)).toEqual(message);
      const after = await getConversation(w.c, r.conversation.id);
      // last_message_at moves; the window stays closed (only the contact opens it); what she wrote is read.
      expect(after).toEqual({ ...closed, last_message_at: now, unread: false });
      expect((await getMessage(w.c, r.message.id)).read_at).toBe(now);
      const contact = await json<SchemaContact>(await w.c.call('GET', `/v1/contacts/${r.contact.id}`), 200);
      expect(contact).toMatchObject({ updated_at: now, last_interaction_at: now });
      // A whatsapp message the native app sent can fail later too.
      const failed = await json<SchemaMessage>(await admin('POST', `/sandbox/messages/${message.id}/failure`), 200);
      expect(failed.sender.type).toBe('unattributed');
    });

    it('puts a comment-only conversation in the list; refuses a text too long for instagram and a disconnected connection', async () => {
      const w = await world();
      const c = await writes(w.ig.id, {
        from: w.igFrom(),
        type: 'comment',
        text: 'Quanto?',
        post: { id: 'p1', type: 'feed' },
      });
      expect(await listed(w.c)).not.toContain(c.conversation.id);
      const path = `/sandbox/conversations/${c.conversation.id}/native-messages`;
      await noEvents(w.c.accountId, async () => {
        await expectInvalid(await admin('POST', path, { text: 'x'.repeat(1001) }), 'text_too_long');
      });
      // Characters, not UTF-16 units: 1000 emoji fit.
      const long = await json<SchemaMessage>(await admin('POST', path, { text: '😀'.repeat(1000) }), 201);
      expect(long.text).toBe('😀'.repeat(1000));
      expect(await listed(w.c)).toContain(c.conversation.id);
      const listedConversation = await getConversation(w.c, c.conversation.id);
      expect(listedConversation.last_message_at).toBe(long.created_at);
      expect(listedConversation.reply_window).toEqual({ state: 'closed', closes_at: null });

      // whatsapp carries up to 4096.
      const wa = await writes(w.wa.id, { from: w.waFrom(), text: 'Oi' });
      await json(
        await admin('POST', `/sandbox/conversations/${wa.conversation.id}/native-messages`, { text: 'y'.repeat(4096) }),
        201,
      );

      await json(
        await setConnection(w.ig.id, { status: 'disconnected', disconnect_reason: 'authorization_lost' }),
        200,
      );
      await noEvents(w.c.accountId, async () => {
        await expectInvalid(await admin('POST', path, { text: 'Oi' }), 'connection_disconnected');
      });
      await expectError(
        await admin('POST', `/sandbox/conversations/${randomUUID()}/native-messages`, { text: 'Oi' }),
        404,
        { code: 'not_found' },
      );
      expect((await admin('POST', path, { text: '' })).status).toBe(400);
      expect((await admin('POST', path, {})).status).toBe(400);
      expect((await admin('POST', path, { text: 'Oi', sender: 'x' })).status).toBe(400);
      expect((await admin('POST', path, { text: 'y'.repeat(4097) })).status).toBe(400);
    });
  });

  // ------------------------------------------------------------------------------------------ clock

  describe('the clock', () => {
    it('reads and advances the service clock, closing reply windows', async () => {
      const w = await world();
      const r = await writes(w.ig.id, { from: w.igFrom(), text: 'Oi' });
      const clock = await json<SchemaSandboxClock>(await admin('GET', '/sandbox/clock'), 200);
      expect(clock.now).toBe(nowIso());
      // The test's ManualClock stands still while real time passes: never negative (the spec's minimum 0). The
      // server read the real time a moment before this line does, so a rounding boundary may lie between them.
      const expected = Math.max(0, Math.round((t.clock.now().getTime() - Date.now()) / 1000));
      expect(clock.offset_seconds).toBeGreaterThanOrEqual(0);
      expect(Math.abs(clock.offset_seconds - expected)).toBeLessThanOrEqual(1);
      const advanced = await json<SchemaSandboxClock>(
        await admin('PATCH', '/sandbox/clock', { advance_seconds: DAY_S }),
        200,
      );
      expect(Date.parse(advanced.now) - Date.parse(clock.now)).toBe(DAY_S * 1000);
      expect(advanced.offset_seconds - clock.offset_seconds).toBeGreaterThanOrEqual(DAY_S - 2);
      expect(advanced.now).toBe(nowIso());
      expect((await getConversation(w.c, r.conversation.id)).reply_window.state).toBe('closed');
      await expectError(await send(w.c, r.conversation.id, { text: 'Olá' }), 422, {
        code: 'messaging_window_closed',
        channel: 'instagram',
        last_inbound_at: r.message.created_at,
      });
      expect((await admin('PATCH', '/sandbox/clock', { advance_seconds: 'soon' })).status).toBe(400);
      expect((await admin('PATCH', '/sandbox/clock', {})).status).toBe(400);
    });
  });

  // ------------------------------------------------------------------------------------------ connection events

  describe('connection events of the admin connections route', () => {
    it('one event per real status change; the same change again, a new reason or a rename write none', async () => {
      const w = await world();
      const listedConnection = async (id: string) => {
        const page = await json<SchemaConnectionList>(await w.c.call('GET', '/v1/connections'), 200);
        return page.data.find((x) => x.id === id);
      };
      const disconnect = { status: 'disconnected', disconnect_reason: 'disconnected_by_user' };
      const [down, written] = await withEvents(w.c.accountId, async () =>
        json<SchemaConnection>(await setConnection(w.wa.id, disconnect), 200),
      );
      expect(down).toMatchObject({ status: 'disconnected', disconnect_reason: 'disconnected_by_user' });
      expect(written.map((e) => e.type)).toEqual(['connection.disconnected']);
      expect(written[0]).toMatchObject({ resource_type: 'connection', resource_id: w.wa.id });
      expect(written[0]!.data).toEqual(await listedConnection(w.wa.id));

      await noEvents(w.c.accountId, async () => {
        await json(await setConnection(w.wa.id, disconnect), 200);
        await json(
          await setConnection(w.wa.id, { status: 'disconnected', disconnect_reason: 'authorization_lost' }),
          200,
        );
        await json(await setConnection(w.wa.id, { disconnect_reason: 'account_suspended' }), 200);
        await json(await setConnection(w.wa.id, { name: 'Loja WA (antigo)' }), 200);
        await json(await setConnection(w.ig.id, { name: 'Loja IG nova' }), 200);
        await json(await setConnection(w.ig.id, { status: 'connected' }), 200);
        // A refused change writes nothing either.
        await expectError(
          await setConnection(w.wa.id, { status: 'connected', disconnect_reason: 'authorization_lost' }),
          422,
          {
            code: 'invalid_disconnect_reason',
          },
        );
      });

      const [up, written2] = await withEvents(w.c.accountId, async () =>
        json<SchemaConnection>(await setConnection(w.wa.id, { status: 'connected' }), 200),
      );
      expect(up).toMatchObject({ status: 'connected', disconnect_reason: null, name: 'Loja WA (antigo)' });
      expect(written2.map((e) => e.type)).toEqual(['connection.connected']);
      expect(written2[0]!.data).toEqual(await listedConnection(w.wa.id));
      await noEvents(w.c.accountId, async () => {
        await json(await setConnection(w.wa.id, { status: 'connected' }), 200);
      });

      // The same change made twice at once is one event.
      const [, written3] = await withEvents(w.c.accountId, () =>
        Promise.all([setConnection(w.ig.id, disconnect), setConnection(w.ig.id, disconnect)]).then((rs) =>
          Promise.all(rs.map((res) => json(res, 200))),
        ),
      );
      expect(written3.map((e) => e.type)).toEqual(['connection.disconnected']);
    });
  });

  // ------------------------------------------------------------------------------------------ every event

  it('wrote only events valid against the webhook body schema of their type, of every sandbox kind', async () => {
    const rows = (await t.database.db
      .selectFrom('events')
      .select(['id', 'type', 'resource_type', 'resource_id', 'data', 'created_at'])
      .orderBy('sequence')
      .execute()) as EventRow[];
    expect(rows.flatMap(schemaProblems)).toEqual([]);
    expect(new Set(rows.map((r) => r.type))).toEqual(
      new Set([
        'contact.created',
        'message.received',
        'comment.received',
        'live_comment.received',
        'message.sent',
        'message.updated',
        'message.deleted',
        'message.failed',
        'connection.connected',
        'connection.disconnected',
      ]),
    );
    // A check of the check: a message event without its sender fails its schema.
    const row = rows.find((r) => r.type === 'message.sent')!;
    expect(schemaProblems({ ...row, data: { ...(row.data as object), sender: undefined } })).not.toEqual([]);
  });
});

// ------------------------------------------------------------------------------------------ the sandbox off

// On PGlite alone, also when DATABASE_URL is set: with the sandbox off its routes are not mounted, so the 404s
// come from the configuration, not from storage; a new app per configuration on each engine cost ~10 s.
describe('the sandbox off', () => {
  const engine = 'pglite';
  const configs: [string, NodeJS.ProcessEnv][] = [
    ['SANDBOX_ENABLED=false', { ADMIN_TOKEN: TOKEN, SANDBOX_ENABLED: 'false' }],
    [
      'the default configuration in production',
      {
        ADMIN_TOKEN: TOKEN,
        APP_ENV: 'production',
        DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/unused',
        PUBLIC_BASE_URL: 'https://api.example.com',
        CHANNEL_CREDENTIALS_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
      },
    ],
  ];
  it.each(configs)('answers 404 not_found on every sandbox route with %s', async (_name, env) => {
    const t = await startTestApp(engine, { env });
    try {
      expect(t.config.sandboxEnabled).toBe(false);
      // Real resources, so a 404 cannot come from a missing one.
      const c = await t.account();
      const connection = await json<SchemaConnection>(
        await call(t.baseUrl, TOKEN, 'POST', `${ADMIN_PREFIX}/accounts/${c.accountId}/connections`, {
          body: { channel: 'whatsapp', name: 'WA', phone: '+5511930001234' },
        }),
        201,
      );
      const problems: string[] = [];
      for (const [id, op] of sandboxOperations) {
        const path = op.path.replace('{connectionId}', connection.id).replace(/\{[^{}]+\}/g, randomUUID());
        const body = exampleBody(op.method, op.path);
        const res = await call(t.baseUrl, TOKEN, op.method.toUpperCase(), path, body === undefined ? {} : { body });
        const answer = (await res.json()) as { context?: { code?: string } };
        if (res.status !== 404 || answer.context?.code !== 'not_found')
          problems.push(`${id}: ${res.status} ${JSON.stringify(answer)}`);
      }
      expect(problems).toEqual([]);
      const events = await t.database.db.selectFrom('events').select('type').execute();
      expect(events).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
