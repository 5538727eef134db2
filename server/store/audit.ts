// SQL of the account audit log: console-style changes, with who made them (`actor_type` admin, api_key, user).
import type { Kysely, Selectable } from 'kysely';
import type { CursorCodec } from './cursor.js';
import { paginate, type Page, type PageRequest } from './pagination.js';
import type { AuditLogTable, DB } from './schema.js';

export interface AuditEntry {
  accountId: string;
  actorType: AuditLogTable['actor_type'];
  actorId: string | null;
  action: AuditLogTable['action'];
  targetType: AuditLogTable['target_type'];
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

export type AuditLogRow = Pick<
  Selectable<AuditLogTable>,
  'id' | 'actor_type' | 'actor_id' | 'action' | 'target_type' | 'target_id' | 'created_at'
>;

/** The account's audit log newest first (`created_at`, then the identity, which follows the order of recording). */
export async function listAuditEntries(
  db: Kysely<DB>,
  codec: CursorCodec,
  accountId: string,
  page: PageRequest,
): Promise<Page<AuditLogRow>> {
  return paginate(
    db
      .selectFrom('audit_log')
      .select(['id', 'actor_type', 'actor_id', 'action', 'target_type', 'target_id', 'created_at'])
      .where('account_id', '=', accountId),
    {
      codec,
      list: 'audit_log',
      accountId,
      order: 'desc',
      keys: [
        { column: 'audit_log.created_at', field: 'created_at', type: 'timestamptz' },
        { column: 'audit_log.id', field: 'id', type: 'bigint' },
      ],
    },
    page,
  );
}
