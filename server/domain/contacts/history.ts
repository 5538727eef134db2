// The contact history (Part A, Audit and history rules): tags and custom-field values a key changes on a
// contact appear there named after the key; POST /v1/contacts records consent and connection as
// `contact.imported`. Written in the change's own transaction. Read by the admin API (the console's view).
import type { Kysely } from 'kysely';
import type { components as adminComponents } from '../../../generated/admin-api.js';
import { insertHistory, listHistory, type ContactHistoryRow, type HistoryEntry } from '../../store/contacts.js';
import type { DB } from '../../store/schema.js';

/** Who changed the contact. */
export interface ContactActor {
  type: 'api_key' | 'console' | 'workflow';
  id: string | null;
  /** The key's name, as the history shows it. */
  name: string | null;
}

export const CONSOLE: ContactActor = { type: 'console', id: null, name: 'Console' };

/** An automation changed the contact (a tags or data block). */
export const workflowActor = (workflow: { id: string; title: string }): ContactActor => ({
  type: 'workflow',
  id: workflow.id,
  name: workflow.title,
});

export type HistoryKind =
  'contact.imported' | 'contact.edited' | 'tag.added' | 'tag.removed' | 'custom_field.set' | 'custom_field.cleared';

export function historyEntry(
  accountId: string,
  contactId: string,
  kind: HistoryKind,
  actor: ContactActor,
  details: Record<string, unknown>,
  at: string,
): HistoryEntry {
  return { accountId, contactId, kind, actorType: actor.type, actorId: actor.id, actorName: actor.name, details, at };
}

export async function recordHistory(db: Kysely<DB>, entries: readonly HistoryEntry[]): Promise<void> {
  await insertHistory(db, entries);
}

export type HistoryView = adminComponents['schemas']['AdminContactHistoryEntry'];

export const historyView = (row: ContactHistoryRow): HistoryView => ({
  kind: row.kind,
  actor: { type: row.actor_type, id: row.actor_id, name: row.actor_name },
  details: row.details,
  created_at: row.created_at,
});

export async function contactHistory(db: Kysely<DB>, accountId: string, contactId: string): Promise<HistoryView[]> {
  return (await listHistory(db, accountId, contactId)).map(historyView);
}
