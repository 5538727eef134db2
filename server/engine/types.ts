// What the engine's parts share without importing one another (so no file of the engine imports back the run's
// state machine): what starts a run.
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
