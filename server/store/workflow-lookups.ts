// SQL of what automation validation asks about the account: which of the names, keys and ids a graph uses
// exist. One query per kind, whatever the graph's size.
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

/** The folded names (`name_key`) among `keys` that the account's active tags have. */
export async function selectExistingTagNameKeys(db: Kysely<DB>, accountId: string, keys: readonly string[]) {
  if (keys.length === 0) return [];
  const rows = await db
    .selectFrom('tags')
    .select('name_key')
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where('name_key', 'in', [...keys])
    .execute();
  return rows.map((r) => r.name_key);
}

/** Of `keys`, those that are keys of the account's custom fields. */
export async function selectExistingCustomFieldKeys(db: Kysely<DB>, accountId: string, keys: readonly string[]) {
  if (keys.length === 0) return [];
  const rows = await db
    .selectFrom('custom_fields')
    .select('name')
    .where('account_id', '=', accountId)
    .where('name', 'in', [...keys])
    .execute();
  return rows.map((r) => r.name);
}

/** Of `ids`, those that are the account's uploads. */
export async function selectExistingUploadIds(db: Kysely<DB>, accountId: string, ids: readonly string[]) {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('uploads')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', 'in', [...ids])
    .execute();
  return rows.map((r) => r.id);
}

/** The account's connections among `ids`. */
export async function selectConnectionsByIds(db: Kysely<DB>, accountId: string, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('connections')
    .select(['id', 'channel', 'status'])
    .where('account_id', '=', accountId)
    .where('id', 'in', [...ids])
    .execute();
}

/** The account's connected instagram connection (the oldest, if several), or undefined. */
export async function selectConnectedInstagram(db: Kysely<DB>, accountId: string) {
  return db
    .selectFrom('connections')
    .select('id')
    .where('account_id', '=', accountId)
    .where('channel', '=', 'instagram')
    .where('status', '=', 'connected')
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
}

export async function repliesListExists(db: Kysely<DB>, accountId: string, listId: string): Promise<boolean> {
  const row = await db
    .selectFrom('replies_lists')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', listId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The account's custom field with this key (a data or math block writes it). */
export async function findCustomFieldByKey(db: Kysely<DB>, accountId: string, key: string) {
  return db
    .selectFrom('custom_fields')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('name', '=', key)
    .executeTakeFirst();
}
