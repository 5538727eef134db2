// SQL of reply lists (Part B, Reply lists): names unique per account by their folded key (`name_key`), deleted
// for good. Every query filters by account.
import type { Kysely, Selectable } from 'kysely';
import type { CursorCodec } from './cursor.js';
import { paginate, type Page, type PageRequest } from './pagination.js';
import type { DB, RepliesListsTable } from './schema.js';

export type RepliesListRow = Selectable<RepliesListsTable>;

/** A list as the list route reads it: without its replies. */
export type RepliesListSummaryRow = Omit<RepliesListRow, 'replies' | 'account_id' | 'name_key'>;

/** The row to insert: `replies` as the JSON text of the array. */
export type NewRepliesListRow = Omit<RepliesListRow, 'replies'> & { replies: string };

/** Inserts the list and answers the row as stored (timestamps with microseconds, as every read gives them). */
export async function insertRepliesList(db: Kysely<DB>, row: NewRepliesListRow): Promise<RepliesListRow> {
  return db.insertInto('replies_lists').values(row).returningAll().executeTakeFirstOrThrow();
}

/**
 * The list with this id, or undefined (no such list, or another account's). `forShare`: for a save that names the
 * list, so a deletion (which locks it for update) either sees the save's references or waits for it.
 */
export async function findRepliesList(
  db: Kysely<DB>,
  accountId: string,
  listId: string,
  options: { forUpdate?: boolean; forShare?: boolean } = {},
): Promise<RepliesListRow | undefined> {
  let q = db.selectFrom('replies_lists').selectAll().where('account_id', '=', accountId).where('id', '=', listId);
  if (options.forUpdate) q = q.forUpdate();
  else if (options.forShare) q = q.forShare();
  return q.executeTakeFirst();
}

/** The list whose name has this key (the name with letter case folded, as the unique index compares). */
export async function findRepliesListByNameKey(
  db: Kysely<DB>,
  accountId: string,
  nameKey: string,
): Promise<RepliesListRow | undefined> {
  return db
    .selectFrom('replies_lists')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('name_key', '=', nameKey)
    .executeTakeFirst();
}

export async function updateRepliesListFields(
  db: Kysely<DB>,
  accountId: string,
  listId: string,
  fields: { name?: string; name_key?: string; replies?: string; reply_count?: number },
  now: string,
): Promise<RepliesListRow | undefined> {
  return db
    .updateTable('replies_lists')
    .set({ ...fields, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', listId)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes the list for good; false when there was none. */
export async function deleteRepliesListRow(db: Kysely<DB>, accountId: string, listId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('replies_lists')
    .where('account_id', '=', accountId)
    .where('id', '=', listId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** GET /v1/replies-lists: the account's lists oldest first (`created_at`, then id), without their replies. */
export async function selectRepliesListsPage(
  db: Kysely<DB>,
  codec: CursorCodec,
  accountId: string,
  page: PageRequest,
): Promise<Page<RepliesListSummaryRow>> {
  return paginate(
    db
      .selectFrom('replies_lists')
      .select(['id', 'name', 'reply_count', 'created_at', 'updated_at'])
      .where('account_id', '=', accountId),
    {
      codec,
      list: 'replies_lists',
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
