// GET /v1/tags/{tagId}/contacts: the contacts holding a tag in the order they got it. A contact that loses and
// regains the tag gets a new `tagged_at` and moves to the end.
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { notFound } from '../../errors.js';
import { selectTagHolders } from '../../store/contacts.js';
import { cursorCodec } from '../../store/cursor.js';
import type { Page, PageRequest } from '../../store/pagination.js';
import type { DB } from '../../store/schema.js';
import { findActiveTag } from '../../store/tags.js';
import { contactViewsWith, type ContactView } from './view.js';

export async function listTagHolders(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  tagId: string,
  taggedSince: string | undefined,
  page: PageRequest,
): Promise<Page<{ tagged_at: string; contact: ContactView }>> {
  if (!(await findActiveTag(db, accountId, tagId))) throw notFound('No such tag.');
  const codec = await cursorCodec(db, clock);
  const rows = await selectTagHolders(db, codec, accountId, tagId, taggedSince, page);
  // The view picks the contact's own fields: the row's tagged_at stays out of it.
  const data = await contactViewsWith(db, accountId, rows.data, (row, contact) => ({
    tagged_at: row.tagged_at,
    contact,
  }));
  return { data, next_cursor: rows.next_cursor };
}
