// Sending to Instagram through the real route (issue 36 §3), on every engine of the run, against the fake Graph API
// on loopback: POST /v1/conversations/{id}/messages with an Idempotency-Key on an attached account (both logins),
// the message stored with Meta's mid; media uploaded when PUBLIC_BASE_URL is not public; Meta's error table row by
// row (one test per row) with what each does to the connection; a retry with the same key never reaching Meta
// again; and a conversation another app owns (standby) answered `conversation_not_owned` without a call to Meta.
//
// The contact and its conversation come from the domain's `recordInbound` on the attached connection (a test setup:
// the webhook side is tested in its own files), as a contact's direct message a minute old.
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchemaMessage } from '../../generated/api.js';
import { recordInbound } from '../../server/domain/messaging/inbound.js';
import { findConnection } from '../../server/store/console.js';
import type { FakeMeta, ScriptedAnswer } from '../fakes/meta/index.js';
import { engines, type TestApp, type TestCaller } from './harness.js';
import { expectError, json as ok } from './http-helpers.js';
import { startInstagramApp, type InstagramApp } from './instagram-app.js';

let keys = 0;
const newKey = () => `ig-send-${Date.now()}-${(keys += 1)}`;

const TOKEN = 'admin-token-for-instagram-send-0123456789';
const APP_SECRET = 'meta-app-secret-for-instagram-send';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);

type Row = [name: string, answer: ScriptedAnswer, status: number, context: Record<string, unknown>];

/** Issue 36 §3's table, through the route: Meta's answer → the API's error. */
const TABLE: Row[] = [
  [
    '10/2534022 (outside the window)',
    { kind: 'error', code: 10, subcode: 2534022 },
    422,
    { code: 'messaging_window_closed', channel: 'instagram', last_inbound_at: expect.any(String) },
  ],
  [
    '10/2018278 (outside the window)',
    { kind: 'error', code: 10, subcode: 2018278 },
    422,
    { code: 'messaging_window_closed', channel: 'instagram', last_inbound_at: expect.any(String) },
  ],
  ['551 (the user is not available)', { kind: 'error', code: 551 }, 422, { code: 'recipient_unavailable' }],
  [
    '100/2018001 (no matching user)',
    { kind: 'error', code: 100, subcode: 2018001 },
    422,
    { code: 'recipient_unavailable' },
  ],
  ['613 (rate limit)', { kind: 'error', code: 613 }, 429, { code: 'provider_throttled', channel: 'instagram' }],
  ['4 (application limit)', { kind: 'error', code: 4 }, 429, { code: 'provider_throttled', channel: 'instagram' }],
  ['32 (page limit)', { kind: 'error', code: 32 }, 429, { code: 'provider_throttled', channel: 'instagram' }],
  ['1 (unknown error, 500)', { kind: 'error', code: 1 }, 503, { code: 'provider_unavailable', channel: 'instagram' }],
  ['2 (service down, 503)', { kind: 'error', code: 2 }, 503, { code: 'provider_unavailable', channel: 'instagram' }],
  [
    '1200 (temporary failure)',
    { kind: 'error', code: 1200 },
    503,
    { code: 'provider_unavailable', channel: 'instagram' },
  ],
  [
    'a 5xx with a Graph error of no row',
    { kind: 'error', code: 12345, status: 502, message: 'Something broke' },
    503,
    { code: 'provider_unavailable', channel: 'instagram' },
  ],
  [
    'a reset after the write',
    { kind: 'reset', midAnswer: true },
    502,
    { code: 'outcome_unknown', provider_accepted: false },
  ],
  [
    'a reset before any answer',
    { kind: 'reset', midAnswer: false },
    502,
    { code: 'outcome_unknown', provider_accepted: false },
  ],
  [
    'a 502 page that is not JSON',
    { kind: 'http', status: 502, body: '<html>bad gateway</html>', contentType: 'text/html' },
    502,
    { code: 'outcome_unknown', provider_accepted: false },
  ],
  ['a 200 without message_id', { kind: 'no_message_id' }, 502, { code: 'outcome_unknown', provider_accepted: false }],
  [
    'another code (Meta refused it for good)',
    { kind: 'error', code: 100, message: '(#100) Param message[text] is invalid' },
    422,
    { code: 'provider_rejected', channel: 'instagram', provider_message: '(#100) Param message[text] is invalid' },
  ],
];

/** The rows that disconnect the connection (authorization_lost). */
const LOST: [string, ScriptedAnswer][] = [
  ['190 (the token)', { kind: 'error', code: 190 }],
  ['10 without a subcode (a permission)', { kind: 'error', code: 10 }],
  ['10 with another subcode', { kind: 'error', code: 10, subcode: 33 }],
  ['200 (permissions)', { kind: 'error', code: 200 }],
  ['299 (permissions)', { kind: 'error', code: 299 }],
  ['230 (pages_messaging)', { kind: 'error', code: 230 }],
];

describe.each(engines)('sending to instagram on %s', (engine) => {
  let app: InstagramApp;
  let t: TestApp;
  let meta: FakeMeta;

  beforeAll(async () => {
    app = await startInstagramApp(engine, { adminToken: TOKEN, appSecret: APP_SECRET });
    ({ t, meta } = app);
  });
  afterAll(async () => {
    await t?.close();
    await meta?.close();
  });

  /** An account with an attached instagram account, and a contact who wrote to it a minute ago. */
  async function conversationWithContact(login: 'instagram' | 'facebook' = 'instagram') {
    const me = await t.account();
    const { account, connection } = await app.attachInstagram(me, { login });
    const row = await findConnection(t.database.db, me.accountId, connection.id);
    if (!row) throw new Error('the connection was not stored');
    const igsid = `19${randomInt(1e12, 9e12)}`;
    // A test setup, not the webhook: the contact's message recorded as the webhook side would.
    const inbound = await recordInbound(
      t.database.db,
      t.clock,
      me.accountId,
      row,
      {
        from: { instagram_id: igsid, username: `ana.${randomInt(1e6, 9e6)}`, name: 'Ana' },
        type: 'message',
        text: 'Oi',
        attachments: [],
        post: null,
        reply_to_message_id: null,
        button: null,
        is_unsupported: false,
        created_at: new Date(t.clock.now().getTime() - 60_000).toISOString(),
        provider_message_id: `aWdfZAG1faXRlbTo${randomInt(1e9, 9e9)}`,
      },
      t.baseUrl,
    );
    const send = (body: unknown, key = newKey()) =>
      me.call('POST', `/v1/conversations/${inbound.conversation.id}/messages`, {
        body,
        headers: { 'Idempotency-Key': key },
      });
    return { me, account, connection, igsid, conversationId: inbound.conversation.id, send };
  }

  const sendsTo = (igsid: string) =>
    meta.requestsTo('/messages', 'POST').filter((r) => JSON.stringify(r.body).includes(igsid));
  const connectionStatus = async (connectionId: string) =>
    (
      await t.database.db
        .selectFrom('connections')
        .select(['status', 'disconnect_reason'])
        .where('id', '=', connectionId)
        .executeTakeFirstOrThrow()
    ).status;
  const outbound = async (me: TestCaller, conversationId: string) =>
    (
      await ok<{ data: SchemaMessage[] }>(await me.call('GET', `/v1/conversations/${conversationId}/messages?limit=50`))
    ).data.filter((m) => m.direction === 'outbound');

  it.each(['instagram', 'facebook'] as const)(
    'with %s Login a text goes out through the Graph API, stored as sent with its mid',
    async (login) => {
      const { me, account, igsid, conversationId, send } = await conversationWithContact(login);
      const sent = await ok<SchemaMessage>(await send({ text: 'Olá, Ana!' }), 201);
      expect(sent).toMatchObject({ status: 'sent', text: 'Olá, Ana!', sender: { type: 'api' } });
      const [request] = sendsTo(igsid);
      const node = login === 'facebook' ? account.pageId : account.igUserId;
      expect(request?.path).toMatch(new RegExp(`/${node}/messages$`));
      expect(request?.body).toEqual({ recipient: { id: igsid }, message: { text: 'Olá, Ana!' } });
      const mid = meta.instagramSent.find((m) => m.recipientId === igsid)?.id;
      const stored = await t.database.db
        .selectFrom('messages')
        .select('provider_message_id')
        .where('id', '=', sent.id)
        .executeTakeFirstOrThrow();
      expect(stored.provider_message_id).toBe(mid);
      expect((await outbound(me, conversationId)).map((m) => m.id)).toEqual([sent.id]);
    },
  );

  it('buttons go as the button template; a media is uploaded first (PUBLIC_BASE_URL is loopback here)', async () => {
    const { me, igsid, send } = await conversationWithContact();
    await ok(await send({ text: 'Escolha', buttons: [{ type: 'reply', id: 'yes', title: 'Sim' }] }), 201);
    expect(sendsTo(igsid)[0]?.body).toMatchObject({
      message: { attachment: { type: 'template', payload: { template_type: 'button', text: 'Escolha' } } },
    });
    const media = await ok<{ id: string; upload_url: string }>(
      await me.call('POST', '/v1/media', { body: { content_type: 'image/png', filename: 'a.png' } }),
      201,
    );
    expect(
      (await fetch(media.upload_url, { method: 'PUT', headers: { 'Content-Type': 'image/png' }, body: PNG })).status,
    ).toBe(204);
    const uploadsBefore = meta.requestsTo('/message_attachments', 'POST').length;
    await ok(await send({ attachments: [{ type: 'image', media_id: media.id }] }), 201);
    expect(meta.requestsTo('/message_attachments', 'POST').length).toBe(uploadsBefore + 1);
    expect(sendsTo(igsid)[1]?.body).toMatchObject({
      message: { attachment: { type: 'image', payload: { attachment_id: expect.any(String) } } },
    });
  });

  describe("Meta's error table through the route", () => {
    it.each(TABLE)('%s', async (_name, answer, status, context) => {
      const { me, connection, igsid, conversationId, send } = await conversationWithContact();
      meta.scriptInstagram(igsid, answer);
      await expectError(await send({ text: 'Oi' }), status, context);
      expect(await outbound(me, conversationId)).toEqual([]);
      expect(await connectionStatus(connection.id)).toBe('connected');
    });

    it.each(LOST)(
      '%s: the connection disconnected (authorization_lost), and the send says so',
      async (_name, answer) => {
        const { me, connection, igsid, send } = await conversationWithContact();
        meta.scriptInstagram(igsid, answer);
        const disconnected = { code: 'channel_disconnected', channel: 'instagram', reason: 'authorization_lost' };
        await expectError(await send({ text: 'Oi' }), 422, disconnected);
        expect(await connectionStatus(connection.id)).toBe('disconnected');
        const events = await t.database.db
          .selectFrom('events')
          .select(['resource_id', 'data'])
          .where('account_id', '=', me.accountId)
          .where('type', '=', 'connection.disconnected')
          .execute();
        expect(events.map((e) => e.resource_id)).toEqual([connection.id]);
        expect(JSON.stringify(events[0]?.data)).toContain('"disconnect_reason":"authorization_lost"');
        // The next send is refused before Meta.
        const before = sendsTo(igsid).length;
        await expectError(await send({ text: 'Oi' }), 422, disconnected);
        expect(sendsTo(igsid).length).toBe(before);
      },
    );
  });

  it('idempotency: a retry with the same key never reaches Meta again (accepted, and outcome_unknown)', async () => {
    const { igsid, send } = await conversationWithContact();
    const key = newKey();
    const first = await ok<SchemaMessage>(await send({ text: 'Uma vez' }, key), 201);
    const again = await ok<SchemaMessage>(await send({ text: 'Uma vez' }, key), 201);
    expect(again.id).toBe(first.id);
    expect(sendsTo(igsid)).toHaveLength(1);

    const unknownKey = newKey();
    meta.scriptInstagram(igsid, { kind: 'reset', midAnswer: true });
    const unknown = { code: 'outcome_unknown', provider_accepted: false };
    await expectError(await send({ text: 'Talvez' }, unknownKey), 502, unknown);
    await expectError(await send({ text: 'Talvez' }, unknownKey), 502, unknown);
    expect(sendsTo(igsid)).toHaveLength(2);

    // A refusal releases the key: the same key sends again.
    const releasedKey = newKey();
    meta.scriptInstagram(igsid, { kind: 'error', code: 613 });
    await expectError(await send({ text: 'Depois' }, releasedKey), 429, {
      code: 'provider_throttled',
      channel: 'instagram',
    });
    await ok(await send({ text: 'Depois' }, releasedKey), 201);
    expect(sendsTo(igsid)).toHaveLength(4);
  });

  it('a conversation another app owns (standby) answers conversation_not_owned without calling Meta', async () => {
    const { me, igsid, conversationId, send } = await conversationWithContact();
    await t.database.db
      .updateTable('conversations')
      .set({ owned_elsewhere_since: t.clock.now().toISOString() })
      .where('id', '=', conversationId)
      .execute();
    const requests = meta.requests.length;
    await expectError(await send({ text: 'Oi' }), 422, { code: 'conversation_not_owned' });
    expect(meta.requests.length).toBe(requests);
    expect(sendsTo(igsid)).toEqual([]);
    expect(await outbound(me, conversationId)).toEqual([]);
    // Cleared (a `messaging` item for the thread): sends go out again.
    await t.database.db
      .updateTable('conversations')
      .set({ owned_elsewhere_since: null })
      .where('id', '=', conversationId)
      .execute();
    await ok(await send({ text: 'Oi' }), 201);
    expect(sendsTo(igsid)).toHaveLength(1);
  });
});
