// What the public routes and the contact events show of a contact (Part A, Contact).
import type { Kysely } from 'kysely';
import {
  tagsOfContacts,
  valuesOfContacts,
  type ContactRow,
  type HeldTag,
  type HeldValue,
  type ViewedContactRow,
} from '../../store/contacts.js';
import type { DB } from '../../store/schema.js';

export interface TagSummary {
  id: string;
  name: string;
}

export interface ContactView {
  id: string;
  channel: { type: ContactRow['channel']; connection_id: string };
  instagram: { id: string; username: string } | null;
  whatsapp: { phone: string } | null;
  name: string;
  person_id: string;
  tags: TagSummary[];
  custom_fields: HeldValue[];
  last_interaction_at: string;
  created_at: string;
  updated_at: string;
}

export const tagSummary = (tag: HeldTag | TagSummary): TagSummary => ({ id: tag.id, name: tag.name });

export function contactView(
  row: ViewedContactRow,
  tags: readonly (HeldTag | TagSummary)[],
  values: readonly HeldValue[],
): ContactView {
  return {
    id: row.id,
    channel: { type: row.channel, connection_id: row.connection_id },
    instagram:
      row.channel === 'instagram' ? { id: row.instagram_id ?? '', username: row.instagram_username ?? '' } : null,
    whatsapp: row.channel === 'whatsapp' ? { phone: row.phone ?? '' } : null,
    name: row.name,
    person_id: row.person_id,
    tags: tags.map(tagSummary),
    custom_fields: values.map((v) => ({ field_id: v.field_id, name: v.name, type: v.type, value: v.value })),
    last_interaction_at: row.last_interaction_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The views of `rows`, in their order, with two queries whatever their number (a page of 100 included). */
export async function contactViews(
  db: Kysely<DB>,
  accountId: string,
  rows: readonly ContactRow[],
): Promise<ContactView[]> {
  return contactViewsWith(db, accountId, rows, (_row, view) => view);
}

/** Each row with its view, shaped by `shape` (a row that carries more than the contact keeps it at hand). */
export async function contactViewsWith<R extends ContactRow, T>(
  db: Kysely<DB>,
  accountId: string,
  rows: readonly R[],
  shape: (row: R, view: ContactView) => T,
): Promise<T[]> {
  const ids = rows.map((r) => r.id);
  const [tags, values] = await Promise.all([tagsOfContacts(db, accountId, ids), valuesOfContacts(db, accountId, ids)]);
  return rows.map((row) => shape(row, contactView(row, tags.get(row.id) ?? [], values.get(row.id) ?? [])));
}

export async function contactViewOf(db: Kysely<DB>, accountId: string, row: ContactRow): Promise<ContactView> {
  const [tags, values] = await Promise.all([
    tagsOfContacts(db, accountId, [row.id]),
    valuesOfContacts(db, accountId, [row.id]),
  ]);
  return contactView(row, tags.get(row.id) ?? [], values.get(row.id) ?? []);
}
