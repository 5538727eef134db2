// SQL of the invoke block's calls (issue 22): the row the block writes, the attempts the `workflow.invoke` job
// records, and the secrets a call reads for the host it reaches (the only read of a secret's value).
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { DB, InvokeCallsTable, InvokeRequest, JobsTable, WorkflowRunsTable } from './schema.js';
import { stepCloseColumns, type StepClose } from './workflow-runs.js';

export type InvokeCallRow = Selectable<InvokeCallsTable>;

/** A call as its block writes it. */
export interface NewInvokeCall {
  id: string;
  account_id: string;
  run_id: string;
  step: number;
  request: InvokeRequest;
  now: string;
}

const newCallRow = (row: NewInvokeCall) =>
  ({
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
  }) satisfies Insertable<InvokeCallsTable>;

export async function insertInvokeCall(db: Kysely<DB>, row: NewInvokeCall): Promise<InvokeCallRow> {
  return db.insertInto('invoke_calls').values(newCallRow(row)).returningAll().executeTakeFirstOrThrow();
}

/**
 * The call with its two jobs, in one statement (the block's turn is on the path to its request): `job`, the
 * call's first attempt (store/jobs.ts claimedJobRow), and `bound`, due later (laterJobRow). Returns the call and
 * the first job's row.
 */
export async function insertInvokeCallWithJobs(
  db: Kysely<DB>,
  row: NewInvokeCall,
  jobs: { job: Insertable<JobsTable>; bound: Insertable<JobsTable> },
): Promise<{ call: InvokeCallRow; job: Selectable<JobsTable> }> {
  const inserted = await db
    .with('call', (qb) => qb.insertInto('invoke_calls').values(newCallRow(row)).returningAll())
    .with('job', (qb) => qb.insertInto('jobs').values(jobs.job).returningAll())
    .with('bound', (qb) => qb.insertInto('jobs').values(jobs.bound).returning('id'))
    .selectFrom(['call', 'job'])
    .selectAll('call')
    .select([
      'job.id as job_id',
      'job.kind as job_kind',
      'job.account_id as job_account_id',
      'job.payload as job_payload',
      'job.run_at as job_run_at',
      'job.locked_until as job_locked_until',
      'job.locked_by as job_locked_by',
      'job.attempts as job_attempts',
      'job.last_error as job_last_error',
      'job.created_at as job_created_at',
      'job.failed_at as job_failed_at',
      'job.waiting_for as job_waiting_for',
      'job.wait_until as job_wait_until',
    ])
    .executeTakeFirstOrThrow();
  const { job_id, job_kind, job_account_id, job_payload, job_run_at, job_locked_until, job_locked_by, ...rest } =
    inserted;
  const { job_attempts, job_last_error, job_created_at, job_failed_at, job_waiting_for, job_wait_until, ...call } =
    rest;
  const job = {
    id: job_id,
    kind: job_kind,
    account_id: job_account_id,
    payload: job_payload,
    run_at: job_run_at,
    locked_until: job_locked_until,
    locked_by: job_locked_by,
    attempts: job_attempts,
    last_error: job_last_error,
    created_at: job_created_at,
    failed_at: job_failed_at,
    waiting_for: job_waiting_for,
    wait_until: job_wait_until,
  } satisfies Selectable<JobsTable>;
  return { call, job };
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

function callColumns(changes: InvokeCallChanges) {
  const { error, field_values, ...rest } = changes;
  return {
    ...rest,
    ...(error !== undefined ? { error: error ? JSON.stringify(error) : null } : {}),
    ...(field_values !== undefined ? { field_values: field_values ? JSON.stringify(field_values) : null } : {}),
  };
}

export async function updateInvokeCall(db: Kysely<DB>, callId: string, changes: InvokeCallChanges): Promise<void> {
  await db.updateTable('invoke_calls').set(callColumns(changes)).where('id', '=', callId).execute();
}

/**
 * The end of a call its job recorded, in one statement (it is on the path from the answer to the run's next
 * send): the run and the call locked (as `lockRunAndCall`), the call written with `changes`, and the run's step
 * of the call closed with `close`, only when the call is as its job knew it (pending, at most `known.attempts`
 * attempts and `known.duration_ms` recorded) and its run waits for it at its step. Returns the run as it stands
 * and whether the call ended; undefined when the run or the call is gone.
 */
export async function endCallClosingStep(
  db: Kysely<DB>,
  callId: string,
  known: Pick<InvokeCallRow, 'attempts' | 'duration_ms'>,
  changes: InvokeCallChanges,
  close: StepClose,
): Promise<{ run: Selectable<WorkflowRunsTable>; ended: boolean } | undefined> {
  const row = await db
    .with('locked', (qb) =>
      qb
        .selectFrom('workflow_runs as r')
        .innerJoin('invoke_calls as c', 'c.run_id', 'r.id')
        .selectAll('r')
        .select([
          'c.status as call_status',
          'c.step as call_step',
          'c.attempts as call_attempts',
          'c.duration_ms as call_duration_ms',
        ])
        .where('c.id', '=', callId)
        .forUpdate(),
    )
    .with('ended', (qb) =>
      qb
        .updateTable('invoke_calls')
        .from('locked')
        .set(callColumns(changes))
        .where('invoke_calls.id', '=', callId)
        .where('locked.call_status', '=', 'pending')
        .where('locked.call_attempts', '<=', known.attempts)
        .where('locked.call_duration_ms', '=', known.duration_ms)
        .where('locked.ended_at', 'is', null)
        .where('locked.waiting_for', '=', 'call')
        .whereRef('locked.wait_step', '=', 'locked.call_step')
        .returning(['invoke_calls.run_id', 'invoke_calls.step']),
    )
    .with('closed', (qb) =>
      qb
        .updateTable('workflow_run_steps')
        .from('ended')
        .set(stepCloseColumns(close))
        .whereRef('workflow_run_steps.run_id', '=', 'ended.run_id')
        .whereRef('workflow_run_steps.seq', '=', 'ended.step')
        .returning('workflow_run_steps.id'),
    )
    .selectFrom('locked')
    .selectAll('locked')
    .select((eb) => eb.exists(eb.selectFrom('ended').select('ended.step')).as('call_ended'))
    .executeTakeFirst();
  if (!row) return undefined;
  // The call's columns were for the condition only.
  const { call_status: _s, call_step: _t, call_attempts: _a, call_duration_ms: _d, call_ended, ...run } = row;
  return { run, ended: Boolean(call_ended) };
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
