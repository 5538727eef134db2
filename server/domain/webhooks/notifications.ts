// The notices the service leaves for an account owner (today: a webhook endpoint disabled after failing for 3
// days, written by the delivery engine), as the admin API shows them.
import type { Kysely } from 'kysely';
import type { components as adminComponents } from '../../../generated/admin-api.js';
import type { DB } from '../../store/schema.js';
import { listAccountNotifications, type AccountNotificationRow } from '../../store/webhook-deliveries.js';
import { getAccount } from '../accounts/accounts.js';

export function notificationView(row: AccountNotificationRow): adminComponents['schemas']['AdminNotification'] {
  return {
    id: row.id,
    kind: row.kind,
    subject: { type: row.subject_type, id: row.subject_id },
    details: row.details,
    created_at: row.created_at,
  };
}

/** Every notice of the account, newest first (404 for an unknown account). */
export async function listOwnerNotifications(db: Kysely<DB>, accountId: string) {
  await getAccount(db, accountId);
  const rows = await listAccountNotifications(db, accountId);
  return { data: rows.map(notificationView), next_cursor: null };
}
