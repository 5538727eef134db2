// SQL of the whatsapp handoffs (issue 22): the rows the buttons and cards blocks write when they send a handoff
// button, and what an inbound whatsapp message carrying a code reads and marks.
import type { Kysely, Selectable } from 'kysely';
import type { DB, WhatsappHandoffsTable } from './schema.js';

export type WhatsappHandoffRow = Selectable<WhatsappHandoffsTable>;

export type NewWhatsappHandoff = Omit<
  WhatsappHandoffRow,
  'message_id' | 'used_at' | 'used_by_contact_id' | 'continued_run_id'
>;

/** Inserts the handoff; false when its code is taken already (the caller draws another). */
export async function insertWhatsappHandoff(db: Kysely<DB>, handoff: NewWhatsappHandoff): Promise<boolean> {
  const row = await db
    .insertInto('whatsapp_handoffs')
    .values({ ...handoff, message_id: null, used_at: null, used_by_contact_id: null, continued_run_id: null })
    .onConflict((oc) => oc.column('code').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** The message that carried the handoff buttons `ids` (known once the send is done). */
export async function updateWhatsappHandoffsMessage(db: Kysely<DB>, ids: readonly string[], messageId: string) {
  if (ids.length === 0) return;
  await db.updateTable('whatsapp_handoffs').set({ message_id: messageId }).where('id', 'in', ids).execute();
}

/**
 * The newest unused handoff to the connection whose code is one of `codes`, of an automation not deleted,
 * locked until the caller's transaction ends (a code is used once, whoever sends it at the same moment).
 */
export async function lockUnusedWhatsappHandoff(
  db: Kysely<DB>,
  accountId: string,
  connectionId: string,
  codes: readonly string[],
): Promise<WhatsappHandoffRow | undefined> {
  if (codes.length === 0) return undefined;
  return db
    .selectFrom('whatsapp_handoffs as h')
    .innerJoin('workflows as w', 'w.id', 'h.workflow_id')
    .selectAll('h')
    .where('h.account_id', '=', accountId)
    .where('h.connection_id', '=', connectionId)
    .where('h.code', 'in', codes)
    .where('h.used_at', 'is', null)
    .where('w.deleted_at', 'is', null)
    .orderBy('h.created_at', 'desc')
    .limit(1)
    .forUpdate('h')
    .executeTakeFirst();
}

export async function markWhatsappHandoffUsed(
  db: Kysely<DB>,
  id: string,
  use: { used_at: string; used_by_contact_id: string; continued_run_id: string | null },
) {
  await db.updateTable('whatsapp_handoffs').set(use).where('id', '=', id).execute();
}
