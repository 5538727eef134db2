// An app on the fake Graph API with Instagram accounts attached, as the Instagram test files start it: the fake's
// Instagram webhooks pointed at the app's `/channels/instagram/webhook`, INSTAGRAM_GRAPH_BASE_URL at the fake too
// (the fake answers both hosts), and `attachInstagram`, which adds an account to the fake and attaches it to a new
// instagram connection of the caller's account.
//
// The attach writes the sealed row as the admin route does (domain/channels/instagram-accounts.ts, tested through
// the route in instagram-accounts.test.ts): the webhook and send tests need an attached account, not the route.
import { randomInt } from 'node:crypto';
import type { SchemaConnection } from '../../generated/api.js';
import { sealToken, tokenLast4 } from '../../server/domain/channels/credentials.js';
import { saveConnectionProvider, setConnectionProvider } from '../../server/store/channel-providers.js';
import type { FakeInstagramAccount } from '../fakes/meta/index.js';
import type { Engine } from '../../server/store/database.js';
import { startFakeMetaApp, type FakeMetaApp } from './fake-meta-app.js';
import type { TestCaller } from './harness.js';
import { json as ok } from './http-helpers.js';

export interface InstagramApp extends FakeMetaApp {
  /** A new account of the fake attached to a new instagram connection of `me` (Instagram Login by default). */
  attachInstagram(
    me: TestCaller,
    options?: { login?: 'instagram' | 'facebook' },
  ): Promise<{ account: FakeInstagramAccount; connection: SchemaConnection }>;
}

const newIgId = () => `178414${randomInt(1e9, 9e9)}`;

export async function startInstagramApp(
  engine: Engine,
  options: Parameters<typeof startFakeMetaApp>[1],
): Promise<InstagramApp> {
  const app = await startFakeMetaApp(engine, options);
  const { t, meta } = app;
  meta.setInstagramWebhookUrl(`${t.baseUrl}/channels/instagram/webhook`);
  async function attachInstagram(me: TestCaller, attach: { login?: 'instagram' | 'facebook' } = {}) {
    const login = attach.login ?? 'instagram';
    const username = `loja.${randomInt(1e6, 9e6)}`;
    const account: FakeInstagramAccount = {
      login,
      igUserId: newIgId(),
      ...(login === 'facebook' ? { pageId: `10${randomInt(1e12, 9e12)}` } : {}),
      username,
      accessToken: `IGAA${randomInt(1e9, 9e9)}testtoken${randomInt(1e9, 9e9)}`,
    };
    meta.addInstagramAccount(account);
    const connection = await ok<SchemaConnection>(
      await app.admin('POST', `/accounts/${me.accountId}/connections`, {
        channel: 'instagram',
        name: 'Loja',
        username,
      }),
      201,
    );
    const now = t.clock.now().toISOString();
    await t.database.db.transaction().execute(async (tx) => {
      await saveConnectionProvider(tx, {
        connection_id: connection.id,
        account_id: me.accountId,
        provider: 'instagram_graph',
        phone_number_id: null,
        waba_id: null,
        login,
        ig_user_id: account.igUserId,
        page_id: account.pageId ?? null,
        username,
        sealed_token: sealToken(t.services.channelKeys, account.accessToken, connection.id),
        token_last4: tokenLast4(account.accessToken),
        verified_name: null,
        templates_synced_at: null,
        created_at: now,
        updated_at: now,
      });
      await setConnectionProvider(tx, connection.id, 'instagram_graph', now);
    });
    return { account, connection };
  }
  return { ...app, attachInstagram };
}
