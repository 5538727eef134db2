// Folders (Part B, Folders): a tree of any depth that organizes automations. Names are trimmed, not blank, and
// need not be unique. A folder cannot go inside itself or one of its subfolders. Deleting a folder deletes its
// subtree for good, and its automations leave folders: `folder_id` null, and like any move between folders,
// `revision` + 1 (so an If-Match read before gets 412), in the same transaction. Moving a folder does not touch
// its automations: they stay in it.
//
// Moves, deletions and creations inside a folder hold the account's row lock while they read the tree, so two
// concurrent moves cannot form a cycle (A into B while B goes into A) and a deletion cannot miss a subfolder
// created or moved under it meanwhile.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { components, operations } from '../../../generated/api.js';
import type { Clock } from '../../clock.js';
import { ApiError, notFound } from '../../errors.js';
import { lockAccount } from '../../store/console.js';
import { cursorCodec } from '../../store/cursor.js';
import {
  deleteFolderRows,
  findWorkflowFolder,
  insertFolder,
  isForeignKeyViolation,
  lockFolders,
  moveWorkflowsOutOfFolders,
  selectFolderAndAncestorIds,
  selectFolderSubtreeIds,
  selectFoldersPage,
  updateFolderFields,
  WORKFLOW_FOLDER,
  type FolderRow,
} from '../../store/folders.js';
import type { Page, PageRequest } from '../../store/pagination.js';
import type { DB } from '../../store/schema.js';

type Schemas = components['schemas'];
export type FolderView = Schemas['Folder'];
/** The kinds of folder GET /v1/folders can list. */
export type FolderType = NonNullable<NonNullable<operations['listFolders']['parameters']['query']>['type']>;

/** The body field that names a folder: `folder_id` of an automation, `parent_id` of a folder. */
export type FolderField = Schemas['FolderNotFoundError']['context']['field'];

/** The API shape of a folder; every read selects workflow folders only. */
export const folderView = (row: FolderRow): FolderView => ({
  id: row.id,
  type: WORKFLOW_FOLDER,
  name: row.name,
  parent_id: row.parent_id,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

const folderNotFound = () => notFound('No such folder.');

export const unknownFolder = (field: FolderField) =>
  new ApiError(422, 'folder_not_found', `The ${field} names no workflow folder of this account.`, { field });

const invalidParent = () =>
  new ApiError(422, 'invalid_parent', 'A folder cannot go inside itself or one of its subfolders.');

/** The name trimmed at both ends; 422 invalid_name when nothing is left (empty or only whitespace). */
export function requireFolderName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw new ApiError(422, 'invalid_name', 'The folder name is blank.');
  return trimmed;
}

/**
 * The workflow folder `folderId` of the account, or 422 folder_not_found naming the body `field` that sent it
 * (a `folder_id` of an automation, a `parent_id` of a folder). The folder may still be deleted before the caller
 * writes: map the write's foreign-key violation (`isForeignKeyViolation`) to this same error.
 */
export async function requireWorkflowFolder(
  db: Kysely<DB>,
  accountId: string,
  folderId: string,
  field: FolderField,
): Promise<FolderRow> {
  const folder = await findWorkflowFolder(db, accountId, folderId);
  if (!folder) throw unknownFolder(field);
  return folder;
}

/** GET /v1/folders: the account's folders of every level, oldest first. */
export async function listFolders(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  type: FolderType,
  page: PageRequest,
): Promise<Page<FolderRow>> {
  return selectFoldersPage(db, await cursorCodec(db, clock), accountId, type, page);
}

export async function createFolder(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  input: { name: string; parent_id?: string | null | undefined },
): Promise<FolderRow> {
  const name = requireFolderName(input.name);
  const parentId = input.parent_id ?? null;
  const now = clock.now().toISOString();
  try {
    return await db.transaction().execute(async (tx) => {
      if (parentId !== null) {
        await lockAccount(tx, accountId);
        await requireWorkflowFolder(tx, accountId, parentId, 'parent_id');
      }
      return insertFolder(tx, {
        id: randomUUID(),
        account_id: accountId,
        type: WORKFLOW_FOLDER,
        name,
        parent_id: parentId,
        created_at: now,
        updated_at: now,
      });
    });
  } catch (error) {
    // The parent went away between the check and the insert (its foreign key refused the row).
    if (isForeignKeyViolation(error)) throw unknownFolder('parent_id');
    throw error;
  }
}

/**
 * Renames and/or moves the folder (only the fields sent change; `parent_id` null is the top level). Its subfolders
 * and automations move along without change. Sending what it already has changes nothing.
 */
export async function updateFolder(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  folderId: string,
  input: { name?: string | undefined; parent_id?: string | null | undefined },
): Promise<FolderRow> {
  const name = input.name === undefined ? undefined : requireFolderName(input.name);
  const moving = input.parent_id !== undefined;
  try {
    return await db.transaction().execute(async (tx) => {
      if (moving) await lockAccount(tx, accountId);
      const folder = await findWorkflowFolder(tx, accountId, folderId, { forUpdate: true });
      if (!folder) throw folderNotFound();
      const fields: { name?: string; parent_id?: string | null } = {};
      if (name !== undefined && name !== folder.name) fields.name = name;
      if (input.parent_id !== undefined && input.parent_id !== folder.parent_id) {
        const parentId = input.parent_id;
        if (parentId !== null) {
          if (parentId === folder.id) throw invalidParent();
          await requireWorkflowFolder(tx, accountId, parentId, 'parent_id');
          // The new parent sits inside the folder when the folder is among the parent's ancestors.
          if ((await selectFolderAndAncestorIds(tx, accountId, parentId)).includes(folder.id)) throw invalidParent();
        }
        fields.parent_id = parentId;
      }
      if (Object.keys(fields).length === 0) return folder;
      const updated = await updateFolderFields(tx, accountId, folderId, fields, clock.now().toISOString());
      if (!updated) throw folderNotFound();
      return updated;
    });
  } catch (error) {
    if (isForeignKeyViolation(error)) throw unknownFolder('parent_id');
    throw error;
  }
}

/**
 * Deletes the folder and its subfolders of every level, for good; their automations leave folders (`folder_id`
 * null, `revision` + 1). Answers the ids deleted, the folder first.
 */
export async function deleteFolder(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  folderId: string,
): Promise<{ id: string; deletedFolderIds: string[] }> {
  return db.transaction().execute(async (tx) => {
    await lockAccount(tx, accountId);
    const folder = await findWorkflowFolder(tx, accountId, folderId, { forUpdate: true });
    if (!folder) throw folderNotFound();
    // The account lock keeps the tree still; the subtree's row locks wait for automations being put in these
    // folders right now, so none is left behind to lose its folder without counting the move.
    const ids = await selectFolderSubtreeIds(tx, accountId, folder.id);
    await lockFolders(tx, accountId, ids);
    await moveWorkflowsOutOfFolders(tx, accountId, ids, clock.now().toISOString());
    await deleteFolderRows(tx, accountId, ids);
    return { id: folder.id, deletedFolderIds: ids };
  });
}
