// Durable jobs: enqueue in the caller's transaction (store/jobs.ts, typed by server/job-kinds.ts), run by
// workers (./worker.ts) with handlers by kind.
export { JobRegistry, LeaseLostError, type JobContext, type JobHandler } from './registry.js';
export { JobWorker, type WorkerOptions } from './worker.js';
export { enqueue, type ClaimedJob, type NewJob } from '../store/jobs.js';
