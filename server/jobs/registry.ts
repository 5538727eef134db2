// The handler of each job kind. A worker claims only the kinds its registry knows, so a process running an
// older release never takes a job it cannot run.
import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { ClaimedJob } from '../store/jobs.js';
import type { DB } from '../store/schema.js';

export interface JobContext {
  db: Kysely<DB>;
  clock: Clock;
  logger: Logger;
  /**
   * Deletes the job inside the handler's own transaction, so its effect and its completion commit together
   * (exactly once for database effects). Throws `LeaseLostError` when the lease was taken over: the
   * transaction then rolls back and the other worker's run is the one that counts.
   */
  complete(trx: Transaction<DB>): Promise<void>;
  /**
   * Instead of completing: the job waits for `key` (a resource someone else holds) and is not claimed again
   * until the transaction that frees it calls `wakeJobs(key)`, or until `until` if nobody does. It costs no
   * query meanwhile. Throws `LeaseLostError` like `complete`.
   */
  park(trx: Transaction<DB>, wait: { key: string; until: Date | string }): Promise<void>;
}

export interface JobHandler {
  /**
   * Runs the job. Jobs run at least once: a worker that dies mid-run leaves the job to run again when its
   * lease expires, so effects outside the database must be safe to repeat.
   */
  run(job: ClaimedJob, ctx: JobContext): Promise<void>;
  /** When to try again after `error` (job.attempts counts this attempt), or null to give up. */
  retryAt?(job: ClaimedJob, error: unknown, now: Date): Date | null;
}

export class LeaseLostError extends Error {
  constructor(readonly jobId: string) {
    super(`job ${jobId}: the lease was taken over by another worker`);
    this.name = 'LeaseLostError';
  }
}

export class JobRegistry {
  private readonly handlers = new Map<string, JobHandler>();

  register(kind: string, handler: JobHandler): this {
    if (this.handlers.has(kind)) throw new Error(`job kind ${kind} is registered twice`);
    this.handlers.set(kind, handler);
    return this;
  }

  get(kind: string): JobHandler | undefined {
    return this.handlers.get(kind);
  }

  kinds(): string[] {
    return [...this.handlers.keys()];
  }
}
