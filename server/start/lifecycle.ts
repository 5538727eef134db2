// The life of a single server process once it serves: the drain (requests in flight finish, the workers stop,
// the database closes, the exit code), what starts it (SIGTERM, SIGINT, the cluster primary's `shutdown`
// message, a fatal error) and a second signal that exits at once.
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { endEventStreams } from '../http/event-stream.js';
import { endReceiverStreams } from '../http/console-receiver.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { currentRequestId, expireAll } from '../request-context.js';
import type { Database } from '../store/database.js';
import type { Worker } from './workers.js';

/** After SIGTERM, requests in flight get this long to finish before their connections are closed. */
export const SHUTDOWN_DEADLINE_MS = 10_000;

/** What drains the process: set once the server and workers run; until then a fatal error exits at once. */
export interface Lifecycle {
  drain?: (reason: string) => Promise<void>;
  stopping: boolean;
  exitCode: number;
}

/**
 * An unhandled rejection or uncaught exception is logged (with the request id when it came from serving one)
 * and ends the process with exit code 1, through the drain once there is one.
 */
export function exitOnFatalErrors(logger: Logger, lifecycle: Lifecycle): void {
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

/**
 * The drain: the requests in flight get SHUTDOWN_DEADLINE_MS to finish and the workers stop, then the
 * database closes and the process exits with `lifecycle.exitCode`.
 */
export function drainer(
  lifecycle: Lifecycle,
  running: { server: Server; workers: Worker[]; rateLimiter: RateLimiter; database: Database },
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
export function drainOnSignals(lifecycle: Lifecycle, logger: Logger): void {
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
  // In a cluster, the primary asks each process to stop (server/start/cluster.ts).
  process.on('message', (message) => {
    if (message === 'shutdown' && !lifecycle.stopping) void lifecycle.drain?.('shutdown');
  });
}
