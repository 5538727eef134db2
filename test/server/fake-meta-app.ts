// A test app whose Graph API is the fake on loopback (test/fakes/meta), as every WhatsApp Cloud test file starts it:
// the fake first (the server's GRAPH_API_BASE_URL is its address), the app with the Meta settings, the fake's
// webhooks pointed at the app, and a job worker the test drives (`runOnce`, or `start` for one running alone).
import { ADMIN_PREFIX } from '../../generated/operations.js';
import { createJobRegistry } from '../../server/jobs/handlers.js';
import type { JobRegistry } from '../../server/jobs/registry.js';
import { JobWorker } from '../../server/jobs/worker.js';
import type { JobsAtCommit } from '../../server/store/jobs.js';
import { startFakeMeta, type FakeMeta, type FakeNumber } from '../fakes/meta/index.js';
import type { Engine } from '../../server/store/database.js';
import { call, startTestApp, type TestApp } from './harness.js';

export interface FakeMetaApp {
  t: TestApp;
  meta: FakeMeta;
  worker: JobWorker;
  registry: JobRegistry;
  /** An admin API call with the app's admin token (`path` after /admin/v1). */
  admin(method: string, path: string, body?: unknown): Promise<Response>;
}

export async function startFakeMetaApp(
  engine: Engine,
  options: {
    adminToken: string;
    appSecret: string;
    /** More of the app's settings (META_VERIFY_TOKEN, DATA_DIR, SANDBOX_ENABLED, …). */
    env?: Record<string, string>;
    numbers?: FakeNumber[];
    jobsAtCommit?: JobsAtCommit;
  },
): Promise<FakeMetaApp> {
  const meta = await startFakeMeta({
    appSecret: options.appSecret,
    ...(options.numbers ? { numbers: options.numbers } : {}),
  });
  const t = await startTestApp(engine, {
    env: {
      ADMIN_TOKEN: options.adminToken,
      META_APP_SECRET: options.appSecret,
      GRAPH_API_BASE_URL: meta.url,
      // The fake answers both hosts: Instagram Login's calls reach it too.
      INSTAGRAM_GRAPH_BASE_URL: meta.url,
      // Instagram's attachment URLs (lookaside.fbsbx.com) are fetched from the fake's CDN.
      INSTAGRAM_CDN_BASE_URL: meta.url,
      ...options.env,
    },
    ...(options.jobsAtCommit ? { jobsAtCommit: options.jobsAtCommit } : {}),
  });
  meta.setWebhookUrl(`${t.baseUrl}/channels/whatsapp/webhook`);
  const registry = createJobRegistry({ config: t.config, baseUrl: t.baseUrl, ...t.services });
  const worker = new JobWorker({ db: t.database.db, clock: t.clock, registry, pollIntervalMs: 5 });
  const admin = (method: string, path: string, body?: unknown) =>
    call(t.baseUrl, options.adminToken, method, `${ADMIN_PREFIX}${path}`, body === undefined ? {} : { body });
  return { t, meta, worker, registry, admin };
}
