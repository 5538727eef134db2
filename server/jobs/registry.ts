// The handler of each job kind. A worker claims only the kinds its registry knows, so a process running an
// older release never takes a job it cannot run.
import type { Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Random, RetrySchedule } from '../retries.js';
import type { FreedJob } from '../store/job-workers.js';
import type { ClaimAtInsert, ClaimedJob, JobLease, JobsAtCommit } from '../store/jobs.js';
import type { DB } from '../store/schema.js';

/**
 * What a handler is given: the job's lease (the database, `complete`, `park`), the clock, the log, and the
 * random source its retry waits are drawn from (server/retries.ts).
 */
export interface JobContext extends JobLease {
  clock: Clock;
  logger: Logger;
  random: Random;
  /**
   * The handler ended its claim itself, in a committed statement of several claims (store/jobs.ts
   * `completeJobs`, `parkJobs`: a batch of one kind): the worker then does nothing more with it, as after
   * `complete` or `park`. Call only after that statement's transaction committed.
   */
  ended(how: 'completed' | 'parked'): void;
  /**
   * The worker running the job, for a handler that hands it more work in its own statement (a webhook attempt that
   * ends hands its endpoint's slot to the next delivery waiting for it). Absent when no worker runs the job.
   */
  worker?: WorkerHandle;
}

/** A worker as a handler sees it: claims taken for it in a handler's statement, run once that statement committed. */
export interface WorkerHandle {
  /** The `locked_by` of a claim taken for this worker. */
  id: string;
  /** The lease a claim of `kind` takes. */
  leaseMs(kind: string): number;
  /** Runs claims taken for this worker, after the transaction that took them committed; does not wait for them. */
  run(jobs: readonly ClaimedJob[]): void;
}

/** The handler of kind `K`: it reads that kind's payload (server/job-kinds.ts). */
export interface JobHandler<K extends string = string> {
  /**
   * Runs the job. Jobs run at least once: a worker that dies mid-run leaves the job to run again when its
   * lease expires, so effects outside the database must be safe to repeat.
   */
  run(job: ClaimedJob<K>, ctx: JobContext): Promise<void>;
  /** When to try again after `error` (job.attempts counts this attempt), or null to give up. */
  retryAt?: RetrySchedule;
  /**
   * How long a claim holds a job of this kind before another worker may take it (the worker renews it while the
   * job runs): long enough for a run's slowest step between renewals, short enough that a crash costs seconds.
   * Default: the worker's.
   */
  leaseMs?: number;
  /**
   * In the transaction that frees the claim of a worker that is gone (killed mid-run): gives back what the job
   * held outside the jobs table (e.g. a webhook endpoint's in-flight slot), so its next run need not wait for it.
   */
  abandoned?(trx: Transaction<DB>, job: FreedJob<K>): Promise<void>;
}

export class LeaseLostError extends Error {
  constructor(readonly jobId: string) {
    super(`job ${jobId}: the lease was taken over by another worker`);
    this.name = 'LeaseLostError';
  }
}

/** The worker that runs at once the jobs this process commits already claimed for it (`runSoon`). */
export interface SoonRunner {
  workerId: string;
  /** The lease a claim of `kind` takes. */
  leaseMs(kind: string): number;
  /** Runs the jobs; resolves when they have finished. */
  run(jobs: readonly ClaimedJob[]): Promise<void>;
  /** Gives back claims it will not run, uncounted, to the loops. */
  release(jobs: readonly ClaimedJob[]): Promise<void>;
  /** How many more jobs it could start now (its free slots); absent: none is offered by `room`. */
  room?(): number;
}

export class JobRegistry implements JobsAtCommit {
  private readonly handlers = new Map<string, JobHandler>();
  private runner: SoonRunner | undefined;

  /** `schedules`: the retry schedule of each kind whose handler gives none (retries.ts JOB_RETRY_SCHEDULES). */
  constructor(private readonly schedules: Readonly<Partial<Record<string, RetrySchedule>>> = {}) {}

  register<K extends string>(kind: K, handler: JobHandler<K>): this {
    if (this.handlers.has(kind)) throw new Error(`job kind ${kind} is registered twice`);
    // Kept as a handler of any kind: the worker gives it only the jobs of `kind`, whose payload `enqueue` wrote
    // as that kind's. Here the types take the stored rows at their word (`run` is a method, whose parameter
    // TypeScript checks both ways, so the widening needs no cast).
    const widened: JobHandler = handler;
    this.handlers.set(kind, {
      run: (job, ctx) => widened.run(job, ctx),
      retryAt: widened.retryAt ?? this.schedules[kind],
      ...(widened.leaseMs !== undefined ? { leaseMs: widened.leaseMs } : {}),
      ...(widened.abandoned ? { abandoned: widened.abandoned.bind(widened) } : {}),
    });
    return this;
  }

  /** Set by `JobWorker.runJobsAtCommit`: the worker that runs at once the jobs `runSoon` is given. */
  runJobsWith(runner: SoonRunner | undefined): void {
    this.runner = runner;
  }

  /**
   * The claim a job of `kind` added now takes for this process's worker to run it once the transaction commits
   * (store/jobs.ts enqueueClaimed, then `runSoon`); undefined when no worker runs jobs at commit here: the job
   * is then added unclaimed, for the loops.
   */
  claimAtInsert(kind: string): ClaimAtInsert | undefined {
    const runner = this.runner;
    return runner ? { workerId: runner.workerId, leaseMs: runner.leaseMs(kind) } : undefined;
  }

  /**
   * Jobs a transaction of this process just committed, claimed at insert for this process's worker: run at
   * once, with no claim and no wake-up between the commit and the start. If the runner fails, the claims are
   * given back to the loops (or, if that fails too, freed when their lease ends). Neither throws nor waits.
   */
  runSoon(jobs: readonly ClaimedJob[]): void {
    const runner = this.runner;
    if (jobs.length === 0 || !runner) return;
    // JobWorker.runClaimed logs its own failures.
    void runner.run(jobs).catch(() => runner.release(jobs).catch(() => undefined));
  }

  /**
   * How many more jobs this process's worker could start now (0 without one): a producer of bursts (the channel
   * webhooks' intake) claims at insert only that many and leaves the rest to the loops, so the jobs run at once
   * stay bounded by the worker's concurrency.
   */
  room(): number {
    return this.runner?.room?.() ?? 0;
  }

  get(kind: string): JobHandler | undefined {
    return this.handlers.get(kind);
  }

  kinds(): string[] {
    return [...this.handlers.keys()];
  }

  /** The kinds with a lease of their own, and that lease. */
  leases(): Record<string, number> {
    const leases: Record<string, number> = {};
    for (const [kind, handler] of this.handlers) if (handler.leaseMs !== undefined) leases[kind] = handler.leaseMs;
    return leases;
  }
}

/**
 * The API's handle on this process's worker, which starts after the app (main.ts): until `attach`, and with
 * WORKERS=false, nothing is claimed at insert (the jobs wait for the loops, of this process or another).
 */
export class LateJobsAtCommit implements JobsAtCommit {
  private registry: JobRegistry | undefined;

  attach(registry: JobRegistry | undefined): void {
    this.registry = registry;
  }

  claimAtInsert(kind: string): ClaimAtInsert | undefined {
    return this.registry?.claimAtInsert(kind);
  }

  runSoon(jobs: readonly ClaimedJob[]): void {
    this.registry?.runSoon(jobs);
  }

  room(): number {
    return this.registry?.room() ?? 0;
  }
}
