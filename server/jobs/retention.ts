// What the jobs table keeps (issue 33): a job that finished is deleted as it finishes (store/jobs.ts
// `completeJob`, in its handler's transaction when it has one), so only the jobs still to run and those that
// gave up stay. A job that gave up (no attempt left: its error is logged, `failed_at` set) is kept
// FAILED_JOB_RETENTION_DAYS for inspection; the hourly retention job (`webhook.prune`, ./handlers.ts) then deletes
// it here, oldest first, in batches of short statements, never one delete holding its locks for long. Nothing
// else reads a failed job: the delivery log reads `webhook_deliveries`, the audit `audit_log`, a run's history
// its `workflow_runs` and `workflow_run_steps`, and the sandbox's waits only jobs that have not given up.
import type { Clock } from '../clock.js';
import { deleteFailedJobs } from '../store/jobs.js';
import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';

const DAY = 24 * 60 * 60 * 1000;

/** Failed jobs deleted by one statement. */
export const FAILED_JOBS_BATCH = 500;
/** Statements one run makes at most: a larger backlog goes over the following hours. */
export const FAILED_JOBS_BATCHES_PER_RUN = 100;

export interface PruneFailedJobsOptions {
  /** Days a failed job is kept (config.failedJobRetentionDays). */
  retentionDays: number;
  /** Tests: smaller batches. */
  batch?: number;
  batchesPerRun?: number;
}

/** Deletes the jobs that gave up more than `retentionDays` ago (by the clock), in batches; returns how many. */
export async function pruneFailedJobs(db: Kysely<DB>, clock: Clock, options: PruneFailedJobsOptions): Promise<number> {
  const before = new Date(clock.now().getTime() - options.retentionDays * DAY).toISOString();
  const batch = options.batch ?? FAILED_JOBS_BATCH;
  const batches = options.batchesPerRun ?? FAILED_JOBS_BATCHES_PER_RUN;
  let deleted = 0;
  for (let i = 0; i < batches; i++) {
    // Each statement commits on its own: its row locks last one batch.
    const n = await deleteFailedJobs(db, before, batch);
    deleted += n;
    if (n < batch) break;
  }
  return deleted;
}
