// The one sequence every change of a stored automation follows, in one transaction: lock the row, check the
// revision the change is based on, write, record what the automation references now, audit. The use cases
// (./workflows.ts, ./publishing.ts) say only what their change writes; the order and the locking live here.
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../clock.js';
import { notFound } from '../../errors.js';
import type { AuditLogRow } from '../../store/audit.js';
import type { DB } from '../../store/schema.js';
import { deleteWorkflowReferences, findActiveWorkflow, type WorkflowRow } from '../../store/workflows.js';
import { audit, type Actor } from '../accounts/actor.js';
import { requireRevision } from './if-match.js';
import { recordReferences } from './references.js';

export const workflowNotFound = () => notFound('No such automation.');

/** What a change does to the automation's references (./references.ts). */
export type ReferencesChange =
  /** The draft's or the live version's references become those of `definition` (none for null). */
  | { holder: 'draft' | 'live'; definition: Parameters<typeof recordReferences>[4] }
  /** The automation went to the trash: it references nothing any more. */
  | 'dropped'
  /** The change touched nothing an automation references. */
  | 'kept';

/** What a change wrote: its answer and what it did to the references; or nothing to write (`unchanged`). */
export type ChangeOutcome<Saved, Unchanged> = { saved: Saved; references: ReferencesChange } | { unchanged: Unchanged };

export interface WorkflowChange<Saved, Unchanged> {
  accountId: string;
  workflowId: string;
  /** The revision the change is based on (`If-Match`); undefined: whatever the current one is. */
  basedOn: number | undefined;
  /** The audit log's name of the change. */
  action: AuditLogRow['action'];
  /** Under the lock, the revision checked: refuses (throws), writes, or finds nothing to do. */
  write(tx: Transaction<DB>, row: WorkflowRow, now: string): Promise<ChangeOutcome<Saved, Unchanged>>;
  /** In the same transaction, after the references: what else the change sets going. */
  then?(tx: Transaction<DB>): Promise<void>;
}

/**
 * Runs `change` in its own transaction: the row locked (FOR UPDATE, 404 when gone or in the trash), the
 * revision checked under the lock (412), so two concurrent changes based on one revision cannot both pass.
 * An unchanged outcome writes nothing more and is not audited.
 */
export async function changeWorkflow<Saved, Unchanged = never>(
  db: Kysely<DB>,
  clock: Clock,
  actor: Actor,
  change: WorkflowChange<Saved, Unchanged>,
): Promise<Saved | Unchanged> {
  const { accountId, workflowId } = change;
  return db.transaction().execute(async (tx) => {
    const row = await findActiveWorkflow(tx, accountId, workflowId, { forUpdate: true });
    if (!row) throw workflowNotFound();
    requireRevision(row, change.basedOn);
    const now = clock.now().toISOString();
    const outcome = await change.write(tx, row, now);
    if ('unchanged' in outcome) return outcome.unchanged;
    await recordReferenceChange(tx, accountId, workflowId, outcome.references);
    await change.then?.(tx);
    await audit(tx, actor, { accountId, action: change.action, targetType: 'workflow', targetId: workflowId }, now);
    return outcome.saved;
  });
}

async function recordReferenceChange(
  tx: Transaction<DB>,
  accountId: string,
  workflowId: string,
  references: ReferencesChange,
): Promise<void> {
  if (references === 'kept') return;
  if (references === 'dropped') await deleteWorkflowReferences(tx, accountId, workflowId);
  else await recordReferences(tx, accountId, workflowId, references.holder, references.definition);
}
