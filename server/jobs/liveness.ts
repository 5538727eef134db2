// Recovery in seconds after a crash (issue 23). A running worker registers itself and beats a heartbeat; what a
// worker that is gone held is freed, instead of waiting for its leases to run out:
//   - by every worker, at each beat: the claims of the workers silent for `silentAfterMs`;
//   - by a worker starting: also, at once, those of the workers registered from this host whose process no
//     longer exists (a kill -9 and a restart, a cluster replacing a process, a container restarted with the
//     same pid).
// Freeing a claim leaves its attempt counted and calls the kind's `abandoned` hook in the same transaction, so a
// webhook attempt cut short also gives back its endpoint slot. A worker that was taken for dead (its process
// stalled past the silence, e.g. a paused VM) finds its row gone at its next beat: it registers again, and its
// running jobs, whose claims may have been taken, can no longer complete (their claim checks fail).
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import {
  beatWorker,
  freeClaimsOfGoneWorkers,
  registerWorker,
  unregisterWorker,
  workersOnHost,
  type FreedJob,
  type WorkerIdentity,
} from '../store/job-workers.js';
import type { DB } from '../store/schema.js';
import type { JobRegistry } from './registry.js';

/** The workers registered by this process: another row with this process's pid is a previous process's. */
const workersOfThisProcess = new Set<string>();

export class WorkerLiveness {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly identity: WorkerIdentity,
    private readonly registry: JobRegistry,
    private readonly logger: Logger,
    private readonly silentAfterMs: number,
  ) {}

  /** Registers this worker, then frees what the gone workers of this host and the silent ones held. */
  async register(): Promise<void> {
    workersOfThisProcess.add(this.identity.id);
    await registerWorker(this.db, this.identity);
    const onHost = await workersOnHost(this.db, this.identity.host, this.identity.id);
    const gone = onHost.filter((worker) =>
      worker.pid === process.pid ? !workersOfThisProcess.has(worker.id) : !processExists(worker.pid),
    );
    await this.free(
      gone.map((worker) => worker.id),
      0,
      'process gone',
    );
    await this.free('silent', this.silentAfterMs, 'heartbeat stopped');
  }

  /** One beat: this worker's heartbeat, then the claims of the silent workers freed. */
  async beat(): Promise<void> {
    if (!(await beatWorker(this.db, this.identity.id))) {
      this.logger.error(
        { worker: this.identity.id },
        'this worker was taken for dead (no heartbeat for too long) and its claims freed: registering again',
      );
      await registerWorker(this.db, this.identity);
    }
    await this.free('silent', this.silentAfterMs, 'heartbeat stopped');
  }

  async unregister(): Promise<void> {
    workersOfThisProcess.delete(this.identity.id);
    await unregisterWorker(this.db, this.identity.id);
  }

  private async free(ids: readonly string[] | 'silent', silentForMs: number, why: string): Promise<void> {
    const freed = await this.db.transaction().execute(async (trx) => {
      const jobs = await freeClaimsOfGoneWorkers(trx, ids, silentForMs);
      for (const job of jobs) await this.registry.get(job.kind)?.abandoned?.(trx, job);
      return jobs;
    });
    if (freed.length > 0)
      this.logger.warn({ worker: this.identity.id, why, jobs: count(freed) }, 'claims of a gone worker freed');
  }
}

/** Whether a process of this host has `pid` (one owned by another user counts). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return !(error instanceof Error && 'code' in error && error.code === 'ESRCH');
  }
}

function count(jobs: readonly FreedJob[]): Record<string, number> {
  const byKind: Record<string, number> = {};
  for (const job of jobs) byKind[job.kind] = (byKind[job.kind] ?? 0) + 1;
  return byKind;
}
