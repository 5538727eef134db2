// The server an example of the README runs against in a test: the app on a test database with the sandbox and
// local webhook targets on, a job worker beside it as in `npm start` (on the test's clock, looking for due jobs
// every 5 ms instead of every second), a local webhook receiver whose log lines are kept, and a data directory
// for the demo account's key.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startReceiver, type WebhookReceiver } from '../../examples/webhook-receiver.js';
import { createJobRegistry } from '../../server/jobs/handlers.js';
import { JobWorker } from '../../server/jobs/worker.js';
import type { Engine } from '../../server/store/database.js';
import { startTestApp, type TestApp } from './harness.js';

export interface ExampleServer {
  t: TestApp;
  worker: JobWorker;
  receiver: WebhookReceiver;
  /** What the receiver logged, one line each. */
  lines: string[];
  dataDir: string;
}

/**
 * Starts it before the file's tests and stops it after; its fields are set once `beforeAll` ran. `random`: the
 * worker's source for retry waits (server/retries.ts); default Math.random, as in `npm start`.
 */
export function exampleServer(
  engine: Engine,
  adminToken: string,
  name: string,
  options: { random?: () => number } = {},
): ExampleServer {
  const x = { lines: [] as string[], dataDir: mkdtempSync(join(tmpdir(), `ep-${name}-`)) } as ExampleServer;
  beforeAll(async () => {
    x.t = await startTestApp(engine, {
      env: {
        ADMIN_TOKEN: adminToken,
        SANDBOX_ENABLED: 'true',
        WEBHOOK_DEV_TARGETS: 'true',
        INVOKE_DEV_TARGETS: 'true',
        DATA_DIR: x.dataDir,
      },
    });
    x.worker = new JobWorker({
      db: x.t.database.db,
      clock: x.t.clock,
      registry: createJobRegistry({ config: x.t.config, baseUrl: x.t.baseUrl, ...x.t.services }),
      pollIntervalMs: 5,
      ...(options.random ? { random: options.random } : {}),
    });
    x.worker.start();
    x.receiver = await startReceiver({ secrets: [], log: (line) => x.lines.push(line) });
  });
  afterAll(async () => {
    await x.worker?.stop();
    await x.receiver?.close();
    await x.t?.close();
    rmSync(x.dataDir, { recursive: true, force: true });
  });
  return x;
}
