// The process entry, as the start-up story: the settings; with WEB_CONCURRENCY > 1 the cluster's primary
// (start/cluster.ts), which runs this same file in each server process; else, in a server process: the database
// (migrations run at open), the app on HOST:PORT, the banner, the job workers, and the drain on SIGTERM/SIGINT
// (start/lifecycle.ts). An unhandled rejection or uncaught exception is logged (with the request id when it came
// from serving one) and ends the process with the same drain and exit code 1: its state is no longer trusted,
// its supervisor starts a fresh one. Here the app is assembled: with start/, the only importer of http/.
import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { OffsetClock } from './clock.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { adminHandlers } from './http/admin.js';
import { createApp } from './http/app.js';
import { rateLimiterFor, type RateLimiter } from './http/rate-limit.js';
import { handlers, replayers } from './http/routes/index.js';
import { LateJobsAtCommit } from './jobs/registry.js';
import { createLogger, prettyLogs } from './logger.js';
import { createServices } from './services.js';
import { banner } from './start/banner.js';
import { runCluster } from './start/cluster.js';
import { adminToken, channelKeyring } from './start/data-dir.js';
import { openServiceDatabase } from './start/database.js';
import { drainer, drainOnSignals, exitOnFatalErrors, type Lifecycle } from './start/lifecycle.js';
import { listen } from './start/listen.js';
import { startWorkers } from './start/workers.js';
import { DatabaseOpenError, type Database } from './store/database.js';

/** The app on HOST:PORT. On failure the caller closes the database: nothing else was started yet. */
async function serve(
  config: Config,
  database: Database,
  clock: OffsetClock,
  logger: Logger,
  rateLimiter: RateLimiter,
  jobsAtCommit: LateJobsAtCommit,
) {
  // The admin API authenticates with this token (ADMIN_TOKEN, or the one generated in DATA_DIR/admin-token).
  const token = adminToken(config);
  // The services the API and the job workers share: built here, once, with the keyring channel tokens are
  // sealed with (CHANNEL_CREDENTIALS_KEY, or the one generated in DATA_DIR/channel-credentials-key).
  const services = createServices(config, { channelKeys: channelKeyring(config) }, { db: database.db, logger });
  const app = createApp(
    { config: { ...config, adminToken: token }, database, clock, logger, rateLimiter, jobsAtCommit, ...services },
    { handlers, replayers, adminHandlers },
  );
  return { services, ...(await listen(app, config)) };
}

async function main(): Promise<void> {
  const config = loadConfig();
  if (cluster.isPrimary && config.webConcurrency > 1) return runCluster(config);
  // The system time, moved on only by the sandbox's clock action (admin API) while the sandbox is on.
  const clock = new OffsetClock();
  const logger = createLogger(config.logLevel, undefined, {
    pretty: prettyLogs(config.logFormat, config.env, process.stdout.isTTY),
  });
  const lifecycle: Lifecycle = { stopping: false, exitCode: 0 };
  exitOnFatalErrors(logger, lifecycle);
  const database = await openServiceDatabase(config, logger);
  const rateLimiter = rateLimiterFor(database, logger);
  // The worker that runs at once the jobs the API commits for it (a channel webhook's payload): it starts below.
  const jobsAtCommit = new LateJobsAtCommit();
  const { server, baseUrl, services } = await serve(config, database, clock, logger, rateLimiter, jobsAtCommit).catch(
    async (error: unknown) => {
      // Not serving (PORT in use…): the database closes first, so the lock of DATA_DIR is released.
      await rateLimiter.close?.();
      await database.close();
      throw error;
    },
  );
  const workers = await startWorkers({ config, database, clock, logger, services, baseUrl, jobsAtCommit });
  lifecycle.drain = drainer(lifecycle, { server, workers, rateLimiter, database }, logger);
  drainOnSignals(lifecycle, logger);

  // The banner last: whoever reads it as "ready" may send SIGTERM at once, and from here on that drains (before,
  // Node's default ended the process). In a cluster the primary prints it (start/cluster.ts).
  if (cluster.isPrimary) console.log((await banner(config, database, clock, baseUrl)).join('\n'));
}

main().catch((error: unknown) => {
  // What the operator can fix (a setting, the database, the data directory): the message only, exit 2.
  if (error instanceof ConfigError || error instanceof DatabaseOpenError) {
    console.error(error.message);
    process.exit(2);
  }
  console.error(error);
  process.exit(1);
});
