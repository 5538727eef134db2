// What of an account waits on the clock (GET /admin/v1/sandbox/accounts/{accountId}/waits): its jobs that have
// not given up and would do something when they fall due, each told by what it will do. The jobs table is the one
// place every timed thing waits (a run's sleep or question timeout, a webhook or invoke retry, an arranged whatsapp
// failure), so the list is read from it rather than from each feature's own tables. A run's job stays in the table
// after its wait ended (the answer came, the run ended, its automation was deleted) and does nothing when it runs
// (server/run-wakes.ts, the engine's guard): such a job waits for nothing and is not listed.
import type { Kysely } from 'kysely';
import type { components } from '../../../generated/admin-api.js';
import { ADVANCE_RUN_JOB, DELIVER_JOB, FAIL_LATER_JOB, INVOKE_JOB, STOP_RUNS_JOB, type Wake } from '../../job-kinds.js';
import { pendingJobsOfAccount, runWaitStates } from '../../store/sandbox.js';
import type { DB } from '../../store/schema.js';
import { apiTimestamp } from '../../store/timestamps.js';
import { getAccount } from '../accounts/accounts.js';
import { advanceJobMovesRun } from '../../run-wakes.js';

type SandboxWait = components['schemas']['SandboxWait'];

/** At most this many are listed (the schema's `maxItems`). */
export const WAITS_LIMIT = 100;

const field = (payload: unknown, name: string): unknown =>
  typeof payload === 'object' && payload !== null && name in payload ? Reflect.get(payload, name) : undefined;
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

const RUN_WAKES = new Map<Wake['kind'] | string, SandboxWait['kind']>([
  ['start', 'run_start'],
  ['timer', 'run_sleep'],
  ['expire', 'run_question_timeout'],
  ['call', 'run_call_bound'],
]);

/** One job as a wait: what it does and on what. */
export function waitOf(job: { id: string; kind: string; payload: unknown; run_at: Date | string }): SandboxWait {
  const due_at = apiTimestamp(new Date(job.run_at));
  const { payload } = job;
  switch (job.kind) {
    case ADVANCE_RUN_JOB: {
      const wake = text(field(field(payload, 'wake'), 'kind'));
      const kind = RUN_WAKES.get(wake) ?? 'run_continue';
      return { kind, due_at, subject: { type: 'workflow_run', id: text(field(payload, 'run_id')) } };
    }
    case DELIVER_JOB:
      return {
        kind: 'webhook_attempt',
        due_at,
        subject: { type: 'webhook_delivery', id: text(field(payload, 'delivery_id')) },
      };
    case INVOKE_JOB:
      return { kind: 'invoke_attempt', due_at, subject: { type: 'invoke_call', id: text(field(payload, 'call_id')) } };
    case FAIL_LATER_JOB:
      return { kind: 'message_failure', due_at, subject: { type: 'message', id: text(field(payload, 'message_id')) } };
    case STOP_RUNS_JOB:
      return { kind: 'other', due_at, subject: { type: 'workflow', id: text(field(payload, 'workflow_id')) } };
    default:
      return { kind: 'other', due_at, subject: { type: 'other', id: job.kind } };
  }
}

/** Jobs read to find the 100 that wait: a run's stale wakes (a 90-day question timeout per question) come last. */
const JOBS_READ = 500;

type RunWaitState = Awaited<ReturnType<typeof runWaitStates>>[number];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a `workflow.advance` job's wake would move its run, as the engine decides when the job runs
 * (server/run-wakes.ts, the engine's own guard). The run missing or its automation deleted (its runs end
 * `stopped`): nothing.
 */
export function wakeMovesRun(wake: unknown, run: RunWaitState | undefined): boolean {
  if (!run || run.workflow_deleted_at !== null) return false;
  const step = field(wake, 'step');
  return advanceJobMovesRun(
    { kind: text(field(wake, 'kind')), step: typeof step === 'number' ? step : undefined },
    run,
  );
}

export async function listWaits(db: Kysely<DB>, accountId: string): Promise<components['schemas']['SandboxWaitList']> {
  await getAccount(db, accountId); // 404 for an unknown account
  const jobs = await pendingJobsOfAccount(db, accountId, JOBS_READ);
  const runIds = new Set<string>();
  for (const job of jobs) {
    const runId = job.kind === ADVANCE_RUN_JOB ? text(field(job.payload, 'run_id')) : '';
    if (UUID.test(runId)) runIds.add(runId);
  }
  const runs = new Map((await runWaitStates(db, accountId, [...runIds])).map((run) => [run.id, run]));
  const waiting = jobs.filter(
    (job) =>
      job.kind !== ADVANCE_RUN_JOB ||
      wakeMovesRun(field(job.payload, 'wake'), runs.get(text(field(job.payload, 'run_id')))),
  );
  return { data: waiting.slice(0, WAITS_LIMIT).map(waitOf), next_cursor: null };
}
