// Attaching an Instagram professional account to an instagram connection (the admin routes
// `/admin/v1/connections/{connectionId}/instagram`), reading it, and detaching it. Two logins: Instagram Login (the
// account's own token, on graph.instagram.com) and Facebook Login (a token of the Page linked to the account).
//
// The story of an attach, as numbers.ts tells WhatsApp's: the token is checked against the account first, and the
// app subscribed to its webhooks (a refused token, another account, a Page without one or a refused subscription
// changes nothing); a connected connection then goes `disconnected` with `setup_incomplete` while the token is
// sealed; then it is `connected` again. Each status change is `changeConnection`'s, which emits Part C's connection
// events and audits it. The token is never in an answer, a log line, an audit entry, an event or an error: only its
// last four characters are kept beside the sealed value.
import type { Kysely } from 'kysely';
import type { components } from '../../../generated/admin-api.js';
import type { InstagramAccountApi, InstagramIdentity } from '../../channels/instagram/account.js';
import type { GraphReadFailure } from '../../channels/whatsapp-cloud/account.js';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import {
  findConnectionProvider,
  findProviderByIgUserId,
  saveConnectionProvider,
  setConnectionProvider,
  type ConnectionProviderRow,
} from '../../store/channel-providers.js';
import { isUniqueViolation, type ConnectionRow } from '../../store/console.js';
import type { DB } from '../../store/schema.js';
import { ADMIN_API, audit, type Actor } from '../accounts/actor.js';
import { detachToSandbox } from './detach.js';
import { changeConnection, connectionById, connectionView } from '../console/connections.js';
import { sealToken, tokenLast4, type Keyring } from './credentials.js';

export interface InstagramAccountsDeps {
  db: Kysely<DB>;
  clock: Clock;
  keyring: Keyring;
  graph: InstagramAccountApi;
}

/** What PUT takes: Instagram Login (`ig_user_id`) or Facebook Login (`page_id`), and the token. */
export type InstagramSetup = components['schemas']['AdminInstagramSetupRequest'];

/** The account as the admin API shows it: never the token. */
export type InstagramAccountView = components['schemas']['AdminInstagramAccount'];

const notInstagramGraph = () =>
  new ApiError(404, 'not_instagram_graph', 'The connection has no Instagram account attached.');

const accountInUse = (connectionId: string) =>
  new ApiError(409, 'instagram_account_in_use', 'Another connection already uses this Instagram account.', {
    connection_id: connectionId,
  });

function graphRefusal(failed: GraphReadFailure): ApiError {
  if (failed.failure === 'unavailable')
    return new ApiError(502, 'provider_unavailable', 'The Graph API did not answer; retry.', {
      provider_message: failed.message,
    });
  return new ApiError(422, 'invalid_credentials', 'The Graph API refused the access token for this account.', {
    provider_message: failed.message,
  });
}

const mismatch = (read: InstagramIdentity) =>
  new ApiError(422, 'identity_mismatch', "The token reads another Instagram account than the connection's.", {
    ig_user_id: read.igUserId,
    username: read.username.toLowerCase(),
  });

/** An instagram_graph row: its account's id and login are set (the table's check says so per provider). */
type AccountRow = ConnectionProviderRow & {
  provider: 'instagram_graph';
  login: 'instagram' | 'facebook';
  ig_user_id: string;
  username: string;
};

function accountRowOf(row: ConnectionProviderRow | undefined): AccountRow | undefined {
  if (row?.provider !== 'instagram_graph' || row.login === null || row.ig_user_id === null || row.username === null)
    return undefined;
  return { ...row, provider: 'instagram_graph', login: row.login, ig_user_id: row.ig_user_id, username: row.username };
}

function accountView(connection: ConnectionRow, row: AccountRow): InstagramAccountView {
  return {
    connection_id: connection.id,
    provider: 'instagram_graph',
    login: row.login,
    ig_user_id: row.ig_user_id,
    page_id: row.login === 'facebook' ? row.page_id : null,
    username: row.username,
    token_last4: row.token_last4,
    connection: connectionView(connection),
  };
}

export async function getInstagramAccount(db: Kysely<DB>, connectionId: string): Promise<InstagramAccountView> {
  const connection = await connectionById(db, connectionId);
  const row = accountRowOf(await findConnectionProvider(db, connectionId));
  if (!row) throw notInstagramGraph();
  return accountView(connection, row);
}

/** Another connection's account by that Instagram id: 409. */
async function refuseInUse(db: Kysely<DB>, connection: ConnectionRow, igUserId: string) {
  const other = await findProviderByIgUserId(db, igUserId);
  if (other && other.connection_id !== connection.id) throw accountInUse(other.connection_id);
}

/**
 * Checks the token against the account: it must read it (Instagram Login: the given `ig_user_id`; Facebook Login:
 * the Page's linked account), the account must be the connection's username, and no other connection's.
 */
async function checkAccount(
  deps: InstagramAccountsDeps,
  connection: ConnectionRow,
  setup: InstagramSetup,
): Promise<InstagramIdentity> {
  if (connection.channel !== 'instagram' || connection.username === null)
    throw new ApiError(422, 'not_instagram', 'An Instagram account attaches to an instagram connection only.');
  let account: InstagramIdentity;
  if (setup.login === 'instagram') {
    // Known before any call: another connection's account costs Meta nothing.
    await refuseInUse(deps.db, connection, setup.ig_user_id);
    const read = await deps.graph.readInstagramLogin(setup.access_token);
    if (!read.ok) throw graphRefusal(read);
    account = read.value;
    if (account.igUserId !== setup.ig_user_id) throw mismatch(account);
  } else {
    const read = await deps.graph.readPageAccount(setup.access_token, setup.page_id);
    if (!read.ok) throw graphRefusal(read);
    if (read.value === null)
      throw new ApiError(
        422,
        'no_instagram_account',
        'The Facebook Page has no Instagram professional account linked.',
        {
          page_id: setup.page_id,
        },
      );
    account = read.value;
  }
  if (account.username.toLowerCase() !== connection.username.toLowerCase()) throw mismatch(account);
  if (setup.login === 'facebook') await refuseInUse(deps.db, connection, account.igUserId);
  return account;
}

/** Subscribes the app to the account's webhooks (Instagram Login: the account's; Facebook Login: the Page's). */
async function subscribe(deps: InstagramAccountsDeps, setup: InstagramSetup, account: InstagramIdentity) {
  const subscribed =
    setup.login === 'instagram'
      ? await deps.graph.subscribeAccount(setup.access_token, account.igUserId)
      : await deps.graph.subscribePage(setup.access_token, setup.page_id);
  if (!subscribed.ok) throw graphRefusal(subscribed);
}

export async function setUpInstagramAccount(
  deps: InstagramAccountsDeps,
  connectionId: string,
  setup: InstagramSetup,
  actor: Actor = ADMIN_API,
): Promise<InstagramAccountView> {
  const { db, clock } = deps;
  const connection = await connectionById(db, connectionId);
  const account = await checkAccount(deps, connection, setup);
  await subscribe(deps, setup, account);
  if (connection.status === 'connected')
    await changeConnection(db, clock, connectionId, { status: 'disconnected', disconnect_reason: 'setup_incomplete' });
  const row = await saveAccount(deps, connection, setup, account, actor);
  const connected = await changeConnection(db, clock, connectionId, { status: 'connected' });
  return accountView(connected, row);
}

/** Seals the token and makes the instagram_graph provider serve the connection. */
async function saveAccount(
  deps: InstagramAccountsDeps,
  connection: ConnectionRow,
  setup: InstagramSetup,
  account: InstagramIdentity,
  actor: Actor,
): Promise<AccountRow> {
  const now = deps.clock.now().toISOString();
  const existing = await findConnectionProvider(deps.db, connection.id);
  const row: AccountRow = {
    connection_id: connection.id,
    account_id: connection.account_id,
    provider: 'instagram_graph',
    phone_number_id: null,
    waba_id: null,
    login: setup.login,
    ig_user_id: account.igUserId,
    page_id: setup.login === 'facebook' ? setup.page_id : null,
    username: account.username.toLowerCase(),
    sealed_token: sealToken(deps.keyring, setup.access_token, connection.id),
    token_last4: tokenLast4(setup.access_token),
    verified_name: null,
    templates_synced_at: null,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
  try {
    return await deps.db.transaction().execute(async (tx) => {
      await saveConnectionProvider(tx, row);
      await setConnectionProvider(tx, connection.id, 'instagram_graph', now);
      const { login, ig_user_id, page_id, username, token_last4 } = row;
      await audit(
        tx,
        actor,
        {
          accountId: connection.account_id,
          action: 'connection.updated',
          targetType: 'connection',
          targetId: connection.id,
          details: { provider: 'instagram_graph', login, ig_user_id, page_id, username, token_last4 },
        },
        now,
      );
      return row;
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const other = await findProviderByIgUserId(deps.db, account.igUserId);
    throw other ? accountInUse(other.connection_id) : error;
  }
}

/** DELETE: the token and ids forgotten, the sandbox serving the connection again, which is disconnected. */
export async function detachInstagramAccount(
  deps: Pick<InstagramAccountsDeps, 'db' | 'clock'>,
  connectionId: string,
  actor: Actor = ADMIN_API,
): Promise<ConnectionRow> {
  const { db, clock } = deps;
  const connection = await connectionById(db, connectionId);
  if (!accountRowOf(await findConnectionProvider(db, connectionId))) throw notInstagramGraph();
  return detachToSandbox(db, clock, connection, actor);
}
