// A worker process for test/server/webhook-delivery.test.ts: runs the jobs of a PostgreSQL database with a
// ManualClock set to CHILD_NOW, until the test kills it (SIGKILL, mid-delivery). It beats its heartbeat every
// CHILD_HEARTBEAT_MS (default 2 s), as a server's worker does.
import { ManualClock } from '../../server/clock.js';
import { loadConfig } from '../../server/config.js';
import { createJobRegistry } from '../../server/jobs/handlers.js';
import { JobWorker } from '../../server/jobs/worker.js';
import { createServices } from '../../server/services.js';
import { openDatabase } from '../../server/store/database.js';

// The service's settings, as main.ts reads them, with what the test needs.
const config = loadConfig({ WEBHOOK_DEV_TARGETS: 'true', WEBHOOK_PACE_PER_MINUTE: '0' });
const database = await openDatabase({ engine: 'postgres', url: process.env.CHILD_DATABASE_URL!, poolSize: 6 });
const worker = new JobWorker({
  db: database.db,
  clock: new ManualClock(process.env.CHILD_NOW!),
  registry: createJobRegistry({
    config,
    ...createServices(config),
    baseUrl: 'http://127.0.0.1',
    webhookTimeoutMs: 120_000,
  }),
  concurrency: 5,
  pollIntervalMs: 20,
  leaseMs: 60_000,
  heartbeatMs: Number(process.env.CHILD_HEARTBEAT_MS ?? 2000),
});
worker.start();
process.stdout.write('worker started\n');
