// Keeps the planner's statistics of growing tables fresh in a server process with workers (store/statistics.ts
// says why): every STATISTICS_CHECK_MS it reads the tables' sizes and analyzes those that grew, as background work
// (on PGlite, requests go first). While Meta's webhooks come in a burst (store/priority.ts `inBurst`), a check waits
// for the next tick, up to MAX_DEFERRED_CHECKS in a row: on PGlite an ANALYZE runs in the process, holding its one
// session and its event loop while it samples the tables, and every acknowledgment in flight waits behind it.
import type { Logger } from 'pino';
import type { Database } from '../store/database.js';
import { inBurst, runInBackground } from '../store/priority.js';
import { analyzeTables, growingTables } from '../store/statistics.js';

/** How often the tables' sizes are read: one statement, no row read. */
export const STATISTICS_CHECK_MS = 10_000;
/** Checks put off for a burst in a row, at most: a burst that lasts does not leave the planner's figures stale. */
export const MAX_DEFERRED_CHECKS = 6;

/** Checks now, then every `everyMs`; `stop()` ends the checks once the one under way, if any, is over. */
export function keepStatistics(running: { database: Pick<Database, 'db'>; logger: Logger; everyMs?: number }): {
  stop(): Promise<void>;
} {
  const { database, logger } = running;
  let checking: Promise<void> | undefined;
  const check = async () => {
    const tables = await growingTables(database.db);
    await analyzeTables(database.db, tables);
    if (tables.length > 0) logger.debug({ tables }, 'planner statistics refreshed');
  };
  let deferred = 0;
  const tick = () => {
    if (inBurst() && deferred < MAX_DEFERRED_CHECKS) {
      deferred += 1;
      return;
    }
    deferred = 0;
    checking ??= runInBackground(check)
      .catch((error: unknown) => logger.warn({ err: error }, 'planner statistics refresh failed'))
      .finally(() => (checking = undefined));
  };
  const timer = setInterval(tick, running.everyMs ?? STATISTICS_CHECK_MS).unref();
  // At once too: a database that earlier processes left unanalyzed (every PGlite directory before this check).
  tick();
  return {
    async stop() {
      clearInterval(timer);
      await checking;
    },
  };
}
