// WEB_CONCURRENCY > 1: the primary process of a cluster of server processes (node:cluster), which prepares the
// database once, prints the banner, replaces a process that dies, gives up on processes that cannot start, and
// stops them all on SIGTERM or SIGINT.
import cluster from 'node:cluster';
import { OffsetClock } from '../clock.js';
import { ConfigError, type Config } from '../config.js';
import { answerClusterMetrics } from '../http/cluster-metrics.js';
import { createLogger, prettyLogs } from '../logger.js';
import { openDatabase } from '../store/database.js';
import { banner } from './banner.js';
import { adminToken, channelKeyring } from './data-dir.js';
import { SHUTDOWN_DEADLINE_MS } from './lifecycle.js';

/** Server processes of a cluster that may end in a row before serving, before the cluster gives up. */
const MAX_FAILED_STARTS = 5;

/**
 * WEB_CONCURRENCY > 1 (PostgreSQL only): this primary process prepares the database once (migrations, the admin
 * token, the demo account), then runs that many server processes (node:cluster, which shares the port between
 * them). Each serves the API and runs job workers; they share the account limits, the jobs and the webhook slots
 * through PostgreSQL. A process that dies is replaced; SIGTERM or SIGINT stops them all, each draining as a
 * single server does, and the primary exits 0 when every one did. The primary sums their metrics for /metrics.
 */
export async function runCluster(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel, undefined, {
    pretty: prettyLogs(config.logFormat, config.env, process.stdout.isTTY),
  });
  // config.ts refuses WEB_CONCURRENCY > 1 without DATABASE_URL: a cluster runs on PostgreSQL only.
  if (!config.databaseUrl) throw new ConfigError('WEB_CONCURRENCY: above 1 needs DATABASE_URL');
  adminToken(config); // generated once here, read by every process
  channelKeyring(config); // likewise the channel credentials key, when CHANNEL_CREDENTIALS_KEY is unset
  const clock = new OffsetClock();
  const database = await openDatabase({ engine: 'postgres', url: config.databaseUrl, poolSize: 1, logger });
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
