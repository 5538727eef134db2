// The account audit log as the console shows it (GET /admin/v1/accounts/{accountId}/audit-log): newest first,
// a page at a time. Entries are written by `audit` (./actor.ts) inside the transaction of each change.
import type { Kysely } from 'kysely';
import type { components as adminComponents } from '../../../generated/admin-api.js';
import type { Clock } from '../../clock.js';
import { listAuditEntries, type AuditLogRow } from '../../store/audit.js';
import { cursorCodec } from '../../store/cursor.js';
import type { Page, PageRequest } from '../../store/pagination.js';
import type { DB } from '../../store/schema.js';
import { getAccount } from './accounts.js';

/** One entry as the admin API shows it: who (the key, for a key; never the key itself), what, on what, when. */
export type AuditLogEntryView = adminComponents['schemas']['AdminAuditLogEntry'];

export const auditLogEntryView = (row: AuditLogRow): AuditLogEntryView => ({
  actor_type: row.actor_type,
  // `actor_id` of an admin change names the door it came through (admin-api, console-cli): not a key.
  api_key_id: row.actor_type === 'api_key' ? row.actor_id : null,
  action: row.action,
  resource_type: row.target_type,
  resource_id: row.target_id,
  created_at: row.created_at,
});

/** A page of the account's audit log, newest first; 404 for an unknown account. */
export async function listAuditLog(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  page: PageRequest,
): Promise<Page<AuditLogEntryView>> {
  await getAccount(db, accountId);
  const result = await listAuditEntries(db, await cursorCodec(db, clock), accountId, page);
  return { data: result.data.map(auditLogEntryView), next_cursor: result.next_cursor };
}
