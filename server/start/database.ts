// The database a server process opens: PostgreSQL with DATABASE_URL, else the embedded one in DATA_DIR.
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { openDatabase, type Database } from '../store/database.js';
import { ensureDataDir } from './data-dir.js';

/** PostgreSQL with DATABASE_URL, else the embedded database in DATA_DIR (migrations run at open). */
export async function openServiceDatabase(config: Config, logger: Logger): Promise<Database> {
  if (config.databaseUrl)
    return openDatabase({
      engine: 'postgres',
      url: config.databaseUrl,
      poolSize: config.dbPoolSize,
      logger,
      statementTimeoutMs: config.dbStatementTimeoutMs,
      idleInTransactionTimeoutMs: config.dbIdleInTransactionTimeoutMs,
      namedStatements: config.dbNamedStatements,
    });
  ensureDataDir(config.dataDir);
  return openDatabase({ engine: 'pglite', dataDir: resolve(config.dataDir, 'pglite') });
}
