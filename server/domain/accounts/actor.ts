// Who makes a console-style change, for the account audit log. The admin API and the console CLI act as
// `admin`; `id` says which door they came through.
import type { Kysely } from 'kysely';
import { insertAudit } from '../../store/audit.js';
import type { AuditLogRow } from '../../store/audit.js';
import type { DB } from '../../store/schema.js';

export interface Actor {
  type: 'admin' | 'api_key' | 'user';
  id: string | null;
}

/** A key as the actor of a change: the audit log records its id; a contact's history shows its name too. */
export interface KeyActor {
  type: 'api_key';
  id: string;
  name: string;
}

export const keyActor = (key: { id: string; name: string }): KeyActor => ({
  type: 'api_key',
  id: key.id,
  name: key.name,
});

export const ADMIN_API: Actor = { type: 'admin', id: 'admin-api' };
export const CONSOLE_CLI: Actor = { type: 'admin', id: 'console-cli' };

/** Records a change in the account's audit log (inside the caller's transaction), when an actor is given. */
export async function audit(
  db: Kysely<DB>,
  actor: Actor | undefined,
  entry: {
    accountId: string;
    action: AuditLogRow['action'];
    targetType: AuditLogRow['target_type'];
    targetId: string;
    details?: Record<string, unknown>;
  },
  at: string,
): Promise<void> {
  if (!actor) return;
  await insertAudit(db, { ...entry, actorType: actor.type, actorId: actor.id, at });
}
