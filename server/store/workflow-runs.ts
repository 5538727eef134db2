// SQL of automation runs and their steps, as the run routes read them (the engine writes them).
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { CursorCodec } from './cursor.js';
import { paginate, type Page, type PageRequest } from './pagination.js';
import type { DB, JobsTable, WorkflowRunStepsTable, WorkflowRunsTable } from './schema.js';

export type WorkflowRunRow = Selectable<WorkflowRunsTable>;
export type WorkflowRunStepRow = Selectable<WorkflowRunStepsTable>;

export interface RunFilters {
  contactId?: string | undefined;
  /** Inclusive. */
  startedAfter?: string | undefined;
  /** Exclusive. */
  startedBefore?: string | undefined;
}

/** GET …/runs: the automation's runs, newest first, filters combined. */
export async function selectWorkflowRunsPage(
  db: Kysely<DB>,
  codec: CursorCodec,
  accountId: string,
  workflowId: string,
  filters: RunFilters,
  page: PageRequest,
): Promise<Page<WorkflowRunRow>> {
  let q = db
    .selectFrom('workflow_runs')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('workflow_id', '=', workflowId);
  if (filters.contactId !== undefined) q = q.where('contact_id', '=', filters.contactId);
  if (filters.startedAfter !== undefined)
    q = q.where('created_at', '>=', sql<string>`cast(${filters.startedAfter} as timestamptz)`);
  if (filters.startedBefore !== undefined)
    q = q.where('created_at', '<', sql<string>`cast(${filters.startedBefore} as timestamptz)`);
  return paginate(
    q,
    {
      codec,
      list: 'workflow_runs',
      accountId,
      parent: workflowId,
      filters: {
        contact_id: filters.contactId,
        started_after: filters.startedAfter,
        started_before: filters.startedBefore,
      },
      order: 'desc',
      keys: [
        { column: 'created_at', field: 'created_at', type: 'timestamptz' },
        { column: 'id', field: 'id', type: 'uuid' },
      ],
    },
    page,
  );
}

export async function findWorkflowRun(
  db: Kysely<DB>,
  accountId: string,
  workflowId: string,
  runId: string,
): Promise<WorkflowRunRow | undefined> {
  return db
    .selectFrom('workflow_runs')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('workflow_id', '=', workflowId)
    .where('id', '=', runId)
    .executeTakeFirst();
}

/** The run's most recent `limit` steps, oldest first, and whether older ones were left out. */
export async function selectRecentRunSteps(
  db: Kysely<DB>,
  accountId: string,
  runId: string,
  limit: number,
): Promise<{ steps: WorkflowRunStepRow[]; truncated: boolean }> {
  const rows = await db
    .selectFrom('workflow_run_steps')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('run_id', '=', runId)
    .orderBy('seq', 'desc')
    .limit(limit + 1)
    .execute();
  return { steps: rows.slice(0, limit).reverse(), truncated: rows.length > limit };
}

// ---- The engine's SQL ----------------------------------------------------------------------------------

export type NewRunRow = Omit<WorkflowRunRow, 'step_count'>;
export type RunChanges = Partial<
  Omit<WorkflowRunRow, 'id' | 'account_id' | 'visits' | 'variables' | 'trigger_context'>
> & {
  visits?: Record<string, number>;
  variables?: Record<string, string | null>;
  trigger_context?: WorkflowRunRow['trigger_context'];
};

const runJson = (changes: RunChanges) => {
  const { visits, variables, trigger_context, ...rest } = changes;
  return {
    // The JSON columns go as JSON text.
    ...rest,
    ...(visits !== undefined ? { visits: JSON.stringify(visits) } : {}),
    ...(variables !== undefined ? { variables: JSON.stringify(variables) } : {}),
    ...(trigger_context !== undefined ? { trigger_context: JSON.stringify(trigger_context) } : {}),
  };
};

export async function insertRun(db: Kysely<DB>, row: NewRunRow): Promise<WorkflowRunRow> {
  return db
    .insertInto('workflow_runs')
    .values({
      ...row,
      visits: JSON.stringify(row.visits),
      variables: JSON.stringify(row.variables),
      trigger_context: JSON.stringify(row.trigger_context),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The run, locked for its stretch: one worker advances a run at a time. */
export async function lockRun(db: Kysely<DB>, runId: string): Promise<WorkflowRunRow | undefined> {
  return db.selectFrom('workflow_runs').selectAll().where('id', '=', runId).forUpdate().executeTakeFirst();
}

export async function updateRun(db: Kysely<DB>, runId: string, changes: RunChanges): Promise<WorkflowRunRow> {
  return db
    .updateTable('workflow_runs')
    .set(runJson(changes))
    .where('id', '=', runId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export type NewRunStep = Omit<WorkflowRunStepRow, 'error' | 'call'> & { error: WorkflowRunStepRow['error'] };

const stepRow = (step: NewRunStep) => ({ ...step, error: step.error ? JSON.stringify(step.error) : null });

export async function insertRunStep(db: Kysely<DB>, step: NewRunStep): Promise<void> {
  await db.insertInto('workflow_run_steps').values(stepRow(step)).execute();
}

/**
 * Saves a stretch's end in one statement: the run's changes, the steps the stretch took and the jobs it adds
 * (rows of jobs due later, which need no notification: store/jobs.ts `laterJobRow`). Returns the run.
 */
export async function saveRunWithSteps(
  db: Kysely<DB>,
  runId: string,
  changes: RunChanges,
  steps: readonly NewRunStep[],
  laterJobs: readonly Insertable<JobsTable>[] = [],
): Promise<WorkflowRunRow> {
  if (steps.length === 0) {
    if (laterJobs.length > 0) await db.insertInto('jobs').values(laterJobs).execute();
    return updateRun(db, runId, changes);
  }
  const withSteps = db.with('new_steps', (qb) => qb.insertInto('workflow_run_steps').values(steps.map(stepRow)));
  if (laterJobs.length === 0)
    return withSteps
      .updateTable('workflow_runs')
      .set(runJson(changes))
      .where('id', '=', runId)
      .returningAll()
      .executeTakeFirstOrThrow();
  return withSteps
    .with('new_jobs', (qb) => qb.insertInto('jobs').values(laterJobs))
    .updateTable('workflow_runs')
    .set(runJson(changes))
    .where('id', '=', runId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Ends the run's open step (a wait that ended): its status, output and end time. */
/** How a step closes. */
export interface StepClose {
  status: WorkflowRunStepRow['status'];
  output: number | null;
  ended_at: string;
  error?: WorkflowRunStepRow['error'];
  call?: WorkflowRunStepRow['call'];
}

/** The columns a step's close sets (closeRunStep, and the invoke call's end: invoke-calls.ts). */
export function stepCloseColumns(changes: StepClose) {
  const { error, call, ...rest } = changes;
  return {
    ...rest,
    ...(error !== undefined ? { error: error ? JSON.stringify(error) : null } : {}),
    ...(call ? { call: JSON.stringify(call) } : {}),
  };
}

export async function closeRunStep(db: Kysely<DB>, runId: string, seq: number, changes: StepClose): Promise<void> {
  await db
    .updateTable('workflow_run_steps')
    .set(stepCloseColumns(changes))
    .where('run_id', '=', runId)
    .where('seq', '=', seq)
    .execute();
}

/**
 * The contact's stopped run whose buttons or cards block sent `messageId`, locked, with that step; undefined
 * when there is none or its automation was deleted.
 */
export async function findStoppedRunOfMessage(
  db: Kysely<DB>,
  accountId: string,
  contactId: string,
  messageId: string,
): Promise<{ run: WorkflowRunRow; seq: number; nodeId: string; sentAt: string } | undefined> {
  const step = await db
    .selectFrom('workflow_run_steps as s')
    .innerJoin('workflow_runs as r', 'r.id', 's.run_id')
    .innerJoin('workflows as w', 'w.id', 'r.workflow_id')
    .select(['s.run_id', 's.seq', 's.node_id', 's.started_at'])
    .where('s.message_id', '=', messageId)
    .where('s.account_id', '=', accountId)
    .where('s.type', 'in', ['buttons', 'cards'])
    .where('r.contact_id', '=', contactId)
    .where('r.status', '=', 'stopped')
    .where('w.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!step?.node_id) return undefined;
  const run = await lockRun(db, step.run_id);
  if (run?.status !== 'stopped') return undefined;
  return { run, seq: step.seq, nodeId: step.node_id, sentAt: step.started_at };
}

/** The automation's runs that have not ended (a delete stops them). */
export async function selectActiveRunsOfWorkflow(db: Kysely<DB>, accountId: string, workflowId: string) {
  return db
    .selectFrom('workflow_runs')
    .select('id')
    .where('account_id', '=', accountId)
    .where('workflow_id', '=', workflowId)
    .where('ended_at', 'is', null)
    .execute();
}

/** The randomizer block's counts of runs per option, locked until the caller's transaction ends. */
export async function lockRandomizerCounts(db: Kysely<DB>, workflowId: string, nodeId: string, options: number) {
  await db
    .insertInto('workflow_randomizer_counts')
    .values({
      workflow_id: workflowId,
      node_id: nodeId,
      counts: JSON.stringify(Array.from({ length: options }, () => 0)),
    })
    .onConflict((oc) => oc.columns(['workflow_id', 'node_id']).doNothing())
    .execute();
  const row = await db
    .selectFrom('workflow_randomizer_counts')
    .select('counts')
    .where('workflow_id', '=', workflowId)
    .where('node_id', '=', nodeId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return row.counts;
}

export async function saveRandomizerCounts(db: Kysely<DB>, workflowId: string, nodeId: string, counts: number[]) {
  await db
    .updateTable('workflow_randomizer_counts')
    .set({ counts: JSON.stringify(counts) })
    .where('workflow_id', '=', workflowId)
    .where('node_id', '=', nodeId)
    .execute();
}

/** Runs ended before `before` and their steps (history is kept 90 days). */
export async function deleteRunsEndedBefore(db: Kysely<DB>, before: string): Promise<number> {
  const old = db
    .selectFrom('workflow_runs')
    .select('id')
    .where('ended_at', '<', sql<string>`cast(${before} as timestamptz)`);
  await db.deleteFrom('workflow_run_steps').where('run_id', 'in', old).execute();
  const result = await db
    .deleteFrom('workflow_runs')
    .where('ended_at', '<', sql<string>`cast(${before} as timestamptz)`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The contact's latest 500 messages since `since`, oldest first (conversation and last-message variables). */
export async function selectRecentMessagesOfContact(
  db: Kysely<DB>,
  accountId: string,
  contactId: string,
  since: string,
) {
  const rows = await db
    .selectFrom('messages')
    .select(['direction', 'text', 'created_at'])
    .where('account_id', '=', accountId)
    .where('contact_id', '=', contactId)
    .where('created_at', '>=', sql<string>`cast(${since} as timestamptz)`)
    .orderBy('created_at', 'desc')
    .limit(500)
    .execute();
  return rows.reverse();
}

export async function pauseContactAutomations(db: Kysely<DB>, accountId: string, contactId: string, until: Date) {
  await db
    .updateTable('contacts')
    .set({ automations_paused_until: until.toISOString() })
    .where('account_id', '=', accountId)
    .where('id', '=', contactId)
    .execute();
}

/**
 * In one query: whether the contact is mid-run of the automation (run_in_progress), and how many runs were
 * started for the contact since `since` (the hourly limit).
 */
export async function runStartState(
  db: Kysely<DB>,
  accountId: string,
  contactId: string,
  workflowId: string,
  since: string,
): Promise<{ inProgress: boolean; recent: number }> {
  const row = await db
    .selectFrom('workflow_runs')
    .select([
      sql<string>`count(*) filter (where created_at >= cast(${since} as timestamptz))`.as('recent'),
      sql<boolean | null>`bool_or(workflow_id = ${workflowId} and ended_at is null)`.as('in_progress'),
    ])
    .where('account_id', '=', accountId)
    .where('contact_id', '=', contactId)
    .where((eb) =>
      eb.or([eb('created_at', '>=', sql<string>`cast(${since} as timestamptz)`), eb('ended_at', 'is', null)]),
    )
    .executeTakeFirstOrThrow();
  return { inProgress: row.in_progress === true, recent: Number(row.recent) };
}
