// SQL of workflow folders (Part B, Folders): a tree by parent_id, deleted for good with its subtree. Every
// query filters by account and by the folder type (`workflow`, the only kind so far).
import { sql, type Kysely, type Selectable } from 'kysely';
import { codeOf } from '../guards.js';
import type { CursorCodec } from './cursor.js';
import { paginate, type Page, type PageRequest } from './pagination.js';
import type { DB, WorkflowFoldersTable } from './schema.js';

export type FolderRow = Selectable<WorkflowFoldersTable>;

/** The one kind of folder so far. */
export const WORKFLOW_FOLDER = 'workflow';

/** True for PostgreSQL's foreign_key_violation (a parent folder deleted between the check and the write). */
export function isForeignKeyViolation(error: unknown): boolean {
  return codeOf(error) === '23503';
}

/** Inserts the folder and answers the row as stored (timestamps with microseconds, as every read gives them). */
export async function insertFolder(db: Kysely<DB>, row: FolderRow): Promise<FolderRow> {
  return db.insertInto('workflow_folders').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The workflow folder with this id, or undefined (no such folder, another kind, or another account's). */
export async function findWorkflowFolder(
  db: Kysely<DB>,
  accountId: string,
  folderId: string,
  options: { forUpdate?: boolean } = {},
): Promise<FolderRow | undefined> {
  let q = db
    .selectFrom('workflow_folders')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', folderId)
    .where('type', '=', WORKFLOW_FOLDER);
  if (options.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** The folder and every folder above it (its parent, the parent's parent… up to the top level). */
export async function selectFolderAndAncestorIds(
  db: Kysely<DB>,
  accountId: string,
  folderId: string,
): Promise<string[]> {
  // `union` (not `union all`) ends the walk even on a cycle, which the service never lets form.
  const { rows } = await sql<{ id: string }>`
    with recursive up (id, parent_id) as (
      select id, parent_id from workflow_folders where account_id = ${accountId} and id = ${folderId}
      union
      select f.id, f.parent_id
        from workflow_folders f join up on f.id = up.parent_id
       where f.account_id = ${accountId}
    )
    select id from up
  `.execute(db);
  return rows.map((row) => row.id);
}

/**
 * The folder and its subfolders of every level: the folder first, then level by level, each level oldest first
 * (`created_at`, then id).
 */
export async function selectFolderSubtreeIds(db: Kysely<DB>, accountId: string, folderId: string): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    with recursive down (id, depth, created_at) as (
      select id, 0, created_at from workflow_folders where account_id = ${accountId} and id = ${folderId}
      union all
      select f.id, down.depth + 1, f.created_at
        from workflow_folders f join down on f.parent_id = down.id
       where f.account_id = ${accountId}
    )
    select id from down order by depth, created_at, id
  `.execute(db);
  return rows.map((row) => row.id);
}

/**
 * Locks these folders of the account for the rest of the transaction. A write that sets a `folder_id` holds a key
 * lock on its folder until it commits (the foreign key), so after this every such write is either committed and
 * seen, or waits and then finds the folder gone (23503).
 */
export async function lockFolders(db: Kysely<DB>, accountId: string, folderIds: readonly string[]): Promise<void> {
  if (folderIds.length === 0) return;
  await db
    .selectFrom('workflow_folders')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', 'in', folderIds)
    .orderBy('id')
    .forUpdate()
    .execute();
}

export async function updateFolderFields(
  db: Kysely<DB>,
  accountId: string,
  folderId: string,
  fields: { name?: string; parent_id?: string | null },
  now: string,
): Promise<FolderRow | undefined> {
  return db
    .updateTable('workflow_folders')
    .set({ ...fields, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', folderId)
    .where('type', '=', WORKFLOW_FOLDER)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Takes the account's automations (in the trash too) out of these folders: `folder_id` null, and, as any move
 * between folders, `revision` + 1 and `updated_at` now. Runs before the folders' deletion, whose foreign key
 * would null `folder_id` without counting the move.
 */
export async function moveWorkflowsOutOfFolders(
  db: Kysely<DB>,
  accountId: string,
  folderIds: readonly string[],
  now: string,
): Promise<number> {
  if (folderIds.length === 0) return 0;
  const result = await db
    .updateTable('workflows')
    .set((eb) => ({ folder_id: null, revision: eb('revision', '+', 1), updated_at: now }))
    .where('account_id', '=', accountId)
    .where('folder_id', 'in', folderIds)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Deletes these folders of the account for good; the number deleted. */
export async function deleteFolderRows(
  db: Kysely<DB>,
  accountId: string,
  folderIds: readonly string[],
): Promise<number> {
  if (folderIds.length === 0) return 0;
  const result = await db
    .deleteFrom('workflow_folders')
    .where('account_id', '=', accountId)
    .where('id', 'in', folderIds)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** GET /v1/folders: the account's folders of `type`, every level, oldest first (`created_at`, then id). */
export async function selectFoldersPage(
  db: Kysely<DB>,
  codec: CursorCodec,
  accountId: string,
  type: string,
  page: PageRequest,
): Promise<Page<FolderRow>> {
  return paginate(
    db.selectFrom('workflow_folders').selectAll().where('account_id', '=', accountId).where('type', '=', type),
    {
      codec,
      list: 'folders',
      accountId,
      filters: { type },
      order: 'asc',
      keys: [
        { column: 'created_at', field: 'created_at', type: 'timestamptz' },
        { column: 'id', field: 'id', type: 'uuid' },
      ],
    },
    page,
  );
}
