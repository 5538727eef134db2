// SQL of accounts, API keys and the audit log.
import type { Kysely, Selectable } from 'kysely';
import type { AccountsTable, ApiKeysTable, DB } from './schema.js';

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;

/** Inserts the account and returns it as stored (timestamps with the database's precision). */
export async function insertAccount(db: Kysely<DB>, row: AccountRow): Promise<AccountRow> {
  return db.insertInto('accounts').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findAccount(db: Kysely<DB>, accountId: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
}

export async function findAccountByAlias(db: Kysely<DB>, alias: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('alias', '=', alias).executeTakeFirst();
}

export async function updateAccount(
  db: Kysely<DB>,
  accountId: string,
  changes: Partial<Pick<AccountRow, 'name' | 'suspended' | 'api_enabled' | 'time_zone'>> & { updated_at: string },
): Promise<AccountRow | undefined> {
  return db.updateTable('accounts').set(changes).where('id', '=', accountId).returningAll().executeTakeFirst();
}

/** Inserts the key and returns it as stored. */
export async function insertApiKey(db: Kysely<DB>, row: ApiKeyRow): Promise<ApiKeyRow> {
  return db.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The key with this hash and its account, whatever their state (the caller decides). */
export async function findKeyByHash(
  db: Kysely<DB>,
  hash: string,
): Promise<{ key: ApiKeyRow; account: AccountRow } | undefined> {
  const key = await db.selectFrom('api_keys').selectAll().where('hash', '=', hash).executeTakeFirst();
  if (!key) return undefined;
  const account = await findAccount(db, key.account_id);
  return account ? { key, account } : undefined;
}

export async function countActiveKeys(db: Kysely<DB>, accountId: string, now: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function revokeKey(db: Kysely<DB>, keyId: string, now: string): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export async function findKey(db: Kysely<DB>, keyId: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
}

/** Every key of the account, revoked and expired ones included, oldest first. */
export async function listKeys(db: Kysely<DB>, accountId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
