// The read side of conversations and messages (Part A: Conversation, Message, Attachment rules,
// GET /v1/conversations, GET /v1/conversations/{id}, GET /v1/conversations/{id}/messages,
// GET /v1/messages/{id}, Pagination; docs/decisions.md "Messaging") on every engine of the run. The data is made
// as a client team makes it: the sandbox admin API acts as the contact (writes, comments, story replies and
// mentions, live comments, reactions, edits, unsends, button taps), the console reads or marks conversations
// unread, and the public send route answers. What is checked: one conversation per contact, the inbox list
// (order, filters, sync while paging, cursors bound to their list), the reply window under a moving clock, the
// messages list, the message shape against the spec schema, 404 across accounts, and the scope.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin, { type FormatsPlugin } from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PREFIX } from '../../generated/operations.js';
import { createApiKey, SCOPES } from '../../server/domain/accounts/keys.js';
import { bundledSpec } from '../helpers.js';
import { call, engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import { expectError, firstMedia, type ErrorBody } from './http-helpers.js';
import type {
  SchemaConnection,
  SchemaContact,
  SchemaConversation,
  SchemaConversationList,
  SchemaMessage,
  SchemaMessageList,
  SchemaNextCursor,
} from '../../generated/api.js';
import type {
  SchemaSandboxInboundRequest,
  SchemaSandboxButtonTapResult,
  SchemaSandboxInboundResult,
} from '../../generated/admin-api.js';

// ajv-formats is CommonJS (`module.exports = plugin`): under NodeNext its default import is the plugin itself.
const addFormats = addFormatsPlugin as unknown as FormatsPlugin;

const SPEC_ID = 'https://spec.local/openapi.json';
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, logger: false });
addFormats(ajv);
ajv.addSchema({ ...bundledSpec(), $id: SPEC_ID }, SPEC_ID);
const validators = new Map<string, ValidateFunction>();
function expectSchema(name: string, value: unknown): void {
  let v = validators.get(name);
  if (!v) {
    v = ajv.compile({ $ref: `${SPEC_ID}#/components/schemas/${name}` });
    validators.set(name, v);
  }
  const ok = v(value);
  expect(ok ? [] : v.errors, `${name}: ${JSON.stringify(value).slice(0, 400)}`).toEqual([]);
}

const TOKEN = 'admin-token-for-conversation-tests';
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A page of any list (the conversations' or a conversation's messages), as `all` follows it. */
interface Page<T> {
  data: T[];
  next_cursor: SchemaNextCursor;
}
/** Who writes to the sandbox: an instagram user or a whatsapp number. */
type Sender = SchemaSandboxInboundRequest['from'];

/** The whole error envelope of a 4xx with a code. */
const errorBody = (context: Record<string, unknown>) => ({ type: 'error', message: expect.any(String), context });
const ids = (items: readonly { id: string }[]) => items.map((i) => i.id);
/** Conversations in the list's order: by `last_message_at`, then id. */
const sortedAsc = (items: readonly SchemaConversation[]) =>
  [...items].sort((a, b) => {
    // Every timestamp has one format (microseconds, Z): the strings sort as the moments do.
    const [x, y] = [a.last_message_at!, b.last_message_at!];
    if (x !== y) return x < y ? -1 : 1;
    return a.id < b.id ? -1 : 1;
  });
/** A query string with every reserved character percent-encoded (RFC 3986), as the format check demands. */
const qs = (query: Record<string, string | number | boolean>) => {
  const encode = (v: string) =>
    encodeURIComponent(v).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const s = Object.entries(query)
    .map(([k, v]) => `${encode(k)}=${encode(String(v))}`)
    .join('&');
  return s ? `?${s}` : '';
};

describe.each(engines)('conversations and messages on %s', (engine) => {
  let t: TestApp;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'ep-conversations-'));
    t = await startTestApp(engine, { env: { ADMIN_TOKEN: TOKEN, SANDBOX_ENABLED: 'true', DATA_DIR: dataDir } });
  });
  afterAll(async () => {
    await t?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  // ------------------------------------------------------------------------------------------------ helpers

  /** An admin API call that must answer `status`; its body. */
  async function admin<T>(method: string, path: string, body: unknown, status: number): Promise<T> {
    const res = await call(t.baseUrl, TOKEN, method, `${ADMIN_PREFIX}${path}`, { body });
    const json = (await res.json()) as T;
    expect(res.status, `${method} ${path}: ${JSON.stringify(json)}`).toBe(status);
    return json;
  }

  let n = 0;
  /** An account (every scope) with an instagram and a whatsapp connection. */
  async function world(caller?: TestCaller) {
    n += 1;
    const me = caller ?? (await t.account());
    const connection = (body: Record<string, unknown>) =>
      admin<SchemaConnection>('POST', `/accounts/${me.accountId}/connections`, body, 201);
    const ig = await connection({ channel: 'instagram', name: 'Loja IG', username: `loja.ig.${n}` });
    const wa = await connection({ channel: 'whatsapp', name: 'Loja WA', phone: `+55119${String(n).padStart(8, '0')}` });
    return { me, ig: ig.id, wa: wa.id };
  }

  let people = 0;
  const igUser = (name = 'Ana Souza'): Sender => {
    people += 1;
    return { instagram_id: `1784${people}`, username: `pessoa.${people}`, name };
  };
  const waUser = (name = 'Bruno Lima'): Sender => {
    people += 1;
    return { phone: `+55119${String(70000000 + people)}`, name };
  };

  /** The contact `from` writes to the connection (a direct message unless `extra` says otherwise). */
  const writes = (connectionId: string, from: Sender, extra: Record<string, unknown> = {}) =>
    admin<SchemaSandboxInboundResult>(
      'POST',
      `/sandbox/connections/${connectionId}/inbound`,
      { from, text: 'Oi! Vocês têm o Runner no 38?', ...extra },
      201,
    );
  const comments = (connectionId: string, from: Sender, text = 'Quanto custa?') =>
    writes(connectionId, from, { type: 'comment', text, post: { id: '18034567891234567', type: 'feed' } });
  const story = (type: 'story_message' | 'story_mention') => ({ type, post: { id: '18099999', type: 'story' } });

  /** Reads (`read: true`) or marks (`unread`) the conversation as the console does; the conversation after. */
  const consoleChanges = (conversationId: string, change: { read?: true; unread?: boolean }) =>
    admin<SchemaConversation>('PATCH', `/sandbox/conversations/${conversationId}`, change, 200);

  /** Sends with the public route (201); the sent message. */
  async function send(me: TestCaller, conversationId: string, body: unknown): Promise<SchemaMessage> {
    const res = await me.call('POST', `/v1/conversations/${conversationId}/messages`, {
      body,
      headers: { 'Idempotency-Key': randomUUID() },
    });
    const json = (await res.json()) as SchemaMessage;
    expect(res.status, JSON.stringify(json)).toBe(201);
    return json;
  }

  async function getOk<T>(me: TestCaller, path: string): Promise<T> {
    const res = await me.call('GET', path);
    const json = (await res.json()) as T;
    expect(res.status, `${path}: ${JSON.stringify(json)}`).toBe(200);
    return json;
  }
  const conversation = (me: TestCaller, id: string) => getOk<SchemaConversation>(me, `/v1/conversations/${id}`);
  const message = (me: TestCaller, id: string) => getOk<SchemaMessage>(me, `/v1/messages/${id}`);
  const list = (me: TestCaller, query: Record<string, string | number | boolean> = {}) =>
    getOk<SchemaConversationList>(me, `/v1/conversations${qs(query)}`);
  const messages = (me: TestCaller, id: string, query: Record<string, string | number | boolean> = {}) =>
    getOk<SchemaMessageList>(me, `/v1/conversations/${id}/messages${qs(query)}`);

  /** Every page of a list, following next_cursor with the same query. */
  async function all<T>(read: (query: Record<string, string | number | boolean>) => Promise<Page<T>>, query = {}) {
    const out: T[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 100; i++) {
      const page: Page<T> = await read(cursor ? { ...query, cursor } : query);
      out.push(...page.data);
      cursor = page.next_cursor;
      if (!cursor) return out;
    }
    throw new Error('too many pages');
  }

  /** A 400 of the format check: no code, the fault in `context.details`. */
  async function expectBadRequest(res: Response, what: string, location: 'query' | 'path') {
    const body = (await res.json()) as ErrorBody;
    expect(res.status, `${what}: ${JSON.stringify(body)}`).toBe(400);
    expect(body).toEqual({
      type: 'error',
      message: expect.any(String),
      context: { details: expect.arrayContaining([expect.objectContaining({ location })]) },
    });
    for (const detail of body.context.details as unknown[])
      expect(detail, what).toEqual({
        location: expect.any(String),
        path: expect.anything(),
        message: expect.any(String),
      });
  }

  const tick = (ms = SECOND) => t.clock.advance(ms);

  // ------------------------------------------------------------------------------------- one per contact

  describe('conversations', () => {
    it('are one per contact on its channel; the same person on two channels has two with one person_id', async () => {
      const { me, ig, wa } = await world();
      const ana = igUser('Ana Souza');
      const first = await writes(ig, ana);
      tick();
      const second = await writes(ig, ana, { text: 'Ou no 39?' });
      expect(first.contact_created).toBe(true);
      expect(second.contact_created).toBe(false);
      expect(second.message.conversation_id).toBe(first.message.conversation_id);
      expect(second.conversation.id).toBe(first.conversation.id);

      const anaWa = await writes(wa, waUser('Ana Souza'));
      expect(anaWa.conversation.id).not.toBe(first.conversation.id);
      await admin('POST', `/sandbox/contacts/${first.contact.id}/same-person`, { contact_id: anaWa.contact.id }, 200);

      const page = await list(me);
      expect(page.next_cursor).toBeNull();
      expect(page.data).toHaveLength(2);
      const onIg = page.data.find((c) => c.channel.type === 'instagram')!;
      const onWa = page.data.find((c) => c.channel.type === 'whatsapp')!;
      expect(onIg).toMatchObject({
        id: first.conversation.id,
        contact: { id: first.contact.id, name: 'Ana Souza' },
        channel: { type: 'instagram', connection_id: ig },
        last_message_at: second.message.created_at,
        unread: true,
      });
      expect(onWa).toMatchObject({
        id: anaWa.conversation.id,
        contact: { id: anaWa.contact.id },
        channel: { type: 'whatsapp', connection_id: wa },
      });
      expect(onIg.person_id).toBe(onWa.person_id);
      expect(onIg.created_at).toBe(first.conversation.created_at);
      for (const c of page.data) {
        expectSchema('Conversation', c);
        expect(await conversation(me, c.id)).toEqual(c);
      }
      expectSchema('ConversationList', page);
    });

    it('a contact who only commented has none in the list, but GET by id reads it; a story reply brings it in', async () => {
      const { me, ig } = await world();
      const carla = igUser('Carla Dias');
      const comment = await comments(ig, carla);
      tick();
      const live = await writes(ig, carla, { type: 'live_comment', post: { id: '1809', type: 'live' } });
      expect(live.conversation.id).toBe(comment.conversation.id);
      const other = await writes(ig, igUser('Davi Reis'));

      expect(ids((await list(me)).data)).toEqual([other.conversation.id]);
      const got = await conversation(me, comment.conversation.id);
      expect(got).toEqual({
        id: comment.conversation.id,
        contact: { id: comment.contact.id, name: 'Carla Dias' },
        person_id: comment.contact.person_id,
        channel: { type: 'instagram', connection_id: ig },
        last_message_at: live.message.created_at,
        unread: true,
        reply_window: { state: 'closed', closes_at: null },
        created_at: comment.conversation.created_at,
      });
      expectSchema('Conversation', got);
      // Its messages read by the conversation id, taken from a message.
      expect(ids((await messages(me, comment.message.conversation_id)).data)).toEqual([
        live.message.id,
        comment.message.id,
      ]);

      tick();
      const reply = await writes(ig, carla, { ...story('story_message'), text: 'Amei!' });
      expect(ids((await list(me)).data)).toEqual([comment.conversation.id, other.conversation.id]);
      expect((await conversation(me, comment.conversation.id)).last_message_at).toBe(reply.message.created_at);
    });

    it('one with no message yet reads with last_message_at null and is not listed; its first message brings it in', async () => {
      // POST /v1/contacts gives the contact its conversation, with no message yet; contact_id finds it.
      const { me, wa } = await world();
      const res = await me.call('POST', '/v1/contacts', {
        body: { phone: '+5511988887777', name: 'Elisa', connection_id: wa, consent: true },
      });
      expect(res.status).toBe(201);
      const contact = (await res.json()) as SchemaContact;
      const found = await list(me, { contact_id: contact.id });
      expect(found.next_cursor).toBeNull();
      expect(found.data).toHaveLength(1);
      const id = found.data[0]!.id;
      const got = await conversation(me, id);
      expect(got).toEqual({
        id,
        contact: { id: contact.id, name: 'Elisa' },
        person_id: contact.person_id,
        channel: { type: 'whatsapp', connection_id: wa },
        last_message_at: null,
        unread: false,
        reply_window: { state: 'closed', closes_at: null },
        created_at: expect.any(String),
      });
      expectSchema('Conversation', got);
      expect((await list(me)).data).toEqual([]);
      expect(await messages(me, id)).toEqual({ data: [], next_cursor: null });

      // The contact writes: the same conversation, now in the list.
      tick();
      const reply = await writes(wa, { phone: '+5511988887777', name: 'Elisa' }, { text: 'Oi!' });
      expect(reply.conversation.id).toBe(id);
      expect(ids((await list(me)).data)).toEqual([id]);
    });

    it('a conversation whose first message is a sent template is listed', async () => {
      const { me, wa } = await world();
      const created = await me.call('POST', '/v1/contacts', {
        body: { phone: '+5511977776666', name: 'Fabio', connection_id: wa, consent: true },
      });
      expect(created.status).toBe(201);
      const contact = (await created.json()) as SchemaContact;
      const row = (await list(me, { contact_id: contact.id })).data[0]!;
      await admin(
        'POST',
        `/accounts/${me.accountId}/templates`,
        { connection_id: wa, name: 'welcome', language: 'pt_BR', body: 'Olá {{1}}!' },
        201,
      );
      const sent = await send(me, row.id, {
        template: { name: 'welcome', language: 'pt_BR', body_variables: ['Fabio'] },
      });
      expect(sent.text).toBe('Olá Fabio!');
      expect((await conversation(me, row.id)).last_message_at).toBe(sent.created_at);
      expect(ids((await list(me)).data)).toEqual([row.id]);
    });

    it("contact_id finds a contact's one conversation, listed or not; the other filters still apply; one page", async () => {
      const { me, ig } = await world();
      const commenter = igUser();
      const comment = await comments(ig, commenter);
      // Left out of the list (only commented), found by its contact.
      expect(ids((await list(me)).data)).not.toContain(comment.conversation.id);
      const found = await list(me, { contact_id: comment.contact.id });
      expect(found).toEqual({ data: [await conversation(me, comment.conversation.id)], next_cursor: null });
      expectSchema('ConversationList', found);
      // Filters combine with it.
      expect((await list(me, { contact_id: comment.contact.id, channel: 'whatsapp' })).data).toEqual([]);
      expect((await list(me, { contact_id: comment.contact.id, channel: 'instagram' })).data).toHaveLength(1);
      expect(
        (await list(me, { contact_id: comment.contact.id, last_message_after: comment.message.created_at })).data,
      ).toEqual([]);
      // An unknown contact, or another account's: an empty page.
      expect(await list(me, { contact_id: randomUUID() })).toEqual({ data: [], next_cursor: null });
      const other = await world();
      expect((await list(other.me, { contact_id: comment.contact.id })).data).toEqual([]);
      // No cursor is ever issued for it; one from the plain list does not fit.
      const plain = await list(me, { limit: 1 });
      const withCursor = await me.call(
        'GET',
        `/v1/conversations${qs({ contact_id: comment.contact.id, cursor: plain.next_cursor ?? 'AAAA' })}`,
      );
      expect(withCursor.status).toBe(400);
      expect(((await withCursor.json()) as ErrorBody).context.code).toBe('invalid_cursor');
      // Not a uuid: the format check.
      expect((await me.call('GET', '/v1/conversations?contact_id=nope')).status).toBe(400);
    });

    it("are 404 not_found when missing or another account's, like their messages", async () => {
      const a = await world();
      const b = await world();
      const theirs = await writes(b.ig, igUser());
      const missing = randomUUID();
      const notFound = { code: 'not_found' };
      for (const path of [
        `/v1/conversations/${missing}`,
        `/v1/conversations/${missing}/messages`,
        `/v1/messages/${missing}`,
        `/v1/conversations/${theirs.conversation.id}`,
        `/v1/conversations/${theirs.conversation.id}/messages`,
        `/v1/messages/${theirs.message.id}`,
      ])
        await expectError(await a.me.call('GET', path), 404, notFound);
      // A message id is no conversation id, nor the reverse.
      await expectError(await b.me.call('GET', `/v1/conversations/${theirs.message.id}`), 404, notFound);
      await expectError(await b.me.call('GET', `/v1/messages/${theirs.conversation.id}`), 404, notFound);
      // Malformed ids fail the format check.
      await expectBadRequest(await a.me.call('GET', '/v1/conversations/not-a-uuid'), 'conversation id', 'path');
      await expectBadRequest(
        await a.me.call('GET', '/v1/conversations/not-a-uuid/messages'),
        'conversation id',
        'path',
      );
      await expectBadRequest(await a.me.call('GET', '/v1/messages/not-a-uuid'), 'message id', 'path');
      // The owner reads them.
      expect((await conversation(b.me, theirs.conversation.id)).id).toBe(theirs.conversation.id);
      expect((await message(b.me, theirs.message.id)).id).toBe(theirs.message.id);
    });
  });

  // ----------------------------------------------------------------------------------------------- the list

  describe('the list', () => {
    it('is ordered by last_message_at then id: desc by default, asc on request; pages concatenate', async () => {
      const { me, ig, wa } = await world();
      const made: string[] = [];
      const senders: Sender[] = [];
      const make = async (connectionId: string, from: Sender) => {
        senders.push(from);
        made.push((await writes(connectionId, from)).conversation.id);
      };
      for (const w of [ig, wa, ig]) {
        await make(w, w === ig ? igUser() : waUser());
        tick();
      }
      // Two conversations sharing one last_message_at: the id breaks the tie.
      await make(ig, igUser());
      await make(wa, waUser());
      tick();
      // The oldest conversation receives a message: it moves to the front.
      await writes(ig, senders[0]!);

      const desc = await list(me);
      const asc = await list(me, { order: 'asc' });
      expect(desc.data).toHaveLength(5);
      expect(ids(asc.data)).toEqual(ids(sortedAsc(desc.data)));
      expect(ids(desc.data)).toEqual(ids(sortedAsc(desc.data)).reverse());
      expect(ids((await list(me, { order: 'desc' })).data)).toEqual(ids(desc.data));
      expect(desc.data[0]!.id).toBe(made[0]);
      expect(ids(asc.data).slice(0, 2)).toEqual([made[1], made[2]]);
      const [tieA, tieB] = asc.data.slice(2, 4);
      expect(tieA!.last_message_at).toBe(tieB!.last_message_at);
      expect(tieA!.id < tieB!.id).toBe(true);

      for (const order of ['asc', 'desc'] as const)
        for (const limit of [1, 2]) {
          const pages = await all((q) => list(me, q), { order, limit });
          expect(ids(pages), `${order} limit ${limit}`).toEqual(ids(order === 'asc' ? asc.data : desc.data));
        }
    });

    it('filters by channel, unread and last_message_after (strict), and the filters combine', async () => {
      const { me, ig, wa } = await world();
      const igOld = await writes(ig, igUser());
      tick();
      const waOld = await writes(wa, waUser());
      tick();
      const igNew = await writes(ig, igUser());
      tick();
      const igNewRead = await writes(ig, igUser());
      await consoleChanges(igNewRead.conversation.id, { read: true });
      tick();
      const waNew = await writes(wa, waUser());

      const got = async (query: Record<string, string | boolean>) => ids((await list(me, query)).data).sort();
      const sorted = (...rs: SchemaSandboxInboundResult[]) => rs.map((r) => r.conversation.id).sort();

      expect(await got({ channel: 'instagram' })).toEqual(sorted(igOld, igNew, igNewRead));
      expect(await got({ channel: 'whatsapp' })).toEqual(sorted(waOld, waNew));
      expect(await got({ unread: true })).toEqual(sorted(igOld, waOld, igNew, waNew));
      expect(await got({ unread: false })).toEqual(sorted(igNewRead));
      // Strict: the conversation whose last message is exactly that moment is left out.
      const after = waOld.message.created_at;
      expect(await got({ last_message_after: after })).toEqual(sorted(igNew, igNewRead, waNew));
      expect(await got({ last_message_after: igOld.message.created_at })).toEqual(
        sorted(waOld, igNew, igNewRead, waNew),
      );
      expect(await got({ channel: 'instagram', unread: true, last_message_after: after })).toEqual(sorted(igNew));
      expect(await got({ channel: 'instagram', unread: false, last_message_after: after })).toEqual(sorted(igNewRead));
      expect(await got({ channel: 'whatsapp', unread: true, last_message_after: after })).toEqual(sorted(waNew));
      expect(await got({ channel: 'whatsapp', unread: false })).toEqual([]);
      // A moment in another offset is the same moment.
      const shifted = new Date(Date.parse(waNew.message.created_at) - SECOND / 2).toISOString().replace('Z', '+00:00');
      expect(await got({ last_message_after: shifted })).toEqual(sorted(waNew));
      // Filters keep the order.
      const asc = await list(me, { order: 'asc', channel: 'instagram' });
      expect(ids(asc.data)).toEqual([igOld, igNew, igNewRead].map((r) => r.conversation.id));
    });

    it('unread: contact messages not read or a console mark; a read or a send clears it, a new message sets it', async () => {
      const { me, ig } = await world();
      const ana = igUser();
      const first = await writes(ig, ana);
      const id = first.conversation.id;
      const inUnread = async () => ids((await list(me, { unread: true })).data).includes(id);
      const inRead = async () => ids((await list(me, { unread: false })).data).includes(id);
      const state = async () => ({
        unread: (await conversation(me, id)).unread,
        lists: [await inUnread(), await inRead()],
      });

      expect(first.conversation.unread).toBe(true);
      expect(await state()).toEqual({ unread: true, lists: [true, false] });

      tick();
      expect((await consoleChanges(id, { read: true })).unread).toBe(false);
      expect(await state()).toEqual({ unread: false, lists: [false, true] });
      expect((await message(me, first.message.id)).read_at).toEqual(expect.any(String));

      // Marked unread counts, with every message read.
      expect((await consoleChanges(id, { unread: true })).unread).toBe(true);
      expect(await state()).toEqual({ unread: true, lists: [true, false] });
      expect((await consoleChanges(id, { unread: false })).unread).toBe(false);
      expect(await state()).toEqual({ unread: false, lists: [false, true] });

      tick();
      const second = await writes(ig, ana, { text: 'Alguém aí?' });
      expect(await state()).toEqual({ unread: true, lists: [true, false] });
      // Clearing the mark leaves unread contact messages unread.
      await consoleChanges(id, { unread: false });
      expect(await state()).toEqual({ unread: true, lists: [true, false] });

      // A send reads what the contact sent and clears the mark.
      await consoleChanges(id, { unread: true });
      tick();
      const sent = await send(me, id, { text: 'Temos sim!' });
      expect(await state()).toEqual({ unread: false, lists: [false, true] });
      expect((await message(me, second.message.id)).read_at).toBe(sent.created_at);
      expect(sent.read_at).toBeNull();
    });

    it('reading, marking, a status change, an edit and a reaction do not move last_message_at', async () => {
      const { me, ig, wa } = await world();
      const ana = igUser();
      const igIn = await writes(ig, ana);
      tick();
      const igOut = await send(me, igIn.conversation.id, { text: 'Temos!' });
      const waIn = await writes(wa, waUser());
      tick();
      const waOut = await send(me, waIn.conversation.id, { text: 'Olá!' });
      tick();
      const latest = await writes(ig, igUser());

      const before = await list(me);
      const lastOf = async (id: string) => (await conversation(me, id)).last_message_at;
      expect(await lastOf(igIn.conversation.id)).toBe(igOut.created_at);

      const steps: [string, () => Promise<unknown>][] = [
        ['read', () => consoleChanges(igIn.conversation.id, { read: true })],
        ['mark unread', () => consoleChanges(igIn.conversation.id, { unread: true })],
        ['edit', () => admin('PATCH', `/sandbox/messages/${igIn.message.id}`, { text: 'No 39?' }, 200)],
        ['contact reaction', () => admin('PUT', `/sandbox/messages/${igOut.id}/reaction`, { emoji: '❤️' }, 200)],
        ['reaction removed', () => admin('DELETE', `/sandbox/messages/${igOut.id}/reaction`, undefined, 200)],
        ['reaction', () => admin('PUT', `/sandbox/messages/${igIn.message.id}/reaction`, { emoji: '👍' }, 200)],
        ['failed', () => admin('POST', `/sandbox/messages/${waOut.id}/failure`, { provider_code: '131026' }, 200)],
      ];
      for (const [what, step] of steps) {
        tick(MINUTE);
        await step();
        expect(await lastOf(igIn.conversation.id), what).toBe(igOut.created_at);
        expect(await lastOf(waIn.conversation.id), what).toBe(waOut.created_at);
        expect(ids((await list(me)).data), what).toEqual(ids(before.data));
        expect(ids((await list(me, { last_message_after: latest.message.created_at })).data), what).toEqual([]);
      }
      const edited = await message(me, igIn.message.id);
      expect(edited).toMatchObject({ text: 'No 39?', is_edited: true });
      expect(edited.reactions).toEqual([{ emoji: '👍', by: 'contact', created_at: expect.any(String) }]);
      expect((await message(me, igOut.id)).reactions).toEqual([]);
      expect(await message(me, waOut.id)).toMatchObject({
        status: 'failed',
        failure: { failed_at: expect.any(String), provider_code: '131026', provider_message: null },
      });
    });

    it('sync: a conversation that receives a message while a client pages goes to the end and is read once', async () => {
      const { me, ig } = await world();
      const people = [igUser('A'), igUser('B'), igUser('C')];
      const made: SchemaSandboxInboundResult[] = [];
      for (const p of people) {
        made.push(await writes(ig, p));
        tick();
      }
      const [convA, convB, convC] = made.map((r) => r.conversation.id);
      const query = { order: 'asc', limit: 1 } as const;

      const seen: string[] = [];
      let page = await list(me, query);
      seen.push(...ids(page.data));
      // B, not read yet, receives a message: it leaves its place and goes to the end.
      await writes(ig, people[1]!, { text: 'Mais uma coisa' });
      tick();
      page = await list(me, { ...query, cursor: page.next_cursor! });
      seen.push(...ids(page.data));
      // A, already read, receives a message: the client meets it again further on.
      await writes(ig, people[0]!, { text: 'E a entrega?' });
      tick();
      while (page.next_cursor) {
        page = await list(me, { ...query, cursor: page.next_cursor });
        seen.push(...ids(page.data));
      }
      expect(seen).toEqual([convA, convC, convB, convA]);
    });

    it('cursors are bound to their order, filters and list: anything else is 400 invalid_cursor', async () => {
      const { me, ig, wa } = await world();
      for (let i = 0; i < 3; i++) {
        await writes(ig, igUser());
        await writes(wa, waUser());
        tick();
      }
      const carla = igUser();
      const conv = await writes(ig, carla);
      await writes(ig, carla, { text: 'Segunda mensagem' });
      const after = new Date(t.clock.now().getTime() - DAY).toISOString();
      const base = { order: 'asc', channel: 'instagram', unread: true, last_message_after: after, limit: 1 };
      const first = await list(me, base);
      const cursor = first.next_cursor!;
      expect(cursor).toEqual(expect.any(String));
      // The same query takes it.
      expect((await list(me, { ...base, cursor })).data).toHaveLength(1);

      const invalid = { code: 'invalid_cursor' };
      const variants: Record<string, Record<string, string | number | boolean>> = {
        'another order': { ...base, order: 'desc' },
        'the default order': (({ order: _o, ...rest }) => rest)(base),
        'another channel': { ...base, channel: 'whatsapp' },
        'no channel': (({ channel: _c, ...rest }) => rest)(base),
        'unread false': { ...base, unread: false },
        'no unread': (({ unread: _u, ...rest }) => rest)(base),
        'another last_message_after': {
          ...base,
          last_message_after: new Date(t.clock.now().getTime() - 2 * DAY).toISOString(),
        },
        'no last_message_after': (({ last_message_after: _l, ...rest }) => rest)(base),
      };
      for (const [what, query] of Object.entries(variants)) {
        const res = await me.call('GET', `/v1/conversations${qs({ ...query, cursor })}`);
        const body = (await res.json()) as ErrorBody;
        expect(res.status, what).toBe(400);
        expect(body, what).toEqual(errorBody(invalid));
      }
      // Another limit is the same list.
      expect((await list(me, { ...base, limit: 5, cursor })).data.length).toBeGreaterThan(0);

      // A messages cursor is no conversations cursor, nor the reverse; another account's cursor is refused.
      const msgCursor = (await messages(me, conv.conversation.id, { limit: 1 })).next_cursor;
      expect(msgCursor).toEqual(expect.any(String));
      await expectError(await me.call('GET', `/v1/conversations${qs({ cursor: msgCursor! })}`), 400, invalid);
      const plain = (await list(me, { limit: 1 })).next_cursor!;
      await expectError(
        await me.call('GET', `/v1/conversations/${conv.conversation.id}/messages${qs({ cursor: plain })}`),
        400,
        invalid,
      );
      const other = await world();
      await writes(other.ig, igUser());
      await expectError(await other.me.call('GET', `/v1/conversations${qs({ cursor: plain })}`), 400, invalid);
      // A changed byte fails the signature.
      const tampered = plain.slice(0, -2) + (plain.endsWith('A') ? 'B' : 'A') + plain.slice(-1);
      await expectError(await me.call('GET', `/v1/conversations${qs({ cursor: tampered })}`), 400, invalid);
      await expectError(await me.call('GET', `/v1/conversations${qs({ cursor: 'bm90LWEtY3Vyc29y' })}`), 400, invalid);
    });

    it('limit is 1 to 100, 50 by default', async () => {
      const { me, ig } = await world();
      for (let i = 0; i < 51; i++) await writes(ig, igUser());
      const first = await list(me);
      expect(first.data).toHaveLength(50);
      expect(first.next_cursor).toEqual(expect.any(String));
      const rest = await list(me, { cursor: first.next_cursor! });
      expect(rest.data).toHaveLength(1);
      expect(rest.next_cursor).toBeNull();
      expect(new Set([...ids(first.data), ...ids(rest.data)]).size).toBe(51);
      const hundred = await list(me, { limit: 100 });
      expect(hundred.data).toHaveLength(51);
      expect(hundred.next_cursor).toBeNull();
      expect(ids(hundred.data)).toEqual([...ids(first.data), ...ids(rest.data)]);
      const one = await list(me, { limit: 1 });
      expect(one.data).toHaveLength(1);
    });

    it('invalid query values are 400 with details', async () => {
      const { me } = await world();
      const bad: Record<string, string> = {
        'limit=0': 'limit=0',
        'limit=101': 'limit=101',
        'limit=-1': 'limit=-1',
        'limit=1.5': 'limit=1.5',
        'limit=abc': 'limit=abc',
        'order=newest': 'order=newest',
        'order=ASC': 'order=ASC',
        'channel=sms': 'channel=sms',
        'unread=1': 'unread=1',
        'unread=yes': 'unread=yes',
        'unread=': 'unread=',
        'last_message_after=yesterday': 'last_message_after=yesterday',
        'last_message_after=2026-13-01': 'last_message_after=2026-13-01T00%3A00%3A00Z',
        'last_message_after=30 February': 'last_message_after=2026-02-30T00%3A00%3A00Z',
        'last_message_after at hour 29': 'last_message_after=2026-01-01T29%3A00%3A00Z',
        'last_message_after=+23:00': 'last_message_after=2026-01-01T00%3A00%3A00%2B23%3A00',
        'empty cursor': 'cursor=',
        'unknown parameter': 'page=2',
        'created_after here': 'created_after=2026-01-01T00%3A00%3A00Z',
      };
      for (const [what, query] of Object.entries(bad))
        await expectBadRequest(await me.call('GET', `/v1/conversations?${query}`), what, 'query');
    });
  });

  // --------------------------------------------------------------------------------------- reply window

  describe('the reply window', () => {
    it('opens with a direct message for 24 hours from it, closes when the clock passes, and a comment does not open it', async () => {
      const { me, ig, wa } = await world();
      const ana = igUser();
      const comment = await comments(ig, ana);
      expect(comment.conversation.reply_window).toEqual({ state: 'closed', closes_at: null });
      const id = comment.conversation.id;
      expect((await conversation(me, id)).reply_window).toEqual({ state: 'closed', closes_at: null });

      // A story reply is a direct message: it opens the window, 24 hours from its created_at (the channel's
      // time, here two minutes back, to the microsecond).
      const at = new Date(t.clock.now().getTime() - 2 * MINUTE).toISOString().replace('Z', '457Z');
      const reply = await writes(ig, ana, { ...story('story_message'), created_at: at });
      expect(reply.message.created_at).toBe(at);
      const closesAt = Date.parse(at) + DAY;
      const open = await conversation(me, id);
      expect(open.reply_window).toEqual({
        state: 'open',
        closes_at: new Date(closesAt).toISOString().replace('Z', '457Z'),
      });
      expect(reply.conversation.reply_window).toEqual(open.reply_window);

      // A later comment moves last_message_at but not the window.
      tick(HOUR);
      const later = await comments(ig, ana, 'E o frete?');
      const afterComment = await conversation(me, id);
      expect(afterComment.last_message_at).toBe(later.message.created_at);
      expect(afterComment.reply_window).toEqual(open.reply_window);

      // Just before the end it is open (closes_at lies 457 µs after the last whole millisecond); once past
      // it, closed, with closes_at in the past.
      t.clock.set(new Date(closesAt - 1));
      expect((await conversation(me, id)).reply_window.state).toBe('open');
      t.clock.advance(1);
      expect((await conversation(me, id)).reply_window.state).toBe('open');
      t.clock.advance(1);
      const closed = await conversation(me, id);
      expect(closed.reply_window).toEqual({ state: 'closed', closes_at: open.reply_window.closes_at });
      expect((await list(me)).data.find((c) => c.id === id)!.reply_window.state).toBe('closed');
      // The send agrees: the window is closed.
      const refused = await me.call('POST', `/v1/conversations/${id}/messages`, {
        body: { text: 'Oi' },
        headers: { 'Idempotency-Key': randomUUID() },
      });
      expect(refused.status).toBe(422);

      // A comment after it closed does not reopen it; a direct message does, from its own time.
      tick(MINUTE);
      await comments(ig, ana, 'Ainda tem?');
      expect((await conversation(me, id)).reply_window.state).toBe('closed');
      tick(MINUTE);
      const dm = await writes(ig, ana);
      const reopened = await conversation(me, id);
      expect(reopened.reply_window.state).toBe('open');
      expect(Date.parse(reopened.reply_window.closes_at!)).toBe(Date.parse(dm.message.created_at) + DAY);

      // A story mention and a button tap count too (whatsapp: a plain message).
      const mention = await writes(ig, igUser(), { ...story('story_mention'), text: 'olha só' });
      expect(mention.conversation.reply_window.state).toBe('open');
      const bruno = await writes(wa, waUser());
      const sent = await send(me, bruno.conversation.id, {
        text: 'Qual tamanho?',
        buttons: [
          { type: 'reply', id: 'size_38', title: '38' },
          { type: 'reply', id: 'size_39', title: '39' },
        ],
      });
      tick(20 * HOUR);
      const tap = await admin<SchemaSandboxButtonTapResult>(
        'POST',
        `/sandbox/messages/${sent.id}/button-taps`,
        { button_id: 'size_39' },
        201,
      );
      const tapped = await conversation(me, bruno.conversation.id);
      expect(Date.parse(tapped.reply_window.closes_at!)).toBe(Date.parse(tap.message.created_at) + DAY);
      tick(5 * HOUR);
      expect((await conversation(me, bruno.conversation.id)).reply_window.state).toBe('open');
      expect((await conversation(me, id)).reply_window.state).toBe('closed');
    });
  });

  // -------------------------------------------------------------------------------------------- messages

  describe('messages', () => {
    it('lists every type, each with `type`: desc by default, asc on request, created_after strict', async () => {
      const { me, ig } = await world();
      const ana = igUser('Ana Souza');
      const made: SchemaMessage[] = [];
      made.push((await comments(ig, ana)).message);
      tick();
      made.push((await writes(ig, ana, { type: 'live_comment', post: { id: '1809', type: 'live' } })).message);
      tick();
      made.push((await writes(ig, ana, { ...story('story_message'), text: 'Que lindo!' })).message);
      tick();
      made.push((await writes(ig, ana, { ...story('story_mention'), text: 'olha' })).message);
      tick();
      made.push((await writes(ig, ana)).message);
      tick();
      const out = await send(me, made[0]!.conversation_id, {
        text: 'Qual cor?',
        buttons: [{ type: 'reply', id: 'color_blue', title: 'Azul' }],
      });
      made.push(out);
      tick();
      made.push(
        (
          await admin<SchemaSandboxButtonTapResult>(
            'POST',
            `/sandbox/messages/${out.id}/button-taps`,
            { button_id: 'color_blue' },
            201,
          )
        ).message,
      );
      tick();
      made.push((await writes(ig, ana, { is_unsupported: true, text: undefined })).message);
      const id = made[0]!.conversation_id;

      const desc = await messages(me, id);
      expect(desc.next_cursor).toBeNull();
      expect(ids(desc.data)).toEqual(ids(made).reverse());
      expect(desc.data.map((m) => m.type)).toEqual(
        [
          'comment',
          'live_comment',
          'story_message',
          'story_mention',
          'message',
          'message',
          'message',
          'message',
        ].reverse(),
      );
      expectSchema('MessageList', desc);
      for (const m of desc.data) {
        expectSchema('Message', m);
        expect(m.conversation_id).toBe(id);
        expect(await message(me, m.id)).toEqual(m);
      }
      expect(ids((await messages(me, id, { order: 'desc' })).data)).toEqual(ids(made).reverse());
      const asc = await messages(me, id, { order: 'asc' });
      expect(ids(asc.data)).toEqual(ids(made));

      // created_after is strict.
      expect(ids((await messages(me, id, { order: 'asc', created_after: made[3]!.created_at })).data)).toEqual(
        ids(made.slice(4)),
      );
      expect(ids((await messages(me, id, { created_after: made[6]!.created_at })).data)).toEqual([made[7]!.id]);
      expect((await messages(me, id, { created_after: made[7]!.created_at })).data).toEqual([]);

      // Pages concatenate in both orders.
      for (const order of ['asc', 'desc'] as const) {
        const pages = await all((q) => messages(me, id, q), { order, limit: 3 });
        expect(ids(pages), order).toEqual(order === 'asc' ? ids(made) : ids(made).reverse());
      }
      const sinceFourth = await all((q) => messages(me, id, q), { created_after: made[3]!.created_at, limit: 1 });
      expect(ids(sinceFourth)).toEqual(ids(made.slice(4)).reverse());
    });

    it('messages sharing created_at are ordered by id', async () => {
      const { me, ig } = await world();
      const ana = igUser();
      const made: SchemaMessage[] = [];
      for (let i = 0; i < 4; i++) made.push((await writes(ig, ana, { text: `m${i}` })).message);
      expect(new Set(made.map((m) => m.created_at)).size).toBe(1);
      const byId = ids(made).sort();
      const id = made[0]!.conversation_id;
      expect(ids((await messages(me, id, { order: 'asc' })).data)).toEqual(byId);
      expect(ids((await messages(me, id)).data)).toEqual([...byId].reverse());
      expect(ids(await all((q) => messages(me, id, q), { order: 'asc', limit: 1 }))).toEqual(byId);
    });

    it('the messages cursor is bound to its conversation, order and created_after; limit 1 to 100, 50 by default', async () => {
      const { me, ig } = await world();
      const ana = igUser();
      const first = await writes(ig, ana);
      const id = first.conversation.id;
      for (let i = 0; i < 50; i++) {
        tick();
        await writes(ig, ana, { text: `mensagem ${i}` });
      }
      const other = await writes(ig, igUser());

      const page = await messages(me, id);
      expect(page.data).toHaveLength(50);
      expect(page.next_cursor).toEqual(expect.any(String));
      const rest = await messages(me, id, { cursor: page.next_cursor! });
      expect(ids(rest.data)).toEqual([first.message.id]);
      expect(rest.next_cursor).toBeNull();
      const hundred = await messages(me, id, { limit: 100 });
      expect(hundred.data).toHaveLength(51);
      expect(hundred.next_cursor).toBeNull();

      const after = first.message.created_at;
      const base = { order: 'asc', created_after: new Date(Date.parse(after) - MINUTE).toISOString(), limit: 2 };
      const cursor = (await messages(me, id, base)).next_cursor!;
      expect((await messages(me, id, { ...base, cursor })).data).toHaveLength(2);
      const invalid = { code: 'invalid_cursor' };
      const variants: Record<string, string> = {
        'another conversation': `/v1/conversations/${other.conversation.id}/messages${qs({ ...base, cursor })}`,
        'another order': `/v1/conversations/${id}/messages${qs({ ...base, order: 'desc', cursor })}`,
        'another created_after': `/v1/conversations/${id}/messages${qs({ ...base, created_after: after, cursor })}`,
        'no created_after': `/v1/conversations/${id}/messages${qs({ order: 'asc', cursor })}`,
        'the conversations list': `/v1/conversations${qs({ order: 'asc', cursor })}`,
      };
      for (const [what, path] of Object.entries(variants)) {
        const res = await me.call('GET', path);
        expect(res.status, what).toBe(400);
        expect(await res.json(), what).toEqual(errorBody(invalid));
      }

      const bad: Record<string, string> = {
        'limit=0': 'limit=0',
        'limit=101': 'limit=101',
        'limit=x': 'limit=x',
        'order=oldest': 'order=oldest',
        'created_after=today': 'created_after=today',
        'created_after=2026-13-01': 'created_after=2026-13-01T00%3A00%3A00Z',
        'created_after=30 February': 'created_after=2026-02-30T10%3A00%3A00Z',
        'created_after=+23:00': 'created_after=2026-01-01T00%3A00%3A00%2B23%3A00',
        'unknown parameter': 'unread=true',
        'empty cursor': 'cursor=',
      };
      for (const [what, query] of Object.entries(bad))
        await expectBadRequest(await me.call('GET', `/v1/conversations/${id}/messages?${query}`), what, 'query');
    });

    it('read back in the shape of the spec: senders, buttons as one card, templates filled in, removed and unsupported', async () => {
      const { me, ig, wa } = await world();
      const ana = igUser('Ana Souza');
      const photo = await writes(ig, ana, {
        text: 'Esse aqui',
        attachment: { type: 'image', content_type: 'image/jpeg', size: 2048, filename: 'foto.jpg' },
      });
      expect(photo.message).toMatchObject({
        type: 'message',
        direction: 'inbound',
        status: 'received',
        sender: { type: 'contact', user_id: null, name: 'Ana Souza', workflow_id: null, api_key_id: null },
        channel: { type: 'instagram', connection_id: ig },
        contact_id: photo.contact.id,
        text: 'Esse aqui',
        template: null,
        button: null,
        post: null,
        failure: null,
        read_at: null,
        is_removed: false,
        is_edited: false,
        is_unsupported: false,
        reactions: [],
      });
      const image = firstMedia(photo.message);
      expect(image).toMatchObject({ type: 'image', content_type: 'image/jpeg', size: 2048, filename: 'foto.jpg' });
      expect(image.url).toBe(`${t.baseUrl}/v1/media/${image.media_id}/content`);
      expect(await message(me, photo.message.id)).toEqual(photo.message);

      // Text with reply and link buttons: one card whose title is the text, text null.
      const conv = photo.conversation.id;
      tick();
      const buttons = await send(me, conv, {
        text: 'Qual cor você prefere?',
        buttons: [
          { type: 'reply', id: 'color_black', title: 'Preto' },
          { type: 'reply', id: 'color_blue', title: 'Azul' },
          { type: 'open_url', title: 'Ver na loja', url: 'https://loja.example.com/tenis/runner' },
        ],
      });
      expect(buttons).toMatchObject({
        conversation_id: conv,
        contact_id: photo.contact.id,
        type: 'message',
        direction: 'outbound',
        status: 'sent',
        sender: { type: 'api', user_id: null, workflow_id: null, api_key_id: me.keyId },
        text: null,
        template: null,
        read_at: null,
      });
      expect(buttons.attachments).toEqual([
        {
          type: 'cards',
          cards: [
            {
              title: 'Qual cor você prefere?',
              subtitle: null,
              image: null,
              buttons: [
                { type: 'postback', id: 'color_black', title: 'Preto', url: null },
                { type: 'postback', id: 'color_blue', title: 'Azul', url: null },
                { type: 'open_url', id: null, title: 'Ver na loja', url: 'https://loja.example.com/tenis/runner' },
              ],
            },
          ],
        },
      ]);
      // GET /v1/messages/{id} answers what the send answered.
      expect(await message(me, buttons.id)).toEqual(buttons);

      // The tap: a contact message whose text is the button title.
      tick();
      const tap = await admin<SchemaSandboxButtonTapResult>(
        'POST',
        `/sandbox/messages/${buttons.id}/button-taps`,
        { button_id: 'color_blue' },
        201,
      );
      expect(await message(me, tap.message.id)).toMatchObject({
        type: 'message',
        direction: 'inbound',
        sender: { type: 'contact' },
        text: 'Azul',
        button: { id: 'color_blue', title: 'Azul', source: 'api' },
        reply_to_message_id: buttons.id,
      });

      // A plain text reads back as sent.
      const plain = await send(me, conv, { text: 'Azul é lindo!' });
      expect(plain).toMatchObject({ text: 'Azul é lindo!', attachments: [], sender: { type: 'api' } });
      expect(await message(me, plain.id)).toEqual(plain);

      // whatsapp reply buttons: one card too.
      const bruno = await writes(wa, waUser('Bruno Lima'));
      const waButtons = await send(me, bruno.conversation.id, {
        text: 'Confirma o pedido?',
        buttons: [
          { type: 'reply', id: 'yes', title: 'Sim' },
          { type: 'reply', id: 'no', title: 'Não' },
        ],
      });
      expect(waButtons.text).toBeNull();
      expect(waButtons.attachments).toEqual([
        {
          type: 'cards',
          cards: [
            {
              title: 'Confirma o pedido?',
              subtitle: null,
              image: null,
              buttons: [
                { type: 'postback', id: 'yes', title: 'Sim', url: null },
                { type: 'postback', id: 'no', title: 'Não', url: null },
              ],
            },
          ],
        },
      ]);

      // A template reads back with its body filled into text.
      await admin(
        'POST',
        `/accounts/${me.accountId}/templates`,
        {
          connection_id: wa,
          name: 'order_shipped',
          language: 'pt_BR',
          body: 'Olá {{1}}, seu pedido {{2}} foi enviado.',
        },
        201,
      );
      const template = await send(me, bruno.conversation.id, {
        template: { name: 'order_shipped', language: 'pt_BR', body_variables: ['Bruno', '4821'] },
      });
      expect(template).toMatchObject({
        text: 'Olá Bruno, seu pedido 4821 foi enviado.',
        template: { name: 'order_shipped', language: 'pt_BR' },
        attachments: [],
        channel: { type: 'whatsapp', connection_id: wa },
      });
      expect(await message(me, template.id)).toEqual(template);

      // Removed: is_removed true, text null, no attachments; still readable.
      tick();
      await admin('DELETE', `/sandbox/messages/${photo.message.id}`, undefined, 200);
      const removed = await message(me, photo.message.id);
      expect(removed).toMatchObject({ is_removed: true, text: null, attachments: [] });
      // Unsupported: text null, no attachments.
      const odd = await writes(ig, ana, { is_unsupported: true, text: undefined });
      expect(await message(me, odd.message.id)).toMatchObject({ is_unsupported: true, text: null, attachments: [] });

      const everything = [...(await messages(me, conv)).data, ...(await messages(me, bruno.conversation.id)).data];
      expect(everything).toHaveLength(8);
      for (const m of everything) expectSchema('Message', m);
      expect(everything.find((m) => m.id === photo.message.id)).toEqual(removed);
      expect(everything.find((m) => m.id === buttons.id)).toEqual(buttons);
      expect(everything.find((m) => m.id === template.id)).toEqual(template);
    });
  });

  // ------------------------------------------------------------------------------------------------ scope

  describe('scope', () => {
    it('the four read routes need conversations:read (403 insufficient_scope with required_scope)', async () => {
      const { me, ig } = await world();
      const written = await writes(ig, igUser());
      const key = async (scopes: (typeof SCOPES)[number][]) =>
        (
          await createApiKey(t.database.db, t.clock, {
            accountId: me.accountId,
            name: `key ${scopes.join(' ')}`,
            scopes,
            validityDays: 90,
          })
        ).secret;
      const without = await key(SCOPES.filter((s) => s !== 'conversations:read'));
      const only = await key(['conversations:read']);
      const paths = [
        '/v1/conversations',
        `/v1/conversations/${written.conversation.id}`,
        `/v1/conversations/${written.conversation.id}/messages`,
        `/v1/messages/${written.message.id}`,
      ];
      for (const path of paths) {
        const refused = await call(t.baseUrl, without, 'GET', path);
        expect(refused.status, path).toBe(403);
        expect(await refused.json(), path).toEqual(
          errorBody({ code: 'insufficient_scope', required_scope: 'conversations:read' }),
        );
        expect((await call(t.baseUrl, only, 'GET', path)).status, path).toBe(200);
      }
    });
  });
});
