// Reply lists (Part B, Reply lists): the public replies posted under the comments that start an instagram
// automation. Names are trimmed, not blank, and unique in the account ignoring letter case, folded as tag names
// are (`tagNameKey`: one rule for "ignoring letter case" in the service, whatever the database's locale); a
// unique index on the folded key holds the rule under concurrency. Replies are kept exactly as written, none
// blank. A list that an automation of the account uses (draft or live, not deleted) cannot be deleted.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { components } from '../../../generated/api.js';
import type { Clock } from '../../clock.js';
import { ApiError, notFound } from '../../errors.js';
import { isUniqueViolation } from '../../store/console.js';
import { cursorCodec } from '../../store/cursor.js';
import type { Page, PageRequest } from '../../store/pagination.js';
import {
  deleteRepliesListRow,
  findRepliesList,
  findRepliesListByNameKey,
  insertRepliesList,
  selectRepliesListsPage,
  updateRepliesListFields,
  type RepliesListRow,
  type RepliesListSummaryRow,
} from '../../store/replies-lists.js';
import type { DB } from '../../store/schema.js';
import { tagNameKey } from '../tags/tags.js';
import { workflowsReferencing } from './references.js';

type Schemas = components['schemas'];
export type RepliesListView = Schemas['RepliesList'];
export type RepliesListSummaryView = Schemas['RepliesListSummary'];

export const repliesListView = (row: RepliesListRow): RepliesListView => ({
  id: row.id,
  name: row.name,
  replies: row.replies,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

export const repliesListSummaryView = (row: RepliesListSummaryRow): RepliesListSummaryView => ({
  id: row.id,
  name: row.name,
  reply_count: row.reply_count,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

const repliesListNotFound = () => notFound('No such reply list.');

const alreadyExists = (existing: RepliesListRow) =>
  new ApiError(409, 'replies_list_already_exists', `A reply list named "${existing.name}" already exists.`, {
    replies_list_id: existing.id,
  });

/** The name trimmed at both ends; 422 invalid_name when nothing is left (empty or only whitespace). */
export function requireRepliesListName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw new ApiError(422, 'invalid_name', 'The reply list name is blank.');
  return trimmed;
}

/** The replies as written; 422 invalid_reply with the index of the first blank one (empty or only whitespace). */
export function requireReplies(replies: readonly string[]): string[] {
  const blank = replies.findIndex((reply) => reply.trim() === '');
  if (blank >= 0) throw new ApiError(422, 'invalid_reply', `Reply ${blank} is blank.`, { index: blank });
  return [...replies];
}

/**
 * The automations of the account, draft or published and not deleted, whose draft or live version uses the
 * list: up to 50 ids (oldest first) and their number. Templates are not automations of the account.
 */
export async function workflowsUsingRepliesList(
  db: Kysely<DB>,
  accountId: string,
  listId: string,
): Promise<{ workflowIds: string[]; workflowCount: number }> {
  return workflowsReferencing(db, accountId, 'replies_list', listId);
}

/**
 * After the unique index refused a name: the list holding it now. The caller's original error stands when that
 * list went away meanwhile (deleted or renamed by a concurrent request), or when the error was another one.
 */
async function holderOfName(db: Kysely<DB>, accountId: string, name: string, error: unknown): Promise<ApiError> {
  if (!isUniqueViolation(error)) throw error;
  const holder = await findRepliesListByNameKey(db, accountId, tagNameKey(name));
  if (!holder) throw error;
  return alreadyExists(holder);
}

export async function createRepliesList(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  input: { name: string; replies: readonly string[] },
): Promise<RepliesListRow> {
  const name = requireRepliesListName(input.name);
  const replies = requireReplies(input.replies);
  const nameKey = tagNameKey(name);
  const existing = await findRepliesListByNameKey(db, accountId, nameKey);
  if (existing) throw alreadyExists(existing);
  const now = clock.now().toISOString();
  try {
    return await insertRepliesList(db, {
      id: randomUUID(),
      account_id: accountId,
      name,
      name_key: nameKey,
      replies: JSON.stringify(replies),
      reply_count: replies.length,
      created_at: now,
      updated_at: now,
    });
  } catch (error) {
    // A concurrent creation of the name won between the check and the insert: the index decides, same answer.
    throw await holderOfName(db, accountId, name, error);
  }
}

/** GET /v1/replies-lists: the account's lists, oldest first, without their replies. */
export async function listRepliesLists(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  page: PageRequest,
): Promise<Page<RepliesListSummaryRow>> {
  return selectRepliesListsPage(db, await cursorCodec(db, clock), accountId, page);
}

export async function getRepliesList(db: Kysely<DB>, accountId: string, listId: string): Promise<RepliesListRow> {
  const list = await findRepliesList(db, accountId, listId);
  if (!list) throw repliesListNotFound();
  return list;
}

/**
 * Renames the list and/or replaces its replies (only the fields sent change). Its own name in another letter case
 * is allowed; another list's name in any case is 409 replies_list_already_exists. Sending what it already has
 * changes nothing.
 */
export async function updateRepliesList(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  listId: string,
  input: { name?: string | undefined; replies?: readonly string[] | undefined },
): Promise<RepliesListRow> {
  const name = input.name === undefined ? undefined : requireRepliesListName(input.name);
  const replies = input.replies === undefined ? undefined : requireReplies(input.replies);
  try {
    return await db.transaction().execute(async (tx) => {
      const list = await findRepliesList(tx, accountId, listId, { forUpdate: true });
      if (!list) throw repliesListNotFound();
      const fields: { name?: string; name_key?: string; replies?: string; reply_count?: number } = {};
      if (name !== undefined && name !== list.name) {
        const nameKey = tagNameKey(name);
        const other = await findRepliesListByNameKey(tx, accountId, nameKey);
        if (other && other.id !== list.id) throw alreadyExists(other);
        fields.name = name;
        fields.name_key = nameKey;
      }
      if (replies !== undefined && JSON.stringify(replies) !== JSON.stringify(list.replies)) {
        fields.replies = JSON.stringify(replies);
        fields.reply_count = replies.length;
      }
      if (Object.keys(fields).length === 0) return list;
      const updated = await updateRepliesListFields(tx, accountId, listId, fields, clock.now().toISOString());
      if (!updated) throw repliesListNotFound();
      return updated;
    });
  } catch (error) {
    if (error instanceof ApiError || name === undefined) throw error;
    // Outside the aborted transaction: a concurrent create or rename took the name first.
    throw await holderOfName(db, accountId, name, error);
  }
}

/**
 * Deletes the list for good: it answers 404 afterwards and its name is free again. 409 replies_list_in_use while
 * an automation of the account uses it. Answers the list's id as stored.
 */
export async function deleteRepliesList(db: Kysely<DB>, accountId: string, listId: string): Promise<{ id: string }> {
  return db.transaction().execute(async (tx) => {
    const list = await findRepliesList(tx, accountId, listId, { forUpdate: true });
    if (!list) throw repliesListNotFound();
    const { workflowIds, workflowCount } = await workflowsUsingRepliesList(tx, accountId, list.id);
    if (workflowCount > 0)
      throw new ApiError(
        409,
        'replies_list_in_use',
        `Automations use the reply list "${list.name}": point their triggers elsewhere first.`,
        { workflow_ids: workflowIds, workflow_count: workflowCount },
      );
    if (!(await deleteRepliesListRow(tx, accountId, list.id))) throw repliesListNotFound();
    return { id: list.id };
  });
}
