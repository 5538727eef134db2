// SQL of the account audit log: console-style changes, with who made them (`actor_type` admin, api_key, user).
import type { Kysely } from 'kysely';
import type { AuditLogTable, DB } from './schema.js';

export interface AuditEntry {
  accountId: string;
  actorType: AuditLogTable['actor_type'];
  actorId: string | null;
  action: string;
  targetType: string;
  targetId: string;
  /** What changed; never a key, a secret or a message text. */
  details?: Record<string, unknown>;
  at: string;
}

export async function insertAudit(db: Kysely<DB>, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      account_id: entry.accountId,
      actor_type: entry.actorType,
      actor_id: entry.actorId,
      action: entry.action,
      target_type: entry.targetType,
      target_id: entry.targetId,
      details: entry.details === undefined ? null : JSON.stringify(entry.details),
      created_at: entry.at,
    })
    .execute();
}
