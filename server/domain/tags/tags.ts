// Tags (Part A, Tags): names unique among the account's active tags ignoring letter case, blank names refused,
// rename and delete refused while automations name the tag.
//
// Names are kept exactly as sent, not trimmed: the spec trims folder and reply-list names but says no such thing
// of tags, and automations compare tag names exactly ("letter case and accents included"). A name that is empty
// or only whitespace is blank (422 invalid_name).
//
// "Ignoring letter case" is decided here, not by the database's lower(), which folds by the database's locale
// (under `C`, ASCII only: `Ação` and `AÇÃO` would be two tags). Each row stores its folded name, `name_key`,
// and a unique index on it holds the rule.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { ApiError, notFound } from '../../errors.js';
import { isUniqueViolation } from '../../store/console.js';
import { removeTagFromAllContacts } from '../../store/contacts.js';
import { inTransaction } from '../../store/database.js';
import type { DB } from '../../store/schema.js';
import {
  findActiveTag,
  findActiveTagByNameKey,
  insertTag,
  markTagDeleted,
  selectTagsPage,
  updateTagName,
  type TagRow,
} from '../../store/tags.js';
import { cursorCodec } from '../../store/cursor.js';
import type { Page, PageRequest } from '../../store/pagination.js';
import { workflowsReferencing } from '../workflows/references.js';
import { tagNameKey } from './name-key.js';

/** What the public routes show of a tag. */
export interface TagView {
  id: string;
  name: string;
  created_at: string;
}

export const tagView = (row: TagRow): TagView => ({ id: row.id, name: row.name, created_at: row.created_at });

const tagNotFound = () => notFound('No such tag.');

export { tagNameKey };

export function requireTagName(name: string): string {
  if (name.trim() === '') throw new ApiError(422, 'invalid_name', 'The tag name is blank.');
  return name;
}

const alreadyExists = (existing: TagRow) =>
  new ApiError(409, 'tag_already_exists', `A tag named "${existing.name}" already exists.`, { tag_id: existing.id });

/**
 * The automations of the account whose draft or live version names the tag `name` in any letter case (tags
 * blocks and tag conditions act on it; automations in the trash do not count): up to 50 ids and their number.
 */
export async function workflowsNamingTag(
  db: Kysely<DB>,
  accountId: string,
  name: string,
): Promise<{ workflowIds: string[]; workflowCount: number }> {
  return workflowsReferencing(db, accountId, 'tag', tagNameKey(name));
}

/** 409 tag_in_use when automations name the tag: they compare names exactly and would stop matching. */
async function refuseIfNamedByWorkflows(db: Kysely<DB>, accountId: string, tag: TagRow): Promise<void> {
  const { workflowIds, workflowCount } = await workflowsNamingTag(db, accountId, tag.name);
  if (workflowCount > 0)
    throw new ApiError(409, 'tag_in_use', `Automations name the tag "${tag.name}": change them first.`, {
      workflow_ids: workflowIds.slice(0, 50),
      workflow_count: workflowCount,
    });
}

/**
 * After the unique index refused a name: the tag holding it now. Undefined when that tag went away meanwhile
 * (deleted or renamed by a concurrent request), in which case the caller's original error stands.
 */
async function holderOfName(db: Kysely<DB>, accountId: string, name: string, error: unknown): Promise<ApiError> {
  if (!isUniqueViolation(error)) throw error;
  const holder = await findActiveTagByNameKey(db, accountId, tagNameKey(name));
  if (!holder) throw error;
  return alreadyExists(holder);
}

export async function createTag(db: Kysely<DB>, clock: Clock, accountId: string, name: string): Promise<TagRow> {
  requireTagName(name);
  const nameKey = tagNameKey(name);
  const existing = await findActiveTagByNameKey(db, accountId, nameKey);
  if (existing) throw alreadyExists(existing);
  const now = clock.now().toISOString();
  const row: TagRow = {
    id: randomUUID(),
    account_id: accountId,
    name,
    name_key: nameKey,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  try {
    return await insertTag(db, row);
  } catch (error) {
    // A concurrent creation of the name won between the check and the insert: the index decides, same answer.
    throw await holderOfName(db, accountId, name, error);
  }
}

/** GET /v1/tags: the account's active tags, oldest first. */
export async function listTags(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  page: PageRequest,
): Promise<Page<TagRow>> {
  return selectTagsPage(db, await cursorCodec(db, clock), accountId, page);
}

export async function getTag(db: Kysely<DB>, accountId: string, tagId: string): Promise<TagRow> {
  const tag = await findActiveTag(db, accountId, tagId);
  if (!tag) throw tagNotFound();
  return tag;
}

/**
 * Renames the tag. Its own name in another letter case is allowed; another active tag's name in any case is
 * 409 tag_already_exists; any change of the name, even of case only, is 409 tag_in_use while automations name
 * it. The exact current name changes nothing. Holders keep the tag (they reference its id).
 */
export async function renameTag(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  tagId: string,
  name: string,
): Promise<TagRow> {
  requireTagName(name);
  try {
    return await db.transaction().execute(async (tx) => {
      const tag = await findActiveTag(tx, accountId, tagId, { forUpdate: true });
      if (!tag) throw tagNotFound();
      if (tag.name === name) return tag;
      const nameKey = tagNameKey(name);
      const other = await findActiveTagByNameKey(tx, accountId, nameKey);
      if (other && other.id !== tag.id) throw alreadyExists(other);
      await refuseIfNamedByWorkflows(tx, accountId, tag);
      const renamed = await updateTagName(tx, accountId, tagId, { name, name_key: nameKey }, clock.now().toISOString());
      if (!renamed) throw tagNotFound();
      return renamed;
    });
  } catch (error) {
    if (error instanceof ApiError) throw error;
    // Outside the aborted transaction: a concurrent create or rename took the name first.
    throw await holderOfName(db, accountId, name, error);
  }
}

/**
 * The tags block (Part B): another spelling of an existing tag renames the account's tag to the block's spelling.
 * Only the spelling changes, not the name key, so no other tag can hold the name and the automations that name
 * it still do (no tag_in_use). The tag is locked as a rename locks it. Runs in the caller's transaction when given
 * one (an automation's stretch). Undefined when the tag is gone.
 */
export async function respellTag(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  tagId: string,
  name: string,
): Promise<TagRow | undefined> {
  return inTransaction(db, async (tx) => {
    const tag = await findActiveTag(tx, accountId, tagId, { forUpdate: true });
    if (!tag || tag.name === name) return tag;
    if (tagNameKey(name) !== tag.name_key)
      throw new Error(`"${name}" is another name than "${tag.name}", not a spelling`);
    return updateTagName(tx, accountId, tagId, { name, name_key: tag.name_key }, clock.now().toISOString());
  });
}

/**
 * Deletes the tag: it answers 404 afterwards and its name is free again, and it is taken off every contact
 * holding it, without history or contact events (Part A, Part C). 409 tag_in_use while automations name it.
 */
export async function deleteTag(db: Kysely<DB>, clock: Clock, accountId: string, tagId: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const tag = await findActiveTag(tx, accountId, tagId, { forUpdate: true });
    if (!tag) throw tagNotFound();
    await refuseIfNamedByWorkflows(tx, accountId, tag);
    if (!(await markTagDeleted(tx, accountId, tagId, clock.now().toISOString()))) throw tagNotFound();
    await removeTagFromAllContacts(tx, accountId, tagId);
  });
}
