// Keeps the planner's statistics of growing tables fresh in a server process with workers (store/statistics.ts
// says why): every STATISTICS_CHECK_MS it reads the tables' sizes and analyzes those that grew, as background work
// (on PGlite, requests go first).
import type { Logger } from 'pino';
import type { Database } from '../store/database.js';
import { runInBackground } from '../store/priority.js';
import { analyzeTables, growingTables } from '../store/statistics.js';

/** How often the tables' sizes are read: one statement, no row read. */
export const STATISTICS_CHECK_MS = 10_000;

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
  const tick = () => {
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
