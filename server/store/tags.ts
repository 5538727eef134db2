// SQL of tags. Every query filters by account; only active tags (deleted_at null) are seen by the public routes.
import type { Kysely, Selectable } from 'kysely';
import type { CursorCodec } from './cursor.js';
import { paginate, type Page, type PageRequest } from './pagination.js';
import type { DB, TagsTable } from './schema.js';

export type TagRow = Selectable<TagsTable>;

/** Inserts the tag and answers the row as stored (timestamps with microseconds, as every read gives them). */
export async function insertTag(db: Kysely<DB>, row: TagRow): Promise<TagRow> {
  return db.insertInto('tags').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The active tag with this id, or undefined (no such tag, deleted, or another account's). */
export async function findActiveTag(
  db: Kysely<DB>,
  accountId: string,
  tagId: string,
  options: { forUpdate?: boolean } = {},
): Promise<TagRow | undefined> {
  let q = db
    .selectFrom('tags')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', tagId)
    .where('deleted_at', 'is', null);
  if (options.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** The active tag whose name has this key (the name with letter case folded, as the unique index compares). */
export async function findActiveTagByNameKey(
  db: Kysely<DB>,
  accountId: string,
  nameKey: string,
): Promise<TagRow | undefined> {
  return db
    .selectFrom('tags')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where('name_key', '=', nameKey)
    .executeTakeFirst();
}

export async function updateTagName(
  db: Kysely<DB>,
  accountId: string,
  tagId: string,
  name: { name: string; name_key: string },
  now: string,
): Promise<TagRow | undefined> {
  return db
    .updateTable('tags')
    .set({ ...name, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', tagId)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Marks the tag deleted; false when it was not active (already deleted, or no such tag). */
export async function markTagDeleted(db: Kysely<DB>, accountId: string, tagId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('tags')
    .set({ deleted_at: now, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', tagId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** GET /v1/tags: the account's active tags oldest first (`created_at`, then id). */
export async function selectTagsPage(
  db: Kysely<DB>,
  codec: CursorCodec,
  accountId: string,
  page: PageRequest,
): Promise<Page<TagRow>> {
  return paginate(
    db.selectFrom('tags').selectAll().where('account_id', '=', accountId).where('deleted_at', 'is', null),
    {
      codec,
      list: 'tags',
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

/** The account's active tags, oldest first (the order the numeric suffix of tag slugs follows). */
export async function selectTagNamesByAge(
  db: Kysely<DB>,
  accountId: string,
): Promise<Array<{ id: string; name: string }>> {
  return db
    .selectFrom('tags')
    .select(['id', 'name'])
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
