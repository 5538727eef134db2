// SQL of the invoke block's calls (issue 22): the row the block writes, the attempts the `workflow.invoke` job
// records, and the secrets a call reads for the host it reaches (the only read of a secret's value).
import type { Kysely, Selectable } from 'kysely';
import type { DB, InvokeCallsTable, InvokeRequest, WorkflowRunsTable } from './schema.js';

export type InvokeCallRow = Selectable<InvokeCallsTable>;

export async function insertInvokeCall(
  db: Kysely<DB>,
  row: { id: string; account_id: string; run_id: string; step: number; request: InvokeRequest; now: string },
): Promise<InvokeCallRow> {
  return db
    .insertInto('invoke_calls')
    .values({
      id: row.id,
      account_id: row.account_id,
      run_id: row.run_id,
      step: row.step,
      request: JSON.stringify(row.request),
      status: 'pending',
      output: null,
      response_status: null,
      error: null,
      field_values: null,
      excerpt: null,
      created_at: row.now,
      updated_at: row.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findInvokeCall(db: Kysely<DB>, callId: string): Promise<InvokeCallRow | undefined> {
  return db.selectFrom('invoke_calls').selectAll().where('id', '=', callId).executeTakeFirst();
}

export async function findInvokeCallOfStep(
  db: Kysely<DB>,
  runId: string,
  step: number,
): Promise<InvokeCallRow | undefined> {
  return db
    .selectFrom('invoke_calls')
    .selectAll()
    .where('run_id', '=', runId)
    .where('step', '=', step)
    .executeTakeFirst();
}

/** What a call's attempt reads before it calls, without a lock: the call, and where its run stands. */
export async function findCallAndRun(
  db: Kysely<DB>,
  callId: string,
): Promise<
  | { call: InvokeCallRow; run: Pick<Selectable<WorkflowRunsTable>, 'ended_at' | 'waiting_for' | 'wait_step'> }
  | undefined
> {
  const row = await db
    .selectFrom('invoke_calls as c')
    .innerJoin('workflow_runs as r', 'r.id', 'c.run_id')
    .selectAll('c')
    .select(['r.ended_at as run_ended_at', 'r.waiting_for as run_waiting_for', 'r.wait_step as run_wait_step'])
    .where('c.id', '=', callId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { run_ended_at, run_waiting_for, run_wait_step, ...call } = row;
  return { call, run: { ended_at: run_ended_at, waiting_for: run_waiting_for, wait_step: run_wait_step } };
}

/**
 * Locks the run and then its call (the order of the run's other transactions: a wait's bound locks the run and
 * then cancels the call), in one statement: the run as it stands, and what of the call may have changed since
 * it was read (its status, attempts and time). Undefined when either is gone.
 */
export async function lockRunAndCall(
  db: Kysely<DB>,
  callId: string,
): Promise<
  { run: Selectable<WorkflowRunsTable>; call: Pick<InvokeCallRow, 'status' | 'attempts' | 'duration_ms'> } | undefined
> {
  const row = await db
    .selectFrom('workflow_runs as r')
    .innerJoin('invoke_calls as c', 'c.run_id', 'r.id')
    .selectAll('r')
    .select(['c.status as call_status', 'c.attempts as call_attempts', 'c.duration_ms as call_duration_ms'])
    .where('c.id', '=', callId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) return undefined;
  const { call_status, call_attempts, call_duration_ms, ...run } = row;
  return { run, call: { status: call_status, attempts: call_attempts, duration_ms: call_duration_ms } };
}

/** Locks the call's row (the attempt count is taken under it). */
export async function lockInvokeCall(db: Kysely<DB>, callId: string): Promise<InvokeCallRow | undefined> {
  return db.selectFrom('invoke_calls').selectAll().where('id', '=', callId).forUpdate().executeTakeFirst();
}

export interface InvokeCallChanges {
  status?: InvokeCallRow['status'];
  attempts?: number;
  output?: number | null;
  response_status?: number | null;
  error?: InvokeCallRow['error'];
  field_values?: InvokeCallRow['field_values'];
  excerpt?: string | null;
  duration_ms?: number;
  updated_at: string;
}

export async function updateInvokeCall(db: Kysely<DB>, callId: string, changes: InvokeCallChanges): Promise<void> {
  const { error, field_values, ...rest } = changes;
  await db
    .updateTable('invoke_calls')
    .set({
      ...rest,
      ...(error !== undefined ? { error: error ? JSON.stringify(error) : null } : {}),
      ...(field_values !== undefined ? { field_values: field_values ? JSON.stringify(field_values) : null } : {}),
    })
    .where('id', '=', callId)
    .execute();
}

/** The account's secrets named `names`, values included: the invoke call's, which sends each only to its domain. */
export async function selectSecretsNamed(
  db: Kysely<DB>,
  accountId: string,
  names: readonly string[],
): Promise<Array<{ name: string; value: string; domain: string }>> {
  if (names.length === 0) return [];
  return db
    .selectFrom('account_secrets')
    .select(['name', 'value', 'domain'])
    .where('account_id', '=', accountId)
    .where('name', 'in', [...names])
    .execute();
}
