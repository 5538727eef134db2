// The worker loop: claim due jobs (up to `concurrency` at a time), run each with its kind's handler, delete it
// when done or put it back for a retry when it fails. Several workers, in one process or many, share one
// table: the claim skips rows another worker is taking, and a lease that expires (a worker died) frees the job.
//
// Due times and leases come from the injected clock; the poll interval and the heartbeat are wall-clock cadence.
//
// Each kind has a lease that fits it (JobHandler.leaseMs); the worker renews the lease of a job still running at
// each heartbeat, so a short lease costs a live job nothing and a crash costs seconds. A started worker registers
// itself and beats a heartbeat: the claims of a worker that is gone are freed by the others (./liveness.ts).
//
// An idle worker waits for the poll interval or for a wake-up (`wakeOn`, e.g. the database's notification that a
// transaction committed a job due now), whichever comes first: the poll is the fallback, so a lost notification
// costs one interval at most. A wake-up while the worker is claiming makes it claim again before it waits.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { pino, type Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Database } from '../store/database.js';
import { runInBackground } from '../store/priority.js';
import {
  analyzeJobs,
  claimJobs,
  completeJob,
  failJob,
  JOBS_READY_CHANNEL,
  parkJob,
  releaseJob,
  wakeOverdueJobs,
  type ClaimedJob,
} from '../store/jobs.js';
import type { DB } from '../store/schema.js';
import { defaultJobRetryAt, type Random } from '../retries.js';
import { renewLeases } from '../store/job-workers.js';
import { countedAsJob } from '../metrics.js';
import { WorkerLiveness } from './liveness.js';
import { LeaseLostError, type JobRegistry, type WorkerHandle } from './registry.js';

/** How often a worker with a backlog refreshes the jobs table's statistics. */
const STATISTICS_EVERY_MS = 60_000;

export interface WorkerOptions {
  db: Kysely<DB>;
  clock: Clock;
  registry: JobRegistry;
  logger?: Logger;
  /** Written to `locked_by`; default host:pid:random. */
  id?: string;
  /** How long to wait before looking again when nothing was due. Default 1 s. */
  pollIntervalMs?: number;
  /** How long a claim holds a job of a kind without a lease of its own (renewed while it runs). Default 60 s. */
  leaseMs?: number;
  /** How often a started worker beats its heartbeat, renews its running jobs' leases and sweeps. Default 2 s. */
  heartbeatMs?: number;
  /** A worker whose heartbeat is older than this is gone: its claims are freed. Default 20 s. */
  silentAfterMs?: number;
  /** Jobs run at once by this worker. Default 4. */
  concurrency?: number;
  /**
   * The kinds of the registry this worker claims (default: every kind). Two workers of one process may split
   * the kinds, so jobs that wait on I/O (webhook deliveries) have slots of their own beside the others.
   */
  kinds?: readonly string[];
  /**
   * Where the retry schedules draw their waits (server/retries.ts) and handlers any other jitter. Default
   * Math.random; tests fix it (1: each window's top, the stated schedule).
   */
  random?: Random;
  /**
   * Subscribes `wake` to a signal that jobs may be due (e.g. `(wake) => database.listen(JOBS_READY_CHANNEL,
   * wake)`); resolves with the unsubscribe, called when the worker stops. A failure only logs: the worker polls.
   */
  wakeOn?: (wake: () => void) => Promise<() => Promise<void>>;
}

/**
 * The `wakeOn` of a worker on `database`: the notification of every committed transaction that added a job due
 * now, whichever process wrote it. Undefined when the handle cannot listen (the worker then only polls).
 */
export function wakeOnJobsReady(database: Pick<Database, 'listen'>): WorkerOptions['wakeOn'] {
  const listen = database.listen?.bind(database);
  if (!listen) return undefined;
  return (wake) => listen(JOBS_READY_CHANNEL, wake);
}

export class JobWorker {
  readonly id: string;
  private readonly db: Kysely<DB>;
  private readonly clock: Clock;
  private readonly registry: JobRegistry;
  private readonly logger: Logger;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly kinds: readonly string[];
  private readonly random: Random;
  private readonly wakeOn: WorkerOptions['wakeOn'];
  private readonly heartbeatMs: number;
  private readonly liveness: WorkerLiveness;
  /** What a handler is given of this worker (JobContext.worker). */
  private readonly handle: WorkerHandle;
  private readonly running = new Set<Promise<void>>();
  /** The claims this worker is running, by job id: their leases are renewed at each heartbeat. */
  private readonly holding = new Map<string, ClaimedJob>();
  private beating = false;
  private loopDone: Promise<void> | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;
  /** A wake-up came since the last claim began. */
  private woken = false;
  private analyzedAt = 0;
  /** When the waits past their deadline were last woken (performance.now()). */
  private sweptAt = -Infinity;
  /**
   * The jobs of this worker that parked lately (the resource they need was taken: a webhook endpoint's 5 slots) and
   * since when: counted as busy slots until PARKS_LAPSE (a poll interval, at most 1 s) has passed, so the worker
   * does not claim at once more jobs that would park too. Without it a backlog to full endpoints was claimed and
   * parked in a spin (every delivery ran twice). A slot freed by a job that ends goes on to the jobs waiting for
   * it (a hand-over, which runs here without a claim), not to a new claim.
   */
  private parks = { count: 0, since: 0, lapseMs: 0, lapsedAt: -Infinity };

  constructor(options: WorkerOptions) {
    this.id = options.id ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.db = options.db;
    this.clock = options.clock;
    this.registry = options.registry;
    this.logger = options.logger ?? pino({ level: 'silent' });
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.concurrency = options.concurrency ?? 4;
    this.kinds = options.kinds ?? this.registry.kinds();
    this.random = options.random ?? Math.random;
    this.wakeOn = options.wakeOn;
    this.heartbeatMs = options.heartbeatMs ?? 2000;
    const identity = { id: this.id, host: hostname(), pid: process.pid };
    this.liveness = new WorkerLiveness(this.db, identity, this.registry, this.logger, options.silentAfterMs ?? 20_000);
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) throw new Error('concurrency must be ≥ 1');
    this.handle = {
      id: this.id,
      leaseMs: (kind) => this.leaseOf(kind),
      run: (jobs) => void this.runClaimed(jobs),
    };
  }

  /** Starts polling in the background. */
  start(): void {
    if (this.loopDone) throw new Error('the worker is already started');
    this.stopping = false;
    // Everything the worker does yields the database to the API's requests (server/store/priority.ts).
    this.loopDone = runInBackground(() => this.loop());
  }

  /**
   * Stops claiming, gives back jobs claimed but not started, and resolves when the running jobs have finished
   * (each then completes or fails, which frees its lease) and the worker has left the registry.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loopDone;
    await Promise.all([...this.running]);
    this.loopDone = undefined;
    await this.liveness
      .unregister()
      .catch((error: unknown) =>
        this.logger.warn({ err: error, worker: this.id }, 'leaving the worker registry failed'),
      );
  }

  /**
   * Claims what is due now (up to `limit`) and runs it; resolves when those jobs have finished, and the jobs handed
   * to this worker meanwhile (JobContext.worker: a webhook attempt's freed slot) too.
   */
  async runOnce(limit = this.concurrency): Promise<number> {
    return runInBackground(async () => {
      this.sweptAt = -Infinity;
      const jobs = await this.claim(limit);
      await Promise.all(jobs.map((job) => this.execute(job)));
      while (this.running.size > 0) await Promise.all([...this.running]);
      return jobs.length;
    });
  }

  private async loop(): Promise<void> {
    try {
      await this.liveness.register();
    } catch (error) {
      // Its heartbeats register it again; meanwhile its claims are freed by their leases only.
      this.logger.error({ err: error, worker: this.id }, 'joining the worker registry failed');
    }
    const heartbeat = setInterval(() => void this.beat(), this.heartbeatMs).unref();
    const unsubscribe = await this.subscribe();
    try {
      await this.work();
    } finally {
      clearInterval(heartbeat);
      await unsubscribe?.().catch((error: unknown) =>
        this.logger.warn({ err: error, worker: this.id }, 'job wake-up unsubscribe failed'),
      );
    }
  }

  /** The heartbeat: this worker is alive, its running jobs' leases go on, the gone workers' claims are freed. */
  private async beat(): Promise<void> {
    if (this.beating) return; // the last beat is still running (a slow database): skip this one
    this.beating = true;
    try {
      await runInBackground(async () => {
        await this.renewLeases();
        await this.liveness.beat();
      });
    } catch (error) {
      this.logger.warn({ err: error, worker: this.id }, 'worker heartbeat failed');
    } finally {
      this.beating = false;
    }
  }

  /** Renews, to a full lease, the claims of running jobs with half their lease left or less. */
  private async renewLeases(): Promise<void> {
    const now = this.clock.now().getTime();
    const byLease = new Map<number, ClaimedJob[]>();
    for (const job of this.holding.values()) {
      const lease = this.leaseOf(job.kind);
      if (Date.parse(job.lockedUntil) - now <= lease / 2) byLease.set(lease, [...(byLease.get(lease) ?? []), job]);
    }
    for (const [lease, jobs] of byLease) {
      const until = new Date(now + lease);
      const renewed = new Set(
        await renewLeases(
          this.db,
          this.id,
          jobs.map((job) => job.id),
          until,
        ),
      );
      for (const job of jobs) {
        if (renewed.has(job.id)) job.lockedUntil = until.toISOString();
        else if (this.holding.delete(job.id))
          this.logger.warn({ job: job.id, kind: job.kind, worker: this.id }, 'job lease lost while it runs');
      }
    }
  }

  private leaseOf(kind: string): number {
    return this.registry.get(kind)?.leaseMs ?? this.leaseMs;
  }

  private async subscribe(): Promise<(() => Promise<void>) | undefined> {
    if (!this.wakeOn) return undefined;
    try {
      return await this.wakeOn(() => {
        this.woken = true;
        this.wake?.();
      });
    } catch (error) {
      this.logger.warn({ err: error, worker: this.id }, 'job wake-up subscription failed: polling only');
      return undefined;
    }
  }

  private async work(): Promise<void> {
    while (!this.stopping) {
      // Below 0 when jobs handed over at commit (runClaimed) run beside a full batch: wait for a slot, not a poll.
      const free = this.concurrency - this.running.size - this.recentParks();
      if (free <= 0) {
        await this.until(Promise.race([...this.running, this.parksLapse()]));
        continue;
      }
      let jobs: ClaimedJob[] = [];
      this.woken = false;
      try {
        jobs = await this.claim(free);
      } catch (error) {
        this.logger.error({ err: error, worker: this.id }, 'job claim failed');
      }
      if (this.stopping) {
        await this.release(jobs);
        break;
      }
      for (const job of jobs) void this.launch(job);
      // A full batch: more may be due, claim again as soon as a slot frees. Otherwise wait for the poll or a
      // wake-up, unless one came during the claim (its job may have committed too late for it).
      if (jobs.length === free) this.refreshStatistics();
      else if (!this.woken) await this.idle();
    }
  }

  /** The jobs that parked lately, still counted as busy slots (see `parks`). */
  private recentParks(): number {
    const parks = this.parks;
    if (parks.count > 0 && performance.now() - parks.since >= parks.lapseMs) {
      parks.count = 0;
      parks.lapsedAt = performance.now();
    }
    return parks.count;
  }

  /**
   * A job parked: counted from now if none was. Parks again right after a lapse (the jobs claimed then parked too:
   * more waiters than slots, as with several processes) double the lapse, up to 1 s; a quiet lapse starts again
   * from a poll interval (at most 1 s).
   */
  private parked(): void {
    const parks = this.parks;
    if (parks.count === 0) {
      const now = performance.now();
      const base = Math.min(this.pollIntervalMs, 1000);
      parks.lapseMs = now - parks.lapsedAt < parks.lapseMs ? Math.min(2 * parks.lapseMs, 1000) : base;
      parks.since = now;
    }
    parks.count++;
  }

  /** Resolves when the parks counted now stop counting (never, when none is). */
  private parksLapse(): Promise<void> {
    if (this.parks.count === 0) return new Promise(() => {});
    const left = this.parks.since + this.parks.lapseMs - performance.now();
    return new Promise((ok) => setTimeout(ok, Math.max(0, left)).unref());
  }

  /**
   * A backlog (a full batch was due): keep the claim on its index by refreshing the table's statistics, at most
   * once a minute per worker (wall-clock cadence, like the poll). In the background; a failure only logs.
   */
  private refreshStatistics(): void {
    if (Date.now() - this.analyzedAt < STATISTICS_EVERY_MS) return;
    this.analyzedAt = Date.now();
    analyzeJobs(this.db).catch((error: unknown) =>
      this.logger.warn({ err: error, worker: this.id }, 'jobs statistics refresh failed'),
    );
  }

  /** Waits for the poll interval, a wake-up or stop(). */
  private async idle(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await this.until(new Promise((ok) => (timer = setTimeout(ok, this.pollIntervalMs).unref())));
    clearTimeout(timer);
  }

  /** Waits for `event`, a wake-up or stop(). */
  private async until(event: Promise<unknown>): Promise<void> {
    await Promise.race([event, new Promise<void>((ok) => (this.wake = ok))]);
    this.wake = undefined;
  }

  /**
   * Claims due jobs, first waking the waits past their deadline (a job parked on a resource whose holder died)
   * at most once per poll interval: one indexed statement, whatever the number of waiting jobs.
   */
  private async claim(limit: number): Promise<ClaimedJob[]> {
    if (performance.now() - this.sweptAt >= this.pollIntervalMs) {
      this.sweptAt = performance.now();
      try {
        await wakeOverdueJobs(this.db, this.clock.now());
      } catch (error) {
        this.logger.warn({ err: error, worker: this.id }, 'waking overdue job waits failed');
      }
    }
    return claimJobs(this.db, {
      workerId: this.id,
      kinds: this.kinds,
      limit,
      now: this.clock.now(),
      leaseMs: this.leaseMs,
      leases: this.registry.leases(),
    });
  }

  /** Runs `job` in the background, among the jobs stop() waits for; resolves when it has finished. */
  private launch(job: ClaimedJob): Promise<void> {
    const run: Promise<void> = this.execute(job).finally(() => this.running.delete(run));
    this.running.add(run);
    return run;
  }

  private async release(jobs: ClaimedJob[]): Promise<void> {
    for (const job of jobs) {
      try {
        await releaseJob(this.db, job);
      } catch (error) {
        // The lease will expire on its own.
        this.logger.warn({ err: error, job: job.id, worker: this.id }, 'job release failed');
      }
    }
  }

  /** Runs one claimed job to its end; never throws. */
  private async execute(job: ClaimedJob): Promise<void> {
    this.holding.set(job.id, job);
    try {
      // Background work of its own, begun now: on PGlite the jobs begun first get the session first.
      await runInBackground(() => countedAsJob(job.kind, () => this.executeHeld(job)));
    } finally {
      this.holding.delete(job.id);
    }
  }

  private async executeHeld(job: ClaimedJob): Promise<void> {
    const handler = this.registry.get(job.kind);
    const log = { job: job.id, kind: job.kind, attempts: job.attempts, worker: this.id };
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      let completedInside = false;
      let parked = false;
      await handler.run(job, {
        db: this.db,
        clock: this.clock,
        logger: this.logger,
        random: this.random,
        complete: async (trx) => {
          if (!(await completeJob(trx, job))) throw new LeaseLostError(job.id);
          completedInside = true;
        },
        park: async (trx, wait) => {
          if (!(await parkJob(trx, job, wait))) throw new LeaseLostError(job.id);
          parked = true;
        },
        ended: (how) => {
          if (how === 'parked') parked = true;
          else completedInside = true;
        },
        worker: this.handle,
      });
      // A parked job may already be woken and claimed again, by this very worker and with the same attempt
      // count (a park gives the claim back uncounted): completing it here could delete that new run's job.
      if (parked) return this.parked();
      // Completed in the handler's transaction and the handler returned: that transaction committed (a failed
      // commit throws out of the handler), so the job is gone and a second delete would be a wasted round trip.
      // A handler that swallowed the failure of that transaction leaves the job to its lease: it runs again.
      if (completedInside) return;
      if (!(await completeJob(this.db, job))) this.logger.warn(log, 'job finished after its lease was taken over');
    } catch (error) {
      const now = this.clock.now();
      let retryAt: Date | null = null;
      try {
        retryAt = (handler?.retryAt ?? defaultJobRetryAt)(job, error, now, this.random);
      } catch (policyError) {
        this.logger.error({ ...log, err: policyError }, 'job retry policy failed');
        retryAt = defaultJobRetryAt(job, error, now, this.random);
      }
      const message = error instanceof Error ? error.message : String(error);
      if (retryAt) this.logger.warn({ ...log, err: error, retry_at: retryAt.toISOString() }, 'job failed');
      else this.logger.error({ ...log, err: error }, 'job failed: no attempt left, giving up');
      try {
        if (!(await failJob(this.db, job, { error: message, retryAt, now })))
          this.logger.warn(log, 'job failed after its lease was taken over');
      } catch (storeError) {
        // The lease will expire and the job run again.
        this.logger.error({ ...log, err: storeError }, 'job failure could not be recorded');
      }
    }
  }

  /**
   * Lets the registry hand this worker the jobs a transaction of this process just committed, claimed for it
   * at insert (`JobRegistry.runSoon`, e.g. an invoke block's call): each runs at once, without waiting for a
   * notification or a claim. Returns the worker.
   */
  runJobsAtCommit(): this {
    this.registry.runJobsWith({
      workerId: this.id,
      leaseMs: (kind) => this.registry.leases()[kind] ?? this.leaseMs,
      run: (jobs) => this.runClaimed(jobs),
      release: (jobs) => this.release([...jobs]),
      room: () => (this.stopping ? 0 : Math.max(0, this.concurrency - this.running.size)),
    });
    return this;
  }

  /**
   * Runs jobs claimed for this worker at insert, like the loop's (stop() waits for them); resolves when they
   * have finished. A stopping worker gives them back to the loops instead: nothing is lost. Never throws.
   */
  async runClaimed(jobs: readonly ClaimedJob[]): Promise<void> {
    await runInBackground(async () => {
      if (this.stopping) return this.release([...jobs]);
      await Promise.all(jobs.map((job) => this.launch(job)));
    });
  }
}
