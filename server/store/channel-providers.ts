// SQL of the connections a real channel serves (connection_providers): the number's ids on Meta, its sealed
// token, and the template mirror a sync writes. `connections.provider` says who carries a connection's messages;
// it and the details row change together, in the caller's transaction.
import type { Kysely, Selectable } from 'kysely';
import type { ChannelProviderName, ConnectionProvidersTable, DB } from './schema.js';
import type { ConnectionRow, TemplateRow } from './console.js';

export type ConnectionProviderRow = Selectable<ConnectionProvidersTable>;

export async function findConnectionProvider(
  db: Kysely<DB>,
  connectionId: string,
): Promise<ConnectionProviderRow | undefined> {
  return db.selectFrom('connection_providers').selectAll().where('connection_id', '=', connectionId).executeTakeFirst();
}

/** The connection a WhatsApp Cloud number (its `phone_number_id`) is attached to, in one statement. */
export async function findConnectionOfNumber(
  db: Kysely<DB>,
  phoneNumberId: string,
): Promise<ConnectionRow | undefined> {
  return db
    .selectFrom('connections')
    .innerJoin('connection_providers', 'connection_providers.connection_id', 'connections.id')
    .selectAll('connections')
    .where('connection_providers.provider', '=', 'whatsapp_cloud')
    .where('connection_providers.phone_number_id', '=', phoneNumberId)
    .executeTakeFirst();
}

/** The numbers attached from one WhatsApp Business Account (a template webhook names the account). */
export async function selectNumbersOfBusinessAccount(
  db: Kysely<DB>,
  wabaId: string,
): Promise<Pick<ConnectionProviderRow, 'connection_id' | 'account_id'>[]> {
  return db
    .selectFrom('connection_providers')
    .select(['connection_id', 'account_id'])
    .where('provider', '=', 'whatsapp_cloud')
    .where('waba_id', '=', wabaId)
    .limit(100)
    .execute();
}

/** The connection Meta's webhook names by its number's id. */
export async function findProviderByPhoneNumberId(
  db: Kysely<DB>,
  phoneNumberId: string,
): Promise<ConnectionProviderRow | undefined> {
  return db
    .selectFrom('connection_providers')
    .selectAll()
    .where('provider', '=', 'whatsapp_cloud')
    .where('phone_number_id', '=', phoneNumberId)
    .executeTakeFirst();
}

/** Writes the connection's details (a first attach or a new token) and returns them as stored. */
export async function saveConnectionProvider(
  db: Kysely<DB>,
  row: ConnectionProviderRow,
): Promise<ConnectionProviderRow> {
  const { connection_id: _id, created_at: _created, ...changes } = row;
  return db
    .insertInto('connection_providers')
    .values(row)
    .onConflict((oc) => oc.column('connection_id').doUpdateSet(changes))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteConnectionProvider(db: Kysely<DB>, connectionId: string): Promise<boolean> {
  const deleted = await db
    .deleteFrom('connection_providers')
    .where('connection_id', '=', connectionId)
    .executeTakeFirst();
  return deleted.numDeletedRows > 0n;
}

export async function setConnectionProvider(
  db: Kysely<DB>,
  connectionId: string,
  provider: ChannelProviderName,
  now: string,
): Promise<void> {
  await db.updateTable('connections').set({ provider, updated_at: now }).where('id', '=', connectionId).execute();
}

export async function markTemplatesSynced(db: Kysely<DB>, connectionId: string, now: string): Promise<void> {
  await db
    .updateTable('connection_providers')
    .set({ templates_synced_at: now, updated_at: now })
    .where('connection_id', '=', connectionId)
    .execute();
}

export async function connectionTemplates(db: Kysely<DB>, connectionId: string): Promise<TemplateRow[]> {
  return db.selectFrom('templates').selectAll().where('connection_id', '=', connectionId).execute();
}

/** Adds the template or, when the number has one by that name and language, changes it to this one. */
export async function upsertTemplate(db: Kysely<DB>, row: TemplateRow): Promise<void> {
  const { body, variable_count, status, unsupported_features, updated_at } = row;
  await db
    .insertInto('templates')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'connection_id', 'name', 'language'])
        .doUpdateSet({ body, variable_count, status, unsupported_features, updated_at }),
    )
    .execute();
}

export async function deleteTemplates(db: Kysely<DB>, templateIds: string[]): Promise<void> {
  if (templateIds.length === 0) return;
  await db.deleteFrom('templates').where('id', 'in', templateIds).execute();
}

/** The Instagram account (its Instagram id, the webhook's `entry.id`) attached to a connection. */
export async function findProviderByIgUserId(
  db: Kysely<DB>,
  igUserId: string,
): Promise<ConnectionProviderRow | undefined> {
  return db
    .selectFrom('connection_providers')
    .selectAll()
    .where('provider', '=', 'instagram_graph')
    .where('ig_user_id', '=', igUserId)
    .executeTakeFirst();
}

/** The connection an Instagram account (its Instagram id) is attached to, in one statement. */
export async function findConnectionOfInstagramAccount(
  db: Kysely<DB>,
  igUserId: string,
): Promise<ConnectionRow | undefined> {
  return db
    .selectFrom('connections')
    .innerJoin('connection_providers', 'connection_providers.connection_id', 'connections.id')
    .selectAll('connections')
    .where('connection_providers.provider', '=', 'instagram_graph')
    .where('connection_providers.ig_user_id', '=', igUserId)
    .executeTakeFirst();
}
