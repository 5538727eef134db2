// One stretch of a run (see runs.ts): what it carries from block to block (the blocks' runs, the trigger's
// private-reply state, the step count, the buttons still open), how it numbers and records each block's step, and
// how it saves all that with the run when the stretch ends.
import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Block } from '../../../generated/block-catalog.js';
import type { WorkflowSendMemo } from '../../domain/messaging/workflow-send.js';
import type { DB, RunTriggerContext } from '../../store/schema.js';
import type { Insertable } from 'kysely';
import type { JobsTable } from '../../store/schema.js';
import {
  saveRunWithSteps,
  type NewRunStep,
  type RunChanges,
  type WorkflowRunRow,
  type WorkflowRunStepRow,
} from '../../store/workflow-runs.js';
import type { RunnableVersionRow } from '../../store/workflows.js';
import type { EngineDeps, RunContext, StepError } from '../context.js';

/** Buttons or cards whose after-send branch runs on: the tap wait the run returns to when that branch ends. */
export interface PendingTap {
  step: number;
  nodeId: string;
  messageId: string | null;
  until: string;
}

/** One stretch of a run: what it carries from block to block, saved with the run when the stretch ends. */
export interface Stretch {
  tx: Transaction<DB>;
  deps: EngineDeps;
  version: RunnableVersionRow;
  /** The run as last saved. */
  run: WorkflowRunRow;
  context: RunContext;
  /** How many times each block ran in the run (the loop guard reads it). */
  visits: Record<string, number>;
  trigger: RunTriggerContext;
  /** The `seq` of the run's last step. */
  stepCount: number;
  pendingTap: PendingTap | null;
  /** What the stretch's sends read once. */
  memo: WorkflowSendMemo;
  /** The steps taken since the run was last saved: written with it (`saveRun`), in one statement. */
  steps: NewRunStep[];
}

/** A block's turn in the stretch: its step, numbered as it starts. */
export interface Step {
  nodeId: string;
  block: Block | undefined;
  type: string;
  seq: number;
  /** How many times the block ran in the run, this time included. */
  runsOfBlock: number;
  now: Date;
  at: string;
}

/** The block's turn: the run of the block counted (the loop guard reads it), its step numbered. */
export function takeStep(stretch: Stretch, nodeId: string): Step {
  const block = stretch.version.graph.nodes[nodeId];
  const now = stretch.deps.clock.now();
  const runsOfBlock = (stretch.visits[nodeId] ?? 0) + 1;
  stretch.visits[nodeId] = runsOfBlock;
  stretch.stepCount += 1;
  const type = block ? block.type : 'unknown';
  return { nodeId, block, type, seq: stretch.stepCount, runsOfBlock, now, at: now.toISOString() };
}

/** How a step ended (or that it waits). */
export interface StepOutcome {
  status: WorkflowRunStepRow['status'];
  output: number | null;
  messageId: string | null;
  error: StepError | null;
  endedAt: string | null;
}

/** Records the block's step with the stretch: it is written with the run when the stretch saves it. */
export function recordStep(stretch: Stretch, step: Step, outcome: StepOutcome): void {
  stretch.steps.push({
    id: randomUUID(),
    account_id: stretch.run.account_id,
    run_id: stretch.run.id,
    seq: step.seq,
    node_id: step.nodeId,
    type: step.type,
    started_at: step.at,
    message_id: outcome.messageId,
    status: outcome.status,
    output: outcome.output,
    error: outcome.error,
    ended_at: outcome.endedAt,
  });
}

/**
 * Saves the stretch with the run, and the steps it took since the last save, in one statement: its wait, if
 * any, is the one `changes` names; the buttons still open, `pendingTap`; `laterJobs`, jobs due later it adds
 * with them (store/jobs.ts `laterJobRow`).
 */
export async function saveRun(
  stretch: Stretch,
  changes: RunChanges,
  laterJobs: readonly Insertable<JobsTable>[] = [],
): Promise<WorkflowRunRow> {
  const steps = stretch.steps.splice(0);
  return saveRunWithSteps(
    stretch.tx,
    stretch.run.id,
    {
      visits: stretch.visits,
      trigger_context: stretch.trigger,
      step_count: stretch.stepCount,
      updated_at: stretch.deps.clock.now().toISOString(),
      waiting_for: null,
      wait_until: null,
      wait_message_id: null,
      wait_step: null,
      tap_step: stretch.pendingTap?.step ?? null,
      tap_node_id: stretch.pendingTap?.nodeId ?? null,
      tap_message_id: stretch.pendingTap?.messageId ?? null,
      tap_until: stretch.pendingTap?.until ?? null,
      ...changes,
    },
    steps,
    laterJobs,
  );
}

export const NO_TAP = { tap_step: null, tap_node_id: null, tap_message_id: null, tap_until: null };
export const tapWait = (tap: PendingTap) => ({
  node_id: tap.nodeId,
  waiting_for: 'tap' as const,
  wait_until: tap.until,
  wait_message_id: tap.messageId,
  wait_step: tap.step,
});
