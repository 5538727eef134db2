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
import { contactViews, type ContactView } from './view.js';

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
  const views = await contactViews(
    db,
    accountId,
    rows.data.map(({ tagged_at: _taggedAt, ...contact }) => contact),
  );
  return {
    data: rows.data.map((row, i) => ({ tagged_at: row.tagged_at, contact: views[i]! })),
    next_cursor: rows.next_cursor,
  };
}
