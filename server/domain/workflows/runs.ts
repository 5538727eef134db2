// The run routes (Part B): an automation's runs, newest first, and one run with its recent steps. The engine
// writes the rows; an automation in the trash, and its runs, answer 404.
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { notFound } from '../../errors.js';
import { cursorCodec } from '../../store/cursor.js';
import type { Page, PageRequest } from '../../store/pagination.js';
import type { DB } from '../../store/schema.js';
import {
  deleteRunsEndedBefore,
  findWorkflowRun,
  selectRecentRunSteps,
  selectWorkflowRunsPage,
  type RunFilters,
  type WorkflowRunRow,
  type WorkflowRunStepRow,
} from '../../store/workflow-runs.js';
import { getWorkflow } from './workflows.js';

/** A run shows at most this many of its most recent steps (`steps_truncated` says when older ones are left out). */
export const MAX_RUN_STEPS = 100;

/** Automation runs are kept 90 days after they end (Part B). */
export const RUN_HISTORY_MS = 90 * 24 * 60 * 60 * 1000;

/** Deletes the runs (and their steps) ended over 90 days before `now`; the hourly retention job calls it. */
export function pruneRunHistory(db: Kysely<DB>, now: Date): Promise<number> {
  return deleteRunsEndedBefore(db, new Date(now.getTime() - RUN_HISTORY_MS).toISOString());
}

export async function listWorkflowRuns(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  workflowId: string,
  filters: RunFilters,
  page: PageRequest,
): Promise<Page<WorkflowRunRow>> {
  await getWorkflow(db, accountId, workflowId);
  return selectWorkflowRunsPage(db, await cursorCodec(db, clock), accountId, workflowId, filters, page);
}

export async function getWorkflowRun(
  db: Kysely<DB>,
  accountId: string,
  workflowId: string,
  runId: string,
): Promise<{ run: WorkflowRunRow; steps: WorkflowRunStepRow[]; truncated: boolean }> {
  await getWorkflow(db, accountId, workflowId);
  const run = await findWorkflowRun(db, accountId, workflowId, runId);
  if (!run) throw notFound('No such run.');
  const { steps, truncated } = await selectRecentRunSteps(db, accountId, runId, MAX_RUN_STEPS);
  return { run, steps, truncated };
}
