// Attaching an Instagram account to an instagram connection through the admin API (issue 36), on every engine of
// the run, against the fake Graph API on loopback (test/fakes/meta: both hosts on one server): Instagram Login and
// Facebook Login, the token checked and the app subscribed before anything changes, the connection's events, the
// token never shown, the refusals (a refused token, another account, a Page without one, a whatsapp connection, an
// account another connection uses, a Graph API that does not answer), reading and detaching. Then, without an app,
// that each login's calls go to its own host.
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchemaConnection } from '../../generated/api.js';
import type { SchemaAdminInstagramAccount } from '../../generated/admin-api.js';
import { ADMIN_PREFIX } from '../../generated/operations.js';
import {
  GraphInstagramAccount,
  INSTAGRAM_SUBSCRIBED_FIELDS,
  PAGE_SUBSCRIBED_FIELDS,
} from '../../server/channels/instagram/account.js';
import { GraphClient } from '../../server/channels/graph/client.js';
import { openToken } from '../../server/domain/channels/credentials.js';
import { demoInstagram } from '../../scripts/fake-meta.js';
import { instagramWebhooks, startFakeMeta, type FakeInstagramAccount, type FakeMeta } from '../fakes/meta/index.js';
import { call, engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import { expectError, json as ok } from './http-helpers.js';

const TOKEN = 'admin-token-for-instagram-accounts-0123456789';
const APP_SECRET = 'meta-app-secret-for-tests';

type EventType = 'connection.connected' | 'connection.disconnected';

/** An account of the fake with ids and a token of its own (Facebook Login: with its Page). */
function fakeAccount(login: 'instagram' | 'facebook', username = `loja_${randomInt(1e9)}`): FakeInstagramAccount {
  const token = `${login === 'instagram' ? 'IGAA' : 'EAAG'}${randomInt(1e9, 9e9)}testtoken${randomInt(1e9, 9e9)}`;
  return {
    login,
    igUserId: instagramWebhooks.newIgId(),
    ...(login === 'facebook' ? { pageId: `10${randomInt(1e12, 9e12)}` } : {}),
    username,
    accessToken: token,
  };
}

/** The PUT body of an account of the fake, by its login. */
const setupOf = (account: FakeInstagramAccount) =>
  account.login === 'instagram'
    ? { login: 'instagram', ig_user_id: account.igUserId, access_token: account.accessToken }
    : { login: 'facebook', page_id: account.pageId, access_token: account.accessToken };

describe.each(engines)('an Instagram account on %s', (engine) => {
  let t: TestApp;
  let meta: FakeMeta;
  const admin = (method: string, path: string, body?: unknown) =>
    call(t.baseUrl, TOKEN, method, `${ADMIN_PREFIX}${path}`, body === undefined ? {} : { body });

  beforeAll(async () => {
    meta = await startFakeMeta({ appSecret: APP_SECRET });
    t = await startTestApp(engine, {
      env: {
        ADMIN_TOKEN: TOKEN,
        META_APP_SECRET: APP_SECRET,
        GRAPH_API_BASE_URL: meta.url,
        INSTAGRAM_GRAPH_BASE_URL: meta.url,
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await meta?.close();
  });

  const events = async (accountId: string, ...types: EventType[]) =>
    (
      await t.database.db
        .selectFrom('events')
        .select(['type', 'data'])
        .where('account_id', '=', accountId)
        .where('type', 'in', types)
        .orderBy('created_at')
        .execute()
    ).map((row) => ({ type: row.type, data: row.data }));

  async function instagramConnection(me: TestCaller, username: string, status = 'connected') {
    return ok<SchemaConnection>(
      await admin('POST', `/accounts/${me.accountId}/connections`, {
        channel: 'instagram',
        name: 'Loja',
        username,
        status,
        ...(status === 'disconnected' ? { disconnect_reason: 'authorization_lost' } : {}),
      }),
      201,
    );
  }

  /** The connection's row as stored: its status and provider, and its provider row (or none). */
  async function stored(connectionId: string) {
    const connection = await t.database.db
      .selectFrom('connections')
      .select(['status', 'disconnect_reason', 'provider'])
      .where('id', '=', connectionId)
      .executeTakeFirstOrThrow();
    const provider = await t.database.db
      .selectFrom('connection_providers')
      .selectAll()
      .where('connection_id', '=', connectionId)
      .executeTakeFirst();
    return { ...connection, row: provider };
  }

  /** A new tenant with an instagram connection for a new account of the fake (added to the fake). */
  async function withAccount(login: 'instagram' | 'facebook') {
    const me = await t.account();
    const account = fakeAccount(login);
    meta.addInstagramAccount(account);
    const connection = await instagramConnection(me, account.username);
    return { me, account, connection };
  }

  describe('attaching', () => {
    it("with Instagram Login: reads /me, subscribes the account's fields, seals the token and shows it nowhere", async () => {
      const me = await t.account();
      const account = demoInstagram({});
      meta.addInstagramAccount(account);
      const connection = await instagramConnection(me, account.username);
      const requestsBefore = meta.requests.length;

      const view = await ok<SchemaAdminInstagramAccount>(
        await admin('PUT', `/connections/${connection.id}/instagram`, setupOf(account)),
      );
      expect(view).toEqual({
        connection_id: connection.id,
        provider: 'instagram_graph',
        login: 'instagram',
        ig_user_id: account.igUserId,
        page_id: null,
        username: account.username,
        token_last4: account.accessToken.slice(-4),
        connection: { ...connection, status: 'connected', disconnect_reason: null },
      });

      // The calls: the token's account, then the subscription, each with the token in the header only.
      const calls = meta.requests.slice(requestsBefore);
      expect(calls.map((r) => `${r.method} ${r.path}`)).toEqual([
        'GET /v23.0/me',
        `POST /v23.0/${account.igUserId}/subscribed_apps`,
      ]);
      expect(calls[0]?.query).toEqual({ fields: 'user_id,username' });
      expect(calls[1]?.query).toEqual({ subscribed_fields: INSTAGRAM_SUBSCRIBED_FIELDS.join(',') });
      for (const request of calls) {
        expect(request.headers.authorization).toBe(`Bearer ${account.accessToken}`);
        expect(request.path).not.toContain(account.accessToken);
        expect(JSON.stringify(request.query)).not.toContain(account.accessToken);
      }
      expect(meta.instagram(account.igUserId).subscribedFields).toEqual([
        'messages',
        'messaging_postbacks',
        'message_reactions',
        'message_edit',
        'messaging_seen',
        'comments',
        'live_comments',
      ]);

      // A connected connection went through setup_incomplete, then connected again.
      const changes = await events(me.accountId, 'connection.disconnected', 'connection.connected');
      expect(changes.map((e) => e.type)).toEqual(['connection.disconnected', 'connection.connected']);
      expect(changes[0]?.data).toMatchObject({ status: 'disconnected', disconnect_reason: 'setup_incomplete' });
      expect(changes[1]?.data).toMatchObject({ status: 'connected', disconnect_reason: null });

      // Stored: the provider serves it, the account's ids, the token sealed (it opens to the token) and nowhere else.
      const after = await stored(connection.id);
      expect(after).toMatchObject({
        status: 'connected',
        provider: 'instagram_graph',
        row: {
          provider: 'instagram_graph',
          login: 'instagram',
          ig_user_id: account.igUserId,
          page_id: null,
          username: account.username,
          phone_number_id: null,
          waba_id: null,
          token_last4: account.accessToken.slice(-4),
        },
      });
      const sealed = after.row?.sealed_token ?? '';
      expect(sealed).not.toContain(account.accessToken);
      expect(openToken(t.services.channelKeys, sealed, connection.id)).toBe(account.accessToken);
      const audit = await t.database.db
        .selectFrom('audit_log')
        .selectAll()
        .where('account_id', '=', me.accountId)
        .execute();
      expect(audit.map((a) => a.details)).toContainEqual({
        provider: 'instagram_graph',
        login: 'instagram',
        ig_user_id: account.igUserId,
        page_id: null,
        username: account.username,
        token_last4: account.accessToken.slice(-4),
      });
      const everything = await t.database.db.selectFrom('events').selectAll().execute();
      for (const text of [JSON.stringify(view), JSON.stringify(everything), JSON.stringify(audit)])
        expect(text).not.toContain(account.accessToken);

      // GET shows the same view.
      const read = await ok<SchemaAdminInstagramAccount>(await admin('GET', `/connections/${connection.id}/instagram`));
      expect(read).toEqual(view);
      expect(JSON.stringify(read)).not.toContain(account.accessToken);
      expect((await admin('DELETE', `/connections/${connection.id}/instagram`)).status).toBe(200);
    });

    it("with Facebook Login: reads the Page's linked account and subscribes the Page", async () => {
      const { me, account, connection } = await withAccount('facebook');
      const requestsBefore = meta.requests.length;
      const view = await ok<SchemaAdminInstagramAccount>(
        await admin('PUT', `/connections/${connection.id}/instagram`, setupOf(account)),
      );
      expect(view).toMatchObject({
        connection_id: connection.id,
        provider: 'instagram_graph',
        login: 'facebook',
        ig_user_id: account.igUserId,
        page_id: account.pageId,
        username: account.username,
        token_last4: account.accessToken.slice(-4),
        connection: { status: 'connected' },
      });
      const calls = meta.requests.slice(requestsBefore);
      expect(calls.map((r) => `${r.method} ${r.path}`)).toEqual([
        `GET /v23.0/${account.pageId}`,
        `POST /v23.0/${account.pageId}/subscribed_apps`,
      ]);
      expect(calls[0]?.query).toEqual({ fields: 'instagram_business_account{id,username}' });
      expect(calls[1]?.query).toEqual({ subscribed_fields: PAGE_SUBSCRIBED_FIELDS.join(',') });
      expect(meta.instagram(account.igUserId).subscribedFields).toEqual([
        'messages',
        'messaging_postbacks',
        'message_reactions',
        'messaging_seen',
      ]);
      expect(await stored(connection.id)).toMatchObject({
        provider: 'instagram_graph',
        row: { login: 'facebook', ig_user_id: account.igUserId, page_id: account.pageId },
      });
      expect((await events(me.accountId, 'connection.connected')).length).toBe(1);
      expect(JSON.stringify(await t.database.db.selectFrom('audit_log').selectAll().execute())).not.toContain(
        account.accessToken,
      );
    });

    it('compares the username without case, and a disconnected connection goes straight to connected', async () => {
      const me = await t.account();
      const account = fakeAccount('instagram', `Loja_Aurora_${randomInt(1e6)}`);
      meta.addInstagramAccount(account);
      const connection = await instagramConnection(me, account.username.toLowerCase(), 'disconnected');
      const view = await ok<SchemaAdminInstagramAccount>(
        await admin('PUT', `/connections/${connection.id}/instagram`, setupOf(account)),
      );
      expect(view.username).toBe(account.username.toLowerCase());
      expect(view.connection).toMatchObject({ status: 'connected', disconnect_reason: null });
      // No setup_incomplete: it was not connected; then connected once.
      expect(
        (await events(me.accountId, 'connection.disconnected', 'connection.connected')).map((e) => e.type),
      ).toEqual(['connection.connected']);
    });

    it('replaces the token (or the login) on a second attach, through setup_incomplete again', async () => {
      const { me, account, connection } = await withAccount('instagram');
      await ok(await admin('PUT', `/connections/${connection.id}/instagram`, setupOf(account)));
      account.accessToken = `IGAA${randomInt(1e9, 9e9)}rotatedtoken${randomInt(1e9, 9e9)}`;
      const rotated = await ok<SchemaAdminInstagramAccount>(
        await admin('PUT', `/connections/${connection.id}/instagram`, setupOf(account)),
      );
      expect(rotated.token_last4).toBe(account.accessToken.slice(-4));
      const row = (await stored(connection.id)).row;
      expect(openToken(t.services.channelKeys, row?.sealed_token ?? '', connection.id)).toBe(account.accessToken);
      // The same account, now through its Page (Facebook Login).
      account.login = 'facebook';
      account.pageId = `10${randomInt(1e12, 9e12)}`;
      const viaPage = await ok<SchemaAdminInstagramAccount>(
        await admin('PUT', `/connections/${connection.id}/instagram`, setupOf(account)),
      );
      expect(viaPage).toMatchObject({ login: 'facebook', page_id: account.pageId, ig_user_id: account.igUserId });
      expect(
        await t.database.db
          .selectFrom('connection_providers')
          .select('connection_id')
          .where('connection_id', '=', connection.id)
          .execute(),
      ).toHaveLength(1);
      const changes = await events(me.accountId, 'connection.disconnected', 'connection.connected');
      expect(changes.map((e) => e.type)).toEqual([
        'connection.disconnected',
        'connection.connected',
        'connection.disconnected',
        'connection.connected',
        'connection.disconnected',
        'connection.connected',
      ]);
    });
  });

  describe('refusing, changing nothing', () => {
    /** The connection as it was made: connected, served by the sandbox, no provider row, no status event. */
    async function unchanged(me: TestCaller, connectionId: string) {
      expect(await stored(connectionId)).toEqual({
        status: 'connected',
        disconnect_reason: null,
        provider: 'sandbox',
        row: undefined,
      });
      expect(await events(me.accountId, 'connection.disconnected', 'connection.connected')).toEqual([]);
      await expectError(await admin('GET', `/connections/${connectionId}/instagram`), 404, {
        code: 'not_instagram_graph',
      });
    }

    it('a token Meta refuses (190), on either login', async () => {
      for (const login of ['instagram', 'facebook'] as const) {
        const { me, account, connection } = await withAccount(login);
        await expectError(
          await admin('PUT', `/connections/${connection.id}/instagram`, {
            ...setupOf(account),
            access_token: 'EAAGwrongwrongwrongwrong',
          }),
          422,
          { code: 'invalid_credentials', provider_message: 'Invalid OAuth access token - Cannot parse access token' },
        );
        await unchanged(me, connection.id);
        expect(meta.instagram(account.igUserId).subscribedFields).toBeUndefined();
      }
    });

    it("another account than the connection's: another id (Instagram Login) or another username", async () => {
      const { me, account, connection } = await withAccount('instagram');
      const otherId = instagramWebhooks.newIgId();
      await expectError(
        await admin('PUT', `/connections/${connection.id}/instagram`, { ...setupOf(account), ig_user_id: otherId }),
        422,
        { code: 'identity_mismatch', ig_user_id: account.igUserId, username: account.username },
      );
      const stranger = fakeAccount('instagram');
      meta.addInstagramAccount(stranger);
      await expectError(await admin('PUT', `/connections/${connection.id}/instagram`, setupOf(stranger)), 422, {
        code: 'identity_mismatch',
        ig_user_id: stranger.igUserId,
        username: stranger.username,
      });
      const page = fakeAccount('facebook');
      meta.addInstagramAccount(page);
      await expectError(await admin('PUT', `/connections/${connection.id}/instagram`, setupOf(page)), 422, {
        code: 'identity_mismatch',
        ig_user_id: page.igUserId,
        username: page.username,
      });
      await unchanged(me, connection.id);
      for (const fake of [account, stranger, page]) expect(fake.subscribedFields).toBeUndefined();
    });

    it('a Page without an Instagram account linked', async () => {
      const { me, account, connection } = await withAccount('facebook');
      const pageId = account.pageId ?? '';
      meta.scriptPath(pageId, {
        kind: 'http',
        status: 200,
        body: JSON.stringify({ id: pageId }),
        contentType: 'application/json',
      });
      await expectError(await admin('PUT', `/connections/${connection.id}/instagram`, setupOf(account)), 422, {
        code: 'no_instagram_account',
        page_id: pageId,
      });
      await unchanged(me, connection.id);
    });

    it('a whatsapp connection', async () => {
      const me = await t.account();
      const account = fakeAccount('instagram');
      meta.addInstagramAccount(account);
      const whatsapp = await ok<SchemaConnection>(
        await admin('POST', `/accounts/${me.accountId}/connections`, {
          channel: 'whatsapp',
          name: 'Vendas',
          phone: `+5511${randomInt(9_1000_0000, 9_9999_9999)}`,
        }),
        201,
      );
      const before = meta.requests.length;
      await expectError(await admin('PUT', `/connections/${whatsapp.id}/instagram`, setupOf(account)), 422, {
        code: 'not_instagram',
      });
      expect(meta.requests.length).toBe(before);
      await unchanged(me, whatsapp.id);
      await expectError(await admin('DELETE', `/connections/${whatsapp.id}/instagram`), 404, {
        code: 'not_instagram_graph',
      });
    });

    it('an account another connection uses (409), on either login', async () => {
      const first = await withAccount('facebook');
      const attached = await ok<SchemaAdminInstagramAccount>(
        await admin('PUT', `/connections/${first.connection.id}/instagram`, setupOf(first.account)),
      );
      // Another tenant's connection of the same username: the account serves one connection.
      const me = await t.account();
      const second = await instagramConnection(me, first.account.username);
      await expectError(await admin('PUT', `/connections/${second.id}/instagram`, setupOf(first.account)), 409, {
        code: 'instagram_account_in_use',
        connection_id: first.connection.id,
      });
      // With Instagram Login the id is known before any call: Meta is not asked.
      const before = meta.requests.length;
      await expectError(
        await admin('PUT', `/connections/${second.id}/instagram`, {
          login: 'instagram',
          ig_user_id: attached.ig_user_id,
          access_token: first.account.accessToken,
        }),
        409,
        { code: 'instagram_account_in_use', connection_id: first.connection.id },
      );
      expect(meta.requests.length).toBe(before);
      await unchanged(me, second.id);
      expect((await stored(first.connection.id)).row?.ig_user_id).toBe(first.account.igUserId);
    });

    it('a Graph API that does not answer (502), and a refused subscription (422)', async () => {
      const { me, account, connection } = await withAccount('instagram');
      meta.scriptPath('me', { kind: 'error', code: 2 });
      await expectError(await admin('PUT', `/connections/${connection.id}/instagram`, setupOf(account)), 502, {
        code: 'provider_unavailable',
        provider_message: 'The Graph API answered 503.',
      });
      await unchanged(me, connection.id);
      meta.scriptPath(`${account.igUserId}/subscribed_apps`, { kind: 'error', code: 2 });
      await expectError(await admin('PUT', `/connections/${connection.id}/instagram`, setupOf(account)), 502, {
        code: 'provider_unavailable',
        provider_message: 'The Graph API answered 503.',
      });
      await unchanged(me, connection.id);
      meta.scriptPath(`${account.igUserId}/subscribed_apps`, { kind: 'error', code: 10 });
      await expectError(await admin('PUT', `/connections/${connection.id}/instagram`, setupOf(account)), 422, {
        code: 'invalid_credentials',
        provider_message: '(#10) Application does not have permission for this action',
      });
      await unchanged(me, connection.id);
      expect(account.subscribedFields).toBeUndefined();
      // The Graph API answers again: the attach goes through.
      await ok(await admin('PUT', `/connections/${connection.id}/instagram`, setupOf(account)));
      expect(account.subscribedFields).toEqual([...INSTAGRAM_SUBSCRIBED_FIELDS]);
    });

    it('a body of neither login, or of both', async () => {
      const { connection, account } = await withAccount('instagram');
      const put = (body: unknown) => admin('PUT', `/connections/${connection.id}/instagram`, body);
      expect(
        (await put({ login: 'tiktok', ig_user_id: account.igUserId, access_token: account.accessToken })).status,
      ).toBe(400);
      expect(
        (await put({ login: 'instagram', page_id: '104921335632818', access_token: account.accessToken })).status,
      ).toBe(400);
      expect(
        (
          await put({
            login: 'instagram',
            ig_user_id: account.igUserId,
            page_id: '104921335632818',
            access_token: account.accessToken,
          })
        ).status,
      ).toBe(400);
      expect((await put({ login: 'instagram', ig_user_id: account.igUserId, access_token: 'short' })).status).toBe(400);
    });
  });

  describe('detaching', () => {
    it('forgets the account: the sandbox serves the connection, disconnected by the user; it attaches again', async () => {
      const { me, account, connection } = await withAccount('instagram');
      await ok(await admin('PUT', `/connections/${connection.id}/instagram`, setupOf(account)));
      const detached = await ok<SchemaConnection>(await admin('DELETE', `/connections/${connection.id}/instagram`));
      expect(detached).toMatchObject({
        id: connection.id,
        status: 'disconnected',
        disconnect_reason: 'disconnected_by_user',
      });
      expect(await stored(connection.id)).toEqual({
        status: 'disconnected',
        disconnect_reason: 'disconnected_by_user',
        provider: 'sandbox',
        row: undefined,
      });
      // One while it was attached (setup_incomplete), one now.
      const disconnections = await events(me.accountId, 'connection.disconnected');
      expect(disconnections.map((e) => e.data)).toMatchObject([
        { disconnect_reason: 'setup_incomplete' },
        { disconnect_reason: 'disconnected_by_user' },
      ]);
      await expectError(await admin('GET', `/connections/${connection.id}/instagram`), 404, {
        code: 'not_instagram_graph',
      });
      await expectError(await admin('DELETE', `/connections/${connection.id}/instagram`), 404, {
        code: 'not_instagram_graph',
      });
      // Its account is free again: another connection may take it, or this one again.
      const view = await ok<SchemaAdminInstagramAccount>(
        await admin('PUT', `/connections/${connection.id}/instagram`, setupOf(account)),
      );
      expect(view.connection).toMatchObject({ status: 'connected' });
    });

    it('answers 404 for a connection that does not exist', async () => {
      const missing = '00000000-0000-4000-8000-000000000000';
      await expectError(await admin('GET', `/connections/${missing}/instagram`), 404, { code: 'not_found' });
      await expectError(await admin('DELETE', `/connections/${missing}/instagram`), 404, { code: 'not_found' });
    });
  });
});

describe("each login's calls on its own host", () => {
  let instagramHost: FakeMeta;
  let facebookHost: FakeMeta;
  const igLogin = fakeAccount('instagram');
  const fbLogin = fakeAccount('facebook');

  beforeAll(async () => {
    // Each fake knows both accounts: only the host a call goes to tells them apart.
    instagramHost = await startFakeMeta({ instagramAccounts: [{ ...igLogin }, { ...fbLogin }] });
    facebookHost = await startFakeMeta({ instagramAccounts: [{ ...igLogin }, { ...fbLogin }] });
  });
  afterAll(async () => {
    await instagramHost?.close();
    await facebookHost?.close();
  });

  it('Instagram Login on INSTAGRAM_GRAPH_BASE_URL, Facebook Login on GRAPH_API_BASE_URL', async () => {
    const instagram = new GraphClient({ baseUrl: instagramHost.url, version: 'v23.0' });
    const facebook = new GraphClient({ baseUrl: facebookHost.url, version: 'v23.0' });
    const api = new GraphInstagramAccount({ instagram, facebook });
    try {
      expect(await api.readInstagramLogin(igLogin.accessToken)).toEqual({
        ok: true,
        value: { igUserId: igLogin.igUserId, username: igLogin.username },
      });
      expect(await api.subscribeAccount(igLogin.accessToken, igLogin.igUserId)).toMatchObject({ ok: true });
      expect(await api.readPageAccount(fbLogin.accessToken, fbLogin.pageId ?? '')).toEqual({
        ok: true,
        value: { igUserId: fbLogin.igUserId, username: fbLogin.username },
      });
      expect(await api.subscribePage(fbLogin.accessToken, fbLogin.pageId ?? '')).toMatchObject({ ok: true });
      expect(instagramHost.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        'GET /v23.0/me',
        `POST /v23.0/${igLogin.igUserId}/subscribed_apps`,
      ]);
      expect(facebookHost.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        `GET /v23.0/${fbLogin.pageId ?? ''}`,
        `POST /v23.0/${fbLogin.pageId ?? ''}/subscribed_apps`,
      ]);
      // A Page token is not an Instagram user token: /me on Instagram's host reads a Page, which has no user_id.
      expect(await api.readInstagramLogin(fbLogin.accessToken)).toMatchObject({ ok: false, failure: 'refused' });
    } finally {
      instagram.close();
      facebook.close();
    }
  });
});
