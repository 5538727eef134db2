// What the engine's parts share without importing one another (so no file of the engine imports back the run's
// state machine): what starts a run.
import type { AccountRow } from '../store/accounts.js';
import type { ContactRow } from '../store/contacts.js';
import type { RunTriggerContext } from '../store/schema.js';
import type { WorkflowRunRow } from '../store/workflow-runs.js';
import type { WorkflowVersionRow } from '../store/workflows.js';

/** A run to start: of this automation's version, for this contact, on this connection. */
export interface StartRun {
  accountId: string;
  workflowId: string;
  /** The version the run follows, whatever is published later. */
  version: Pick<WorkflowVersionRow, 'id'>;
  contact: ContactRow;
  /** The contact's account, when the caller read it in this transaction already (else the run reads it). */
  account?: AccountRow;
  connectionId: string;
  source: WorkflowRunRow['source'];
  trigger: RunTriggerContext;
  parentRunId?: string | null;
  /** A start delay: the run begins then. */
  startAt?: Date;
  /** The block the run begins at (default `root`): a multichannel block's channel output. */
  from?: string;
  /** What the run carries over from the run that started it (multichannel: the same person goes on). */
  carried?: Pick<WorkflowRunRow, 'variables' | 'visits'>;
}

/**
 * The trigger a run started by another run's block carries (start, multichannel): its starter's text and kind of
 * interaction, so the child's `message.trigger` is the starter's; nothing of the comment it may have answered.
 */
export function triggerCarriedFrom(run: Pick<WorkflowRunRow, 'trigger_context'>): RunTriggerContext {
  return {
    text: run.trigger_context.text ?? null,
    interaction_type: run.trigger_context.interaction_type ?? null,
  };
}
