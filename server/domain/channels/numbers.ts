// Attaching a WhatsApp Cloud API number to a whatsapp connection (the admin routes
// `/admin/v1/connections/{connectionId}/whatsapp-cloud`), reading its templates again, and detaching it.
//
// The story of an attach: the token is checked against the number first (a refused token or another number
// changes nothing); a connected connection then goes `disconnected` with `setup_incomplete` and sends nothing
// while the token is sealed and the templates are read; then it is `connected` again. Each status change is
// `changeConnection`'s, which emits Part C's connection events and audits it. The token is never in an answer,
// a log line, an audit entry, an event or an error: only its last four characters are kept beside the sealed
// value.
import type { Kysely } from 'kysely';
import type { components } from '../../../generated/admin-api.js';
import type { Logger } from 'pino';
import type { GraphReadFailure, WhatsAppCloudAccountApi } from '../../channels/whatsapp-cloud/account.js';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import {
  connectionTemplates,
  deleteTemplates,
  findConnectionProvider,
  findProviderByPhoneNumberId,
  markTemplatesSynced,
  saveConnectionProvider,
  setConnectionProvider,
  upsertTemplate,
  type ConnectionProviderRow,
} from '../../store/channel-providers.js';
import { isUniqueViolation, type ConnectionRow } from '../../store/console.js';
import type { DB } from '../../store/schema.js';
import { ADMIN_API, audit, type Actor } from '../accounts/actor.js';
import { changeConnection, connectionById, connectionView } from '../console/connections.js';
import { detachToSandbox } from './detach.js';
import { openToken, sealToken, tokenLast4, type Keyring } from './credentials.js';
import { metaTemplateSchema, syncedTemplate } from './templates.js';
import { randomUUID } from 'node:crypto';

export interface NumbersDeps {
  db: Kysely<DB>;
  clock: Clock;
  keyring: Keyring;
  graph: WhatsAppCloudAccountApi;
  logger?: Logger;
}

export interface NumberSetup {
  phone_number_id: string;
  waba_id: string;
  access_token: string;
}

/** The number as the admin API shows it: never the token. */
export type NumberView = components['schemas']['AdminWhatsAppCloudNumber'];

const notCloud = () =>
  new ApiError(404, 'not_whatsapp_cloud', 'The connection has no WhatsApp Cloud API number attached.');

function graphRefusal(failed: GraphReadFailure): ApiError {
  if (failed.failure === 'unavailable')
    return new ApiError(502, 'provider_unavailable', 'The Graph API did not answer; retry.', {
      provider_message: failed.message,
    });
  return new ApiError(422, 'invalid_credentials', 'The Graph API refused the access token for this number.', {
    provider_message: failed.message,
  });
}

/** The digits of a number as Meta displays it (`+1 555-010-0001`) or as the connection keeps it (E.164). */
const digitsOf = (phone: string) => phone.replace(/\D/g, '');

/** A whatsapp_cloud row: its number's ids are set (the table's check says so per provider). */
type NumberRow = ConnectionProviderRow & { provider: 'whatsapp_cloud'; phone_number_id: string; waba_id: string };

function numberRowOf(row: ConnectionProviderRow | undefined): NumberRow | undefined {
  if (row?.provider !== 'whatsapp_cloud' || row.phone_number_id === null || row.waba_id === null) return undefined;
  return { ...row, provider: 'whatsapp_cloud', phone_number_id: row.phone_number_id, waba_id: row.waba_id };
}

async function numberView(db: Kysely<DB>, connection: ConnectionRow, row: NumberRow): Promise<NumberView> {
  const templates = await connectionTemplates(db, connection.id);
  return {
    connection_id: connection.id,
    provider: 'whatsapp_cloud',
    phone_number_id: row.phone_number_id,
    waba_id: row.waba_id,
    token_last4: row.token_last4,
    verified_name: row.verified_name,
    templates_synced: templates.length,
    templates_synced_at: row.templates_synced_at,
    connection: connectionView(connection),
  };
}

export async function getNumber(db: Kysely<DB>, connectionId: string): Promise<NumberView> {
  const connection = await connectionById(db, connectionId);
  const row = numberRowOf(await findConnectionProvider(db, connectionId));
  if (!row) throw notCloud();
  return numberView(db, connection, row);
}

/** Checks the token against the number: it must read it, and it must be the connection's phone. */
async function checkNumber(deps: NumbersDeps, connection: ConnectionRow, setup: NumberSetup) {
  if (connection.channel !== 'whatsapp' || connection.phone === null)
    throw new ApiError(422, 'not_whatsapp', 'A WhatsApp Cloud API number attaches to a whatsapp connection only.');
  const other = await findProviderByPhoneNumberId(deps.db, setup.phone_number_id);
  if (other && other.connection_id !== connection.id) throw numberInUse(other.connection_id);
  const read = await deps.graph.readNumber(setup.access_token, setup.phone_number_id);
  if (!read.ok) throw graphRefusal(read);
  if (digitsOf(read.value.displayPhoneNumber) !== digitsOf(connection.phone))
    throw new ApiError(
      422,
      'identity_mismatch',
      "The phone_number_id belongs to another number than the connection's phone.",
      { display_phone_number: read.value.displayPhoneNumber },
    );
  return read.value;
}

const numberInUse = (connectionId: string) =>
  new ApiError(409, 'phone_number_in_use', 'Another connection already uses this phone_number_id.', {
    connection_id: connectionId,
  });

export async function setUpNumber(
  deps: NumbersDeps,
  connectionId: string,
  setup: NumberSetup,
  actor: Actor = ADMIN_API,
): Promise<NumberView> {
  const { db, clock } = deps;
  const connection = await connectionById(db, connectionId);
  const profile = await checkNumber(deps, connection, setup);
  if (connection.status === 'connected')
    await changeConnection(db, clock, connectionId, { status: 'disconnected', disconnect_reason: 'setup_incomplete' });
  const row = await saveNumber(deps, connection, setup, profile.verifiedName, actor);
  await syncTemplates(deps, connection, row);
  const connected = await changeConnection(db, clock, connectionId, { status: 'connected' });
  return getNumberOf(db, connected);
}

async function getNumberOf(db: Kysely<DB>, connection: ConnectionRow): Promise<NumberView> {
  const row = numberRowOf(await findConnectionProvider(db, connection.id));
  if (!row) throw notCloud();
  return numberView(db, connection, row);
}

/** Seals the token and makes the whatsapp cloud provider serve the connection. */
async function saveNumber(
  deps: NumbersDeps,
  connection: ConnectionRow,
  setup: NumberSetup,
  verifiedName: string | null,
  actor: Actor,
): Promise<NumberRow> {
  const now = deps.clock.now().toISOString();
  const existing = numberRowOf(await findConnectionProvider(deps.db, connection.id));
  const row: NumberRow = {
    connection_id: connection.id,
    account_id: connection.account_id,
    provider: 'whatsapp_cloud',
    phone_number_id: setup.phone_number_id,
    waba_id: setup.waba_id,
    sealed_token: sealToken(deps.keyring, setup.access_token, connection.id),
    token_last4: tokenLast4(setup.access_token),
    verified_name: verifiedName,
    login: null,
    ig_user_id: null,
    page_id: null,
    username: null,
    templates_synced_at: existing?.templates_synced_at ?? null,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
  try {
    return await deps.db.transaction().execute(async (tx) => {
      await saveConnectionProvider(tx, row);
      await setConnectionProvider(tx, connection.id, 'whatsapp_cloud', now);
      const { phone_number_id, waba_id, token_last4 } = row;
      await audit(
        tx,
        actor,
        {
          accountId: connection.account_id,
          action: 'connection.updated',
          targetType: 'connection',
          targetId: connection.id,
          details: { provider: 'whatsapp_cloud', phone_number_id, waba_id, token_last4 },
        },
        now,
      );
      return row;
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const other = await findProviderByPhoneNumberId(deps.db, setup.phone_number_id);
    throw other ? numberInUse(other.connection_id) : error;
  }
}

/**
 * Reads the number's templates and makes the connection's match them: added, changed, or removed when Meta no
 * longer has them. A template the platform cannot read is left out and logged.
 */
async function syncTemplates(deps: NumbersDeps, connection: ConnectionRow, row: NumberRow) {
  const read = await deps.graph.readTemplates(
    openToken(deps.keyring, row.sealed_token, row.connection_id),
    row.waba_id,
  );
  if (!read.ok) throw graphRefusal(read);
  const now = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (tx) => {
    const kept = new Set<string>();
    for (const listed of read.value) {
      const parsed = metaTemplateSchema.safeParse(listed);
      const synced = parsed.success ? syncedTemplate(parsed.data) : { skipped: 'not a template the Graph API lists' };
      if ('skipped' in synced) {
        deps.logger?.warn({ connection_id: connection.id, reason: synced.skipped }, 'a template was not read');
        continue;
      }
      const template = synced.template;
      kept.add(`${template.name}\u0000${template.language}`);
      await upsertTemplate(tx, {
        id: randomUUID(),
        account_id: connection.account_id,
        connection_id: connection.id,
        ...template,
        created_at: now,
        updated_at: now,
      });
    }
    const gone = (await connectionTemplates(tx, connection.id)).filter(
      (t) => !kept.has(`${t.name}\u0000${t.language}`),
    );
    await deleteTemplates(
      tx,
      gone.map((t) => t.id),
    );
    await markTemplatesSynced(tx, connection.id, now);
  });
}

/** POST …/template-sync: the templates read again. A refused token disconnects the connection. */
export async function resyncTemplates(deps: NumbersDeps, connectionId: string): Promise<NumberView> {
  const connection = await connectionById(deps.db, connectionId);
  const row = numberRowOf(await findConnectionProvider(deps.db, connectionId));
  if (!row) throw notCloud();
  try {
    await syncTemplates(deps, connection, row);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'invalid_credentials' && connection.status === 'connected')
      await changeConnection(deps.db, deps.clock, connectionId, {
        status: 'disconnected',
        disconnect_reason: 'authorization_lost',
      });
    throw error;
  }
  return getNumber(deps.db, connectionId);
}

/** DELETE: the token and ids forgotten, the sandbox serving the connection again, which is disconnected. */
export async function detachNumber(
  deps: Pick<NumbersDeps, 'db' | 'clock'>,
  connectionId: string,
  actor: Actor = ADMIN_API,
): Promise<ConnectionRow> {
  const { db, clock } = deps;
  const connection = await connectionById(db, connectionId);
  if (!numberRowOf(await findConnectionProvider(db, connectionId))) throw notCloud();
  return detachToSandbox(db, clock, connection, actor);
}
