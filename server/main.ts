// Process entry: config → database (+ migrations) → app → listen; graceful shutdown on SIGTERM/SIGINT. An
// unhandled rejection or uncaught exception is logged (with the request id when it came from serving one) and
// ends the process with the same drain and exit code 1: its state is no longer trusted, its supervisor starts
// a fresh one.
import cluster from 'node:cluster';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import type { Server } from 'node:http';
import type { Express } from 'express';
import ipaddr from 'ipaddr.js';
import type { Logger } from 'pino';
import { OffsetClock } from './clock.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { ensurePruneJob } from './domain/webhooks/delivery.js';
import { recoverFromDeadProcess } from './domain/webhooks/slots.js';
import { adminHandlers } from './http/admin.js';
import { createApp } from './http/app.js';
import { answerClusterMetrics } from './http/cluster-metrics.js';
import { endEventStreams } from './http/event-stream.js';
import { endReceiverStreams } from './http/console-receiver.js';
import { rateLimiterFor, type RateLimiter } from './http/rate-limit.js';
import { handlers, replayers } from './http/routes/index.js';
import { currentRequestId, expireAll } from './request-context.js';
import { createJobRegistry } from './jobs/handlers.js';
import { JobWorker, wakeOnJobsReady } from './jobs/worker.js';
import { createLogger, prettyLogs } from './logger.js';
import { createServices, type Services } from './services.js';
import { DatabaseOpenError, openDatabase, type Database } from './store/database.js';

/** Server processes of a cluster that may end in a row before serving, before the cluster gives up. */
const MAX_FAILED_STARTS = 5;

/** After SIGTERM, requests in flight get this long to finish before their connections are closed. */
const SHUTDOWN_DEADLINE_MS = 10_000;

function adminToken(config: Config): string {
  if (config.adminToken) return config.adminToken;
  const file = join(config.dataDir, 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = randomBytes(32).toString('base64url');
  ensureDataDir(config.dataDir); // with DATABASE_URL, DATA_DIR may not exist yet
  writeFileSync(file, token + '\n', { mode: 0o600 });
  return token;
}

/** DATA_DIR made if need be; one that cannot be a directory (a file is there, no permission) is named, exit 2. */
function ensureDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : 'unknown';
    const why =
      code === 'EEXIST' || code === 'ENOTDIR'
        ? 'a file is in the way, not a directory'
        : code === 'EACCES' || code === 'EPERM'
          ? 'no permission to create it'
          : String(error);
    throw new DatabaseOpenError(
      `DATA_DIR ${resolve(dataDir)} cannot be used as the data directory: ${why} (${code}). ` +
        'Move the file aside, or set DATA_DIR to a directory this process may write.',
    );
  }
}

/**
 * The development conveniences that are on: each lets whoever reaches the server act beyond an API key's
 * reach (the sandbox acts as contacts and channels, dev targets let webhooks reach this machine's network).
 */
export function devConveniences(config: Config): string[] {
  return [
    ...(config.sandboxEnabled ? ['SANDBOX_ENABLED'] : []),
    ...(config.webhookDevTargets ? ['WEBHOOK_DEV_TARGETS'] : []),
    ...(config.invokeDevTargets ? ['INVOKE_DEV_TARGETS'] : []),
  ];
}

/** The banner's one-line warning when a development convenience is on and others can reach the server. */
function exposureWarning(config: Config): string[] {
  const on = devConveniences(config);
  if (on.length === 0 || isLoopback(config.host)) return [];
  return [
    `  WARNING: listening on ${config.host}, not loopback, with development conveniences on (${on.join(', ')}): ` +
      `set ${on.map((name) => `${name}=false`).join(' ')} or HOST=127.0.0.1`,
  ];
}

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (!isIP(host)) return false;
  const address = ipaddr.process(host);
  return address.range() === 'loopback';
}

/** Where the demo key is kept: one file per database, so switching engines never prints a foreign key. */
function demoKeyFile(config: Config): string {
  if (!config.databaseUrl) return join(config.dataDir, 'demo-api-key');
  const url = new URL(config.databaseUrl);
  const id = createHash('sha256').update(`${url.host}${url.pathname}`).digest('hex').slice(0, 12);
  return join(config.dataDir, `demo-api-key.postgres-${id}`);
}

/** What `npm start` prints: where it listens, and outside production the demo account (created if need be). */
async function banner(config: Config, database: Database, clock: OffsetClock, baseUrl: string): Promise<string[]> {
  const lines = [
    `Engagement Platform API listening on ${baseUrl} (${database.engine === 'pglite' ? `embedded database in ${resolve(config.dataDir)}` : 'PostgreSQL'})`,
    // /docs is a development aid, on with the sandbox (server/http/description.ts); the description is always served.
    config.sandboxEnabled
      ? `  reference: ${baseUrl}/docs (build it with npm run docs); description: ${baseUrl}/openapi.json`
      : `  reference: npm run docs, then open docs/index.html; description: ${baseUrl}/openapi.json`,
  ];
  if (config.webConcurrency > 1) lines.push(`  ${config.webConcurrency} API processes (WEB_CONCURRENCY)`);
  lines.push(...exposureWarning(config));
  // A demo account outside production, on either engine: `npm start` and `DATABASE_URL=… npm start` both
  // print a working key. Imported here: its fake names come from a development dependency, absent in production.
  if (config.env !== 'production') {
    const { ensureDemoAccount } = await import('./console/demo.js');
    const demo = await ensureDemoAccount(database.db, clock, config.dataDir, demoKeyFile(config));
    lines.push(
      `  demo account ${demo.accountId}${demo.created ? ' (created now)' : ''}`,
      `  demo API key (every scope): ${demo.apiKey}`,
      `  try: curl -H 'Authorization: Bearer ${demo.apiKey}' ${baseUrl}/v1/me`,
      `  admin token: ${config.adminToken ? 'ADMIN_TOKEN' : join(resolve(config.dataDir), 'admin-token')}`,
      `  sandbox: ${config.sandboxEnabled ? `on (act as contacts and channels: ${baseUrl}/admin/v1/sandbox/…)` : 'off (SANDBOX_ENABLED)'}`,
      // The token rides in the fragment: a browser never sends it to a server, so it reaches no request log.
      `  console: ${config.sandboxEnabled ? `${baseUrl}/console#token=${encodeURIComponent(adminToken(config))}&account=${demo.accountId}` : 'off (SANDBOX_ENABLED)'}`,
      `  webhook receivers: ${config.webhookDevTargets ? 'http and loopback allowed (WEBHOOK_DEV_TARGETS)' : 'https, port 443, public addresses only'}`,
    );
  }
  return lines;
}

/**
 * WEB_CONCURRENCY > 1 (PostgreSQL only): this primary process prepares the database once (migrations, the admin
 * token, the demo account), then runs that many server processes (node:cluster, which shares the port between
 * them). Each serves the API and runs job workers; they share the account limits, the jobs and the webhook slots
 * through PostgreSQL. A process that dies is replaced; SIGTERM or SIGINT stops them all, each draining as a
 * single server does, and the primary exits 0 when every one did. The primary sums their metrics for /metrics.
 */
async function runCluster(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel, undefined, {
    pretty: prettyLogs(config.logFormat, config.env, process.stdout.isTTY),
  });
  adminToken(config); // generated once here, read by every process
  const clock = new OffsetClock();
  // WEB_CONCURRENCY > 1 requires DATABASE_URL (config.ts): a cluster runs on PostgreSQL only.
  const database = await openDatabase({ engine: 'postgres', url: config.databaseUrl!, poolSize: 1, logger });
  let printed = false;
  let stopping = false;
  let failed = false;
  let exitWith: number | undefined;
  // Processes that ended before serving, in a row: past MAX_FAILED_STARTS the cluster gives up (exit 1) rather
  // than start one a second for ever; its supervisor sees the failure.
  let failedStarts = 0;
  const serving = new Set<number>();
  cluster.on('listening', (worker, address) => {
    serving.add(worker.id);
    failedStarts = 0;
    // One line per process that serves: the banner comes with the first, the others may still be starting.
    logger.info({ worker_pid: worker.process.pid, serving: serving.size }, 'a server process is listening');
    if (printed) return;
    printed = true;
    const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
    const baseUrl = config.publicBaseUrl ?? `http://${host}:${address.port}`;
    void banner(config, database, clock, baseUrl)
      .then((lines) => console.log(lines.join('\n')))
      .finally(() => void database.close());
  });
  cluster.on('exit', (worker, code, signal) => {
    if (code !== 0) failed = true;
    // Exit 2 before serving is a setting or the environment (PORT in use…): another try would end the same way.
    if (code === 2 && !serving.has(worker.id) && !stopping) {
      stop('a server process could not start');
      exitWith = 2;
      // One still starting has no drain to hear the request yet: it is ended once the drain time is over.
      const kill = () => Object.values(cluster.workers ?? {}).forEach((other) => other?.kill('SIGKILL'));
      setTimeout(kill, SHUTDOWN_DEADLINE_MS + 5000).unref();
    }
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitWith ?? (failed ? 1 : 0));
      return;
    }
    // A process ended on its own (an unhandled error, a kill): another takes its place, a second later so
    // a process that cannot start does not spin, and not past MAX_FAILED_STARTS that never served.
    if (!serving.delete(worker.id) && ++failedStarts >= MAX_FAILED_STARTS) {
      logger.fatal({ failed_starts: failedStarts }, 'server processes keep ending before they serve: giving up');
      failed = true;
      stop('failed starts');
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(1);
      return;
    }
    logger.error({ worker_pid: worker.process.pid, code, signal }, 'a server process ended: starting another');
    setTimeout(() => cluster.fork(), 1000);
  });
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping the server processes');
    // A message, not a signal: Ctrl-C also reaches them as SIGINT, and a second signal means "do not wait".
    for (const worker of Object.values(cluster.workers ?? {})) worker?.send('shutdown');
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // GET /metrics, whichever process takes it, answers the sum of every server process's counters.
  answerClusterMetrics();
  for (let i = 0; i < config.webConcurrency; i++) cluster.fork();
}

/** What drains the process: set once the server and workers run; until then a fatal error exits at once. */
interface Lifecycle {
  drain?: (reason: string) => Promise<void>;
  stopping: boolean;
  exitCode: number;
}

/**
 * An unhandled rejection or uncaught exception is logged (with the request id when it came from serving one)
 * and ends the process with exit code 1, through the drain once there is one.
 */
function exitOnFatalErrors(logger: Logger, lifecycle: Lifecycle): void {
  const fatal = (kind: 'unhandled rejection' | 'uncaught exception', error: unknown) => {
    const requestId = currentRequestId();
    logger.fatal({ err: error, ...(requestId ? { request_id: requestId } : {}) }, `${kind}: exiting`);
    lifecycle.exitCode = 1;
    if (!lifecycle.drain) process.exit(1); // nothing to drain yet
    if (!lifecycle.stopping) void lifecycle.drain(kind);
  };
  process.on('unhandledRejection', (reason) => fatal('unhandled rejection', reason));
  process.on('uncaughtException', (error) => fatal('uncaught exception', error));
}

/** PostgreSQL with DATABASE_URL, else the embedded database in DATA_DIR (migrations run at open). */
async function openServiceDatabase(config: Config, logger: Logger): Promise<Database> {
  if (config.databaseUrl)
    return openDatabase({
      engine: 'postgres',
      url: config.databaseUrl,
      poolSize: config.dbPoolSize,
      logger,
      statementTimeoutMs: config.dbStatementTimeoutMs,
      idleInTransactionTimeoutMs: config.dbIdleInTransactionTimeoutMs,
    });
  ensureDataDir(config.dataDir);
  return openDatabase({ engine: 'pglite', dataDir: resolve(config.dataDir, 'pglite') });
}

/**
 * Listens on HOST:PORT; the base URL is PUBLIC_BASE_URL, else the address it listens on. A port in use or an
 * address it cannot bind is a ConfigError naming the setting (exit 2), never a server listening on nothing.
 */
async function listen(app: Express, config: Config): Promise<{ server: Server; baseUrl: string }> {
  const server: Server = await new Promise((ok, fail) => {
    const s = app.listen(config.port, config.host, (error?: Error) =>
      error ? fail(listenError(error, config)) : ok(s),
    );
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const baseUrl = config.publicBaseUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
  return { server, baseUrl };
}

function listenError(error: Error, config: Config): ConfigError {
  const code = 'code' in error ? String(error.code) : '';
  const where = `${config.host}:${config.port}`;
  switch (code) {
    case 'EADDRINUSE':
      return new ConfigError(`PORT ${config.port} is in use (on ${config.host}): stop what listens there, or set PORT`);
    case 'EADDRNOTAVAIL':
      return new ConfigError(`HOST ${config.host} is not an address of this machine (EADDRNOTAVAIL): set HOST`);
    case 'EACCES':
      return new ConfigError(
        `PORT ${config.port}: no permission to listen on ${where} (EACCES): use a port above 1023`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConfigError(`HOST ${config.host} does not resolve to an address (${code}): set HOST`);
    default:
      return new ConfigError(`cannot listen on ${where} (HOST, PORT): ${error.message}`);
  }
}

/**
 * The background workers of this process. Each `stop()` stops claiming work, lets the current job end and
 * releases its leases. WORKERS=false leaves the jobs to other processes on the same database. An idle worker
 * claims when a transaction (of any process on the database) commits a job due now, and polls every
 * WORKER_POLL_MS in case a notification was missed.
 */
async function startWorkers(running: {
  config: Config;
  database: Database;
  clock: OffsetClock;
  logger: Logger;
  services: Services;
  baseUrl: string;
}): Promise<{ stop(): Promise<void> }[]> {
  const { config, database, clock, logger, services, baseUrl } = running;
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
  });
  const jobs = new JobWorker({
    db: database.db,
    clock,
    registry,
    logger,
    concurrency: config.workerConcurrency,
    pollIntervalMs: config.workerPollMs,
    wakeOn: wakeOnJobsReady(database),
  });
  // A job this process commits due now for itself (an invoke block's call) runs at once, without a round trip.
  jobs.runJobsAtCommit();
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
  jobs.start();
  return [jobs];
}

/**
 * The drain: the requests in flight get SHUTDOWN_DEADLINE_MS to finish and the workers stop, then the
 * database closes and the process exits with `lifecycle.exitCode`.
 */
function drainer(
  lifecycle: Lifecycle,
  running: { server: Server; workers: { stop(): Promise<void> }[]; rateLimiter: RateLimiter; database: Database },
  logger: Logger,
): (reason: string) => Promise<void> {
  const { server, workers, rateLimiter, database } = running;
  return async (reason) => {
    lifecycle.stopping = true;
    logger.info({ reason, deadline_ms: SHUTDOWN_DEADLINE_MS }, 'shutting down: finishing the requests in flight');
    // Past the deadline, the connections still open are cut; past a second one, the process gives up.
    const cut = setTimeout(() => {
      // The requests still running are expired too: their statements are cancelled and refused, their
      // transactions roll back, and their connections go back to the pool, so the database closes.
      const expired = expireAll();
      logger.warn({ requests: expired }, 'shutdown deadline reached: stopping the requests and connections still open');
      server.closeAllConnections();
    }, SHUTDOWN_DEADLINE_MS);
    const giveUp = setTimeout(() => {
      logger.error('shutdown did not finish: exiting');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS + 5000);
    // The admin event streams never end on their own: ended now, their clients reconnect to another process.
    endEventStreams();
    endReceiverStreams();
    // A keep-alive connection becomes idle once its request is answered: close it then, not at its timeout.
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    try {
      await Promise.all([
        new Promise<void>((ok) => server.close(() => ok())),
        ...workers.map((worker) => worker.stop()),
      ]);
      clearInterval(idle);
      clearTimeout(cut);
      await rateLimiter.close?.();
      await database.close();
      clearTimeout(giveUp);
      logger.info({ exit_code: lifecycle.exitCode }, 'stopped');
      process.exit(lifecycle.exitCode);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
}

/** SIGTERM, SIGINT and (in a cluster) the primary's `shutdown` message drain; a second signal exits at once. */
function drainOnSignals(lifecycle: Lifecycle, logger: Logger): void {
  const stop = (signal: string) => {
    if (lifecycle.stopping) {
      // A second Ctrl-C: the operator does not want to wait.
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    void lifecycle.drain?.(signal);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // In a cluster, the primary asks each process to stop (runCluster).
  process.on('message', (message) => {
    if (message === 'shutdown' && !lifecycle.stopping) void lifecycle.drain?.('shutdown');
  });
}

/** The app on HOST:PORT. On failure the caller closes the database: nothing else was started yet. */
async function serve(config: Config, database: Database, clock: OffsetClock, logger: Logger, rateLimiter: RateLimiter) {
  // The admin API authenticates with this token (ADMIN_TOKEN, or the one generated in DATA_DIR/admin-token).
  const token = adminToken(config);
  // The services the API and the job workers share: built here, once.
  const services = createServices(config);
  const app = createApp(
    { config: { ...config, adminToken: token }, database, clock, logger, rateLimiter, ...services },
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
  const { server, baseUrl, services } = await serve(config, database, clock, logger, rateLimiter).catch(
    async (error: unknown) => {
      // Not serving (PORT in use…): the database closes first, so the lock of DATA_DIR is released.
      await rateLimiter.close?.();
      await database.close();
      throw error;
    },
  );

  // In a cluster the primary prints the banner (runCluster); a worker process says nothing more.
  if (cluster.isPrimary) console.log((await banner(config, database, clock, baseUrl)).join('\n'));

  const workers = await startWorkers({ config, database, clock, logger, services, baseUrl });
  lifecycle.drain = drainer(lifecycle, { server, workers, rateLimiter, database }, logger);
  drainOnSignals(lifecycle, logger);
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
