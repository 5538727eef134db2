// The background job workers of a server process: the webhook deliveries, the automations' jobs and the hourly
// retention, sharing the services of the API beside them.
import type { Logger } from 'pino';
import type { Clock, OffsetClock } from '../clock.js';
import type { Config } from '../config.js';
import { ensurePruneJob } from '../domain/webhooks/delivery.js';
import { recoverFromDeadProcess } from '../domain/webhooks/slots.js';
import { createJobRegistry } from '../jobs/handlers.js';
import type { LateJobsAtCommit } from '../jobs/registry.js';
import type { JobRegistry } from '../jobs/registry.js';
import { JobWorker, wakeOnJobsReady } from '../jobs/worker.js';
import { DELIVER_JOB } from '../job-kinds.js';
import { keepStatistics } from './statistics.js';
import type { Services } from '../services.js';
import type { Database } from '../store/database.js';

/** What the drain stops: a worker stops claiming, lets its current job end and releases its leases. */
export interface Worker {
  stop(): Promise<void>;
}

/**
 * The background workers of this process. Each `stop()` stops claiming work, lets the current job end and
 * releases its leases. WORKERS=false leaves the jobs to other processes on the same database. An idle worker
 * claims when a transaction (of any process on the database) commits a job due now, and polls every
 * WORKER_POLL_MS in case a notification was missed.
 */
export async function startWorkers(running: {
  config: Config;
  database: Database;
  clock: OffsetClock;
  logger: Logger;
  services: Services;
  baseUrl: string;
  /** The API's handle on this worker (a channel webhook's payload runs here at once after its commit). */
  jobsAtCommit?: LateJobsAtCommit;
}): Promise<Worker[]> {
  const { config, database, clock, logger, services, baseUrl, jobsAtCommit } = running;
  if (!config.workers) return [];
  // Webhook deliveries: the URL rules and channel of the services, the in-flight limit and pacing of config;
  // message events carry attachment URLs on this base.
  const registry = createJobRegistry({
    config,
    baseUrl,
    provider: services.provider,
    spreadsheets: services.spreadsheets,
    webhookTargets: services.webhookTargets,
    invokeTargets: services.invokeTargets,
    fieldPaths: services.fieldPaths,
    storage: services.storage,
    channelKeys: services.channelKeys,
    whatsAppCloudAccount: services.whatsAppCloudAccount,
  });
  const workers = createJobWorkers({ config, database, clock, logger, registry });
  jobsAtCommit?.attach(registry);
  // Embedded: this process owns the data directory, so what a previous process held when it died (a kill -9)
  // is freed now rather than when its leases run out. On PostgreSQL other processes may hold claims: the worker
  // frees, as it starts, those of the processes of this host that are gone, and at each heartbeat those of any
  // worker whose heartbeat stopped (server/jobs/liveness.ts).
  if (database.engine === 'pglite') {
    const freed = await recoverFromDeadProcess(database.db);
    if (freed.jobs + freed.slots > 0) logger.warn(freed, 'jobs and webhook slots left by a stopped process freed');
  }
  // The hourly retention job of webhook deliveries (one waiting at a time, whatever the number of processes).
  await ensurePruneJob(database.db, clock);
  for (const worker of workers) worker.start();
  // The planner's statistics of the tables that grow (PGlite has no autovacuum; PostgreSQL's comes late in a burst).
  return [...workers, keepStatistics({ database, logger })];
}

/**
 * The two job workers of a process, not started: the automations' jobs and the other background work in
 * WORKER_CONCURRENCY slots, webhook attempts in WEBHOOK_DELIVERY_CONCURRENCY slots of their own. An attempt waits
 * on its receiver (150 ms, up to 10 s) and holds no database connection meanwhile: sharing slots, slow receivers
 * would cap the deliveries (32 / 0.15 s = 213/s) and hold back the automations. `concurrency` and
 * `deliveryConcurrency` override the settings (benches).
 */
export function createJobWorkers(running: {
  config: Pick<Config, 'workerConcurrency' | 'webhookDeliveryConcurrency' | 'workerPollMs'>;
  database: Pick<Database, 'db' | 'listen'>;
  clock: Clock;
  logger: Logger;
  registry: JobRegistry;
  concurrency?: number;
  deliveryConcurrency?: number;
}): [JobWorker, JobWorker] {
  const { config, database, clock, logger, registry } = running;
  const shared = { db: database.db, clock, registry, logger, pollIntervalMs: config.workerPollMs };
  const jobs = new JobWorker({
    ...shared,
    concurrency: running.concurrency ?? config.workerConcurrency,
    kinds: registry.kinds().filter((kind) => kind !== DELIVER_JOB),
    wakeOn: wakeOnJobsReady(database),
  });
  const deliveries = new JobWorker({
    ...shared,
    concurrency: running.deliveryConcurrency ?? config.webhookDeliveryConcurrency,
    kinds: [DELIVER_JOB],
    wakeOn: wakeOnJobsReady(database),
  });
  // A job this process commits due now for itself (an invoke block's call, a channel webhook's payload and the
  // message it records) runs at once, without a round trip; none of them is a webhook attempt.
  jobs.runJobsAtCommit();
  return [jobs, deliveries];
}
