// SQL of automation runs and their steps, as the run routes read them (the engine writes them).
import { sql, type Kysely, type Selectable } from 'kysely';
import type { CursorCodec } from './cursor.js';
import { paginate, type Page, type PageRequest } from './pagination.js';
import type { DB, WorkflowRunStepsTable, WorkflowRunsTable } from './schema.js';

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
