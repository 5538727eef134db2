// Durable jobs: enqueue in the caller's transaction, run by workers (./worker.ts) with handlers by kind.
import type { Transaction } from 'kysely';
import type { Clock } from '../clock.js';
import { enqueueJob, type NewJob } from '../store/jobs.js';
import type { DB } from '../store/schema.js';

export { JobRegistry, LeaseLostError, type JobContext, type JobHandler } from './registry.js';
export { defaultJobRetryAt } from '../retries.js';
export { JobWorker, type WorkerOptions } from './worker.js';
export type { ClaimedJob, NewJob } from '../store/jobs.js';

/** Adds a job in `trx` (the transaction of the write that causes it); `runAt` defaults to now. Returns its id. */
export function enqueue(trx: Transaction<DB>, clock: Clock, job: NewJob): Promise<string> {
  return enqueueJob(trx, job, clock.now());
}
