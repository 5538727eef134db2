// SQL of what the vendor's console creates: connections, custom fields (and every key an account ever used),
// whatsapp templates and uploads. Every query of account data takes the account first and filters by it; the
// only exceptions are the `…ById` lookups the admin API needs, which address a resource by its id alone and
// give its account to every later query.
import { sql, type Kysely, type Selectable } from 'kysely';
import { codeOf, isRecord } from '../guards.js';
import type { CursorCodec } from './cursor.js';
import { paginate, type Page, type PageRequest } from './pagination.js';
import type {
  ConnectionsTable,
  CustomFieldOptionRow,
  CustomFieldsTable,
  DB,
  TemplatesTable,
  UploadsTable,
} from './schema.js';

export type ConnectionRow = Selectable<ConnectionsTable>;
export type CustomFieldRow = Selectable<CustomFieldsTable>;
export type TemplateRow = Selectable<TemplatesTable>;
export type UploadRow = Selectable<UploadsTable>;

/** A unique constraint refused the write (the same SQLSTATE on PostgreSQL and PGlite). */
export function isUniqueViolation(error: unknown): boolean {
  return codeOf(error) === '23505';
}

/** A unique violation of the index or constraint `name` (PostgreSQL and PGlite name it in `constraint`). */
export function isUniqueViolationOf(error: unknown, name: string): boolean {
  return isUniqueViolation(error) && isRecord(error) && error.constraint === name;
}

/**
 * Locks the account row for the rest of the transaction, so console writes that check a per-account rule
 * (a free key, a free identity) cannot pass it together. False when there is no such account.
 */
export async function lockAccount(db: Kysely<DB>, accountId: string): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().executeTakeFirst();
  return row !== undefined;
}

// ------------------------------------------------------------------------------------------- connections

/** Inserts the row and returns it as stored. */
export async function insertConnection(db: Kysely<DB>, row: ConnectionRow): Promise<ConnectionRow> {
  return db.insertInto('connections').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findConnectionById(db: Kysely<DB>, connectionId: string): Promise<ConnectionRow | undefined> {
  return db.selectFrom('connections').selectAll().where('id', '=', connectionId).executeTakeFirst();
}

export async function findConnection(
  db: Kysely<DB>,
  accountId: string,
  connectionId: string,
): Promise<ConnectionRow | undefined> {
  return db
    .selectFrom('connections')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', connectionId)
    .executeTakeFirst();
}

/** The account's connection with this whatsapp number or instagram username. */
export async function findConnectionByIdentity(
  db: Kysely<DB>,
  accountId: string,
  identity: { phone: string } | { username: string },
): Promise<ConnectionRow | undefined> {
  const query = db.selectFrom('connections').selectAll().where('account_id', '=', accountId);
  return (
    'phone' in identity ? query.where('phone', '=', identity.phone) : query.where('username', '=', identity.username)
  ).executeTakeFirst();
}

export async function updateConnection(
  db: Kysely<DB>,
  accountId: string,
  connectionId: string,
  changes: Partial<Pick<ConnectionRow, 'name' | 'status' | 'disconnect_reason'>> & { updated_at: string },
): Promise<ConnectionRow | undefined> {
  return db
    .updateTable('connections')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', connectionId)
    .returningAll()
    .executeTakeFirst();
}

// ----------------------------------------------------------------------------------------- custom fields

/** The keys the account ever used that are `base` or `base-<anything>` (the candidates of the suffix rule). */
export async function usedFieldKeys(db: Kysely<DB>, accountId: string, base: string): Promise<string[]> {
  // `base` holds only a-z, 0-9 and `-`, so it needs no LIKE escaping.
  const rows = await db
    .selectFrom('custom_field_keys')
    .select('name')
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('name', '=', base), eb('name', 'like', `${base}-%`)]))
    .execute();
  return rows.map((r) => r.name);
}

/** Inserts the field (and its key) and returns the field as stored. */
export async function insertCustomField(
  db: Kysely<DB>,
  row: Omit<CustomFieldRow, 'options'> & { options: CustomFieldOptionRow[] | null },
): Promise<CustomFieldRow> {
  await db
    .insertInto('custom_field_keys')
    .values({ account_id: row.account_id, name: row.name, created_at: row.created_at })
    .execute();
  return db
    .insertInto('custom_fields')
    .values({ ...row, options: row.options === null ? null : JSON.stringify(row.options) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findCustomFieldById(db: Kysely<DB>, fieldId: string): Promise<CustomFieldRow | undefined> {
  return db.selectFrom('custom_fields').selectAll().where('id', '=', fieldId).executeTakeFirst();
}

/** Deletes the field; its key stays in custom_field_keys. */
export async function deleteCustomField(
  db: Kysely<DB>,
  accountId: string,
  fieldId: string,
): Promise<CustomFieldRow | undefined> {
  return db
    .deleteFrom('custom_fields')
    .where('account_id', '=', accountId)
    .where('id', '=', fieldId)
    .returningAll()
    .executeTakeFirst();
}

// --------------------------------------------------------------------------------------------- templates

/** Inserts the row and returns it as stored. */
export async function insertTemplate(db: Kysely<DB>, row: TemplateRow): Promise<TemplateRow> {
  return db.insertInto('templates').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findTemplateById(db: Kysely<DB>, templateId: string): Promise<TemplateRow | undefined> {
  return db.selectFrom('templates').selectAll().where('id', '=', templateId).executeTakeFirst();
}

/** The template a send names: on the conversation's connection, by name and language. */
export async function findTemplate(
  db: Kysely<DB>,
  accountId: string,
  connectionId: string,
  name: string,
  language: string,
): Promise<TemplateRow | undefined> {
  return db
    .selectFrom('templates')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('connection_id', '=', connectionId)
    .where('name', '=', name)
    .where('language', '=', language)
    .executeTakeFirst();
}

export async function updateTemplateStatus(
  db: Kysely<DB>,
  accountId: string,
  templateId: string,
  status: TemplateRow['status'],
  now: string,
): Promise<TemplateRow | undefined> {
  return db
    .updateTable('templates')
    .set({ status, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', templateId)
    .returningAll()
    .executeTakeFirst();
}

// ----------------------------------------------------------------------------------------------- uploads

/** Inserts the row and returns it as stored. */
export async function insertUpload(db: Kysely<DB>, row: UploadRow): Promise<UploadRow> {
  return db.insertInto('uploads').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findUpload(db: Kysely<DB>, accountId: string, uploadId: string): Promise<UploadRow | undefined> {
  return db
    .selectFrom('uploads')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', uploadId)
    .executeTakeFirst();
}

// ----------------------------------------------------------------------------------------- public lists

/** GET /v1/connections: the account's connections oldest first (`created_at`, then id). */
export async function selectConnectionsPage(
  db: Kysely<DB>,
  codec: CursorCodec,
  accountId: string,
  page: PageRequest,
): Promise<Page<ConnectionRow>> {
  return paginate(
    db.selectFrom('connections').selectAll().where('account_id', '=', accountId),
    {
      codec,
      list: 'connections',
      accountId,
      order: 'asc',
      keys: [
        { column: 'created_at', field: 'created_at', type: 'timestamptz' },
        { column: 'id', field: 'id', type: 'uuid' },
      ],
    },
    page,
  );
}

/** GET /v1/custom-fields: the account's fields by `name` (unique in the account), then id. */
export async function selectCustomFieldsPage(
  db: Kysely<DB>,
  codec: CursorCodec,
  accountId: string,
  page: PageRequest,
): Promise<Page<CustomFieldRow>> {
  // Byte order (`collate "C"`), not the database's locale: a locale may sort `e-mail` and `email` either way,
  // and the order and the cursor comparison must be the same on every engine and server. The subquery gives
  // the column that collation, so both the ORDER BY and the keyset comparison of paginate use it.
  const fields = db
    .selectFrom('custom_fields')
    .select(['id', 'account_id', sql<string>`name collate "C"`.as('name'), 'label', 'type', 'options'])
    .select(['created_at', 'updated_at'])
    .where('account_id', '=', accountId)
    .as('f');
  return paginate(
    db.selectFrom(fields).selectAll(),
    {
      codec,
      list: 'custom_fields',
      accountId,
      order: 'asc',
      keys: [
        { column: 'f.name', field: 'name', type: 'text' },
        { column: 'f.id', field: 'id', type: 'uuid' },
      ],
    },
    page,
  );
}

/** Whether the account has any whatsapp template. */
export async function accountHasTemplates(db: Kysely<DB>, accountId: string): Promise<boolean> {
  const row = await db.selectFrom('templates').select('id').where('account_id', '=', accountId).executeTakeFirst();
  return row !== undefined;
}

/** The account's oldest connected connection of `channel`. */
export async function firstConnectedConnection(
  db: Kysely<DB>,
  accountId: string,
  channel: 'instagram' | 'whatsapp',
): Promise<{ id: string } | undefined> {
  return db
    .selectFrom('connections')
    .select('id')
    .where('account_id', '=', accountId)
    .where('channel', '=', channel)
    .where('status', '=', 'connected')
    .orderBy('created_at')
    .executeTakeFirst();
}
