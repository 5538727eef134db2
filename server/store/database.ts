// The database handle: embedded PGlite (default, persisted in DATA_DIR) or PostgreSQL through `pg` with a
// pool (DATABASE_URL). One SQL dialect for both; forward-only migrations run at open. Both deliver NOTIFY to
// `listen` (PGlite: its own listeners; PostgreSQL: one connection outside the pool, reconnected when it drops).
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect, sql, type MigrationProvider, type PostgresPool } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { migrations } from './migrations/index.js';
import { requestContext } from '../request-context.js';
import { codeOf } from '../guards.js';
import { DeadlineDialect } from './deadline.js';
import { PGliteDialect } from './pglite-dialect.js';
import { BackgroundShare } from './priority.js';
import { NamingClient } from './named-statements.js';
import type { DB } from './schema.js';
import { INT8_OID, TIMESTAMPTZ_OID, parseTimestamptz } from './timestamps.js';

export type Engine = 'pglite' | 'postgres';

export interface Database {
  readonly db: Kysely<DB>;
  readonly engine: Engine;
  /**
   * Calls `onNotify` for each notification on `channel` (NOTIFY / pg_notify, delivered when the notifying
   * transaction commits, from any session on the database) until the returned function is called. On
   * PostgreSQL, a dropped listening connection is reopened with backoff and every listener is called once
   * when it is back (what was committed meanwhile went unheard), without a payload. `onNotify` receives the
   * notification's payload. Optional: a handle without it cannot wake.
   */
  listen?(channel: string, onNotify: (payload?: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export type DatabaseOptions =
  /**
   * `logger`: where the listening connection reports that it dropped and came back. `statementTimeoutMs` and
   * `idleInTransactionTimeoutMs`: PostgreSQL's `statement_timeout` and `idle_in_transaction_session_timeout` on
   * every pooled connection (0: none), so no statement and no forgotten transaction holds a connection for good.
   */
  | {
      engine: 'postgres';
      url: string;
      poolSize?: number;
      logger?: Logger;
      statementTimeoutMs?: number;
      idleInTransactionTimeoutMs?: number;
      /** Statements run as named (prepared) statements, planned once per connection (./named-statements.ts). Default true. */
      namedStatements?: boolean;
    }
  /** `dataDir` undefined: in memory. `template`: a `dumpDataDir()` tarball to start from (tests). */
  | { engine: 'pglite'; dataDir?: string; template?: Blob };

/** The database cannot be opened for a reason the operator fixes (where it is, what was tried, the way out). */
export class DatabaseOpenError extends Error {}

export class DataDirLockedError extends DatabaseOpenError {}

const intParser = (v: string) => {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : v;
};

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.engine === 'postgres') {
    await checkReachable(options.url);
    // Migrations first, on their own connection and without the timeouts: a migration may rightly run long.
    await migrateOn(new Kysely<DB>({ dialect: new PostgresDialect({ pool: postgresPool(options.url, 1) }) }));
    const pool = postgresPool(options.url, options.poolSize ?? 10, {
      statement_timeout: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
      idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? DEFAULT_IDLE_IN_TRANSACTION_MS,
    });
    // A pooled connection that fails while idle (its session ended by idle_in_transaction_session_timeout, a
    // restart) is dropped by the pool; without a listener its error would end the process.
    pool.on('error', (error) => options.logger?.warn({ err: error }, 'an idle database connection failed'));
    const canceller = new BackendCanceller(options.url, options.logger);
    const db = new Kysely<DB>({
      dialect: new DeadlineDialect(
        new PostgresDialect({ pool: sharedPool(pool, canceller, options.logger, options.namedStatements ?? true) }),
      ),
    });
    const listener = new PostgresListener(options.url, options.logger);
    return {
      db,
      engine: 'postgres',
      listen: (channel, onNotify) => listener.listen(channel, onNotify),
      close: async () => {
        await listener.close();
        await db.destroy();
      },
    };
  }

  const release = options.dataDir ? lockDataDir(options.dataDir) : () => {};
  try {
    const pglite = new PGlite({
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      ...(options.template ? { loadDataDir: options.template } : {}),
      parsers: { [TIMESTAMPTZ_OID]: parseTimestamptz, [INT8_OID]: intParser },
    });
    await opened(pglite, options.dataDir);
    const db = new Kysely<DB>({ dialect: new DeadlineDialect(new PGliteDialect(pglite)) });
    await migrate(db);
    return {
      db,
      engine: 'pglite',
      // LISTEN and UNLISTEN run in the driver's turn (db.connection()): on the one session, never inside
      // another caller's open transaction (whose rollback would undo them). PGlite hands each notification
      // to its listeners as the commit's result comes back.
      listen: async (channel, onNotify) => {
        const callback = (payload: string) => onNotify(payload);
        const unlisten = await db.connection().execute(() => pglite.listen(channel, callback));
        let done = false;
        return async () => {
          if (done || pglite.closed) return;
          done = true;
          await db.connection().execute(() => unlisten());
        };
      },
      close: async () => {
        await db.destroy();
        await pglite.close();
        release();
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * PGlite ready, or a DatabaseOpenError naming the directory and the way out: it cannot open a data directory
 * that is damaged (pg_control overwritten, base/ removed) or not one of its own.
 */
async function opened(pglite: PGlite, dataDir: string | undefined): Promise<void> {
  try {
    await pglite.waitReady;
    await pglite.exec(`set time zone 'UTC'`);
  } catch (error) {
    if (!dataDir) throw error;
    await pglite.close().catch(() => {});
    throw new DatabaseOpenError(
      `the embedded database in ${dataDir} cannot be opened (${error instanceof Error ? error.message : String(error)}): ` +
        `it is damaged or not a PGlite data directory. Move it aside (mv ${dataDir} ${dataDir}.damaged) and ` +
        'start again: a new embedded database is created, with a new demo account; the old data stays in the moved directory.',
    );
  }
}

/** How long the first connection to PostgreSQL may take before the start gives up. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * One connection to DATABASE_URL before anything else, so a server that is down, a wrong password or a missing
 * database is one line naming the setting, the host and port and what was tried (no password), not a stack.
 */
async function checkReachable(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    throw new DatabaseOpenError(unreachable(url, error));
  } finally {
    await client.end().catch(() => {});
  }
}

function unreachable(url: string, error: unknown): string {
  const parsed = new URL(url);
  const host = parsed.hostname || 'localhost';
  const port = parsed.port || '5432';
  const user = decodeURIComponent(parsed.username) || process.env.PGUSER || 'the current user';
  const database = decodeURIComponent(parsed.pathname.slice(1)) || user;
  const code = error instanceof Error && 'code' in error ? String(error.code) : '';
  const message = error instanceof Error ? error.message : String(error);
  const why =
    code === 'ECONNREFUSED'
      ? 'connection refused: is PostgreSQL running and listening on that host and port?'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'the host name does not resolve'
        : code === '28P01' || code === '28000'
          ? `the server refused user ${user} (${message})`
          : code === '3D000'
            ? `database ${database} does not exist: create it (createdb ${database}) or fix the name`
            : /timeout/i.test(message)
              ? `no answer within ${CONNECT_TIMEOUT_MS / 1000} s`
              : message;
  return (
    `cannot open the database of DATABASE_URL: tried PostgreSQL at ${host}:${port}, database ${database} as ` +
    `user ${user}: ${why}`
  );
}

/** Defaults of `statement_timeout` and `idle_in_transaction_session_timeout` (DB_STATEMENT_TIMEOUT_MS…). */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
export const DEFAULT_IDLE_IN_TRANSACTION_MS = 60_000;

function postgresPool(url: string, max: number, timeouts: Partial<pg.PoolConfig> = {}): pg.Pool {
  return new pg.Pool({
    connectionString: url,
    max,
    options: '-c TimeZone=UTC',
    ...Object.fromEntries(Object.entries(timeouts).filter(([, ms]) => ms !== 0)),
    types: {
      getTypeParser: (oid, format) => {
        if (oid === TIMESTAMPTZ_OID) return parseTimestamptz;
        if (oid === INT8_OID) return intParser;
        return pg.types.getTypeParser(oid, format);
      },
    },
  });
}

/**
 * Cancels the statement a backend runs (`pg_cancel_backend`), from a connection of its own: the pool may be
 * exhausted by the very requests being cancelled. The statement fails with 57014 and its transaction rolls back.
 */
class BackendCanceller {
  constructor(
    private readonly url: string,
    private readonly logger: Logger | undefined,
  ) {}

  /** `stillHeld`: whether the connection is still the request's (checked again just before the cancel). */
  cancel(pid: number, stillHeld: () => boolean): void {
    if (!stillHeld()) return;
    const client = new pg.Client({ connectionString: this.url, application_name: 'request-deadline' });
    client.on('error', () => {});
    client
      .connect()
      .then(() => (stillHeld() ? client.query('select pg_cancel_backend($1)', [pid]) : undefined))
      .catch((error: unknown) => this.logger?.warn({ err: error, pid }, 'cancelling a statement failed'))
      .finally(() => void client.end().catch(() => {}));
  }
}

async function backendIdOf(client: pg.PoolClient): Promise<number> {
  const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
  const [row] = rows;
  if (!row) throw new Error('pg_backend_pid() returned no row');
  return row.pid;
}

/**
 * The pool as Kysely sees it: background work (job workers of this process, ./priority.ts) holds at most half
 * of its connections at once, so the API's requests always find the other half. A connection a request holds
 * is registered with it, so the request's deadline cancels the statement it runs (../request-context.ts).
 */
function sharedPool(
  pool: pg.Pool,
  canceller: BackendCanceller,
  logger: Logger | undefined,
  namedStatements: boolean,
): PostgresPool {
  const share = new BackgroundShare(Math.max(1, Math.floor(pool.options.max / 2)));
  const backendIds = new WeakMap<pg.PoolClient, number>();
  return {
    async connect() {
      const free = await share.take();
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        free();
        throw error;
      }
      // A checked-out connection has no listener of the pool's: its session ended by the server
      // (idle_in_transaction_session_timeout, a restart) must not end the process. Its next query fails.
      const onError = (error: Error) => logger?.warn({ err: error }, 'a database connection in use failed');
      client.on('error', onError);
      const context = requestContext.getStore();
      let cancel: (() => void) | undefined;
      // The pool sets `release` afresh at every checkout: wrapping this one is local to it. Given back once:
      // by its holder, or taken back at the holder's deadline.
      const release = client.release.bind(client);
      let released = false;
      const releaseOnce = (error?: Error | boolean) => {
        if (released) return;
        released = true;
        if (cancel) context?.cancels?.delete(cancel);
        client.off('error', onError);
        free();
        release(error);
      };
      client.release = releaseOnce;
      if (context) {
        let pid: number;
        try {
          pid = backendIds.get(client) ?? (await backendIdOf(client));
        } catch (error) {
          releaseOnce(error instanceof Error ? error : true);
          throw error;
        }
        backendIds.set(client, pid);
        // At the request's deadline: cancel the statement it runs; if it still holds the connection a moment
        // later (it awaits something else inside its transaction), the connection is closed and the pool
        // opens another: the server rolls its transaction back and frees its locks at once.
        cancel = () => {
          canceller.cancel(pid, () => !released);
          setTimeout(() => releaseOnce(new Error('request deadline: connection taken back')), TAKE_BACK_MS).unref();
        };
        (context.cancels ??= new Set()).add(cancel);
      }
      return namedStatements ? new NamingClient(client) : client;
    },
    end: () => pool.end(),
  };
}

/** After a request's deadline, how long it may keep its connection to roll back on its own. */
const TAKE_BACK_MS = 1000;

const LISTEN_BACKOFF_MIN_MS = 100;
const LISTEN_BACKOFF_MAX_MS = 30_000;
/** Reconnections tried in a row (about an hour at the 30 s cap); then only the workers' polling finds jobs. */
const LISTEN_MAX_RECONNECTS = 130;

/**
 * LISTEN on PostgreSQL: one dedicated connection outside the pool (a pooled connection goes back to others, and
 * its LISTENs with it), opened at the first `listen`. If it drops, it is reopened after 0.1 s, 0.2 s, 0.4 s, …
 * up to 30 s, its channels listened to again, and every listener called once (a notification sent while it was
 * away is lost). Connecting, LISTEN and UNLISTEN run one at a time.
 */
class PostgresListener {
  private readonly channels = new Map<string, Set<(payload?: string) => void>>();
  private client: pg.Client | undefined;
  private queue: Promise<void> = Promise.resolve();
  private retry: NodeJS.Timeout | undefined;
  private backoffMs = LISTEN_BACKOFF_MIN_MS;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly logger: Logger | undefined,
  ) {}

  async listen(channel: string, onNotify: (payload?: string) => void): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('the database is closed');
    const callback = (payload?: string) => onNotify(payload);
    let listeners = this.channels.get(channel);
    const first = !listeners;
    if (!listeners) this.channels.set(channel, (listeners = new Set()));
    listeners.add(callback);
    try {
      await this.serial(async () => {
        if (!this.client) await this.connect(false);
        else if (first) await this.client.query(`listen ${quoteIdent(channel)}`);
      });
    } catch (error) {
      // The connection is being reopened; the channel is listened to again once it is back.
      this.logger?.warn({ err: error, channel }, 'database listener: could not listen yet, retrying');
      this.reconnectLater();
    }
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      listeners.delete(callback);
      if (listeners.size > 0 || this.channels.get(channel) !== listeners) return;
      this.channels.delete(channel);
      await this.serial(async () => {
        await this.client?.query(`unlisten ${quoteIdent(channel)}`).catch(() => {});
      });
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.retry = undefined;
    await this.queue;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private serial(step: () => Promise<void>): Promise<void> {
    const run = this.queue.then(step);
    this.queue = run.catch(() => {});
    return run;
  }

  /** `catchUp`: a reconnection, after which every listener is called once. */
  private async connect(catchUp: boolean): Promise<void> {
    if (this.closed || this.channels.size === 0) return;
    const client = new pg.Client({
      connectionString: this.url,
      application_name: 'jobs-listener',
      keepAlive: true,
    });
    client.on('notification', (message) => {
      for (const callback of this.channels.get(message.channel) ?? []) callback(message.payload);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      for (const channel of this.channels.keys()) await client.query(`listen ${quoteIdent(channel)}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.backoffMs = LISTEN_BACKOFF_MIN_MS;
    this.reconnects = 0;
    if (catchUp) {
      this.logger?.info('database listener: connected again');
      for (const callbacks of this.channels.values()) for (const callback of callbacks) callback();
    }
  }

  private lost(client: pg.Client, error?: Error): void {
    if (client !== this.client) return;
    this.client = undefined;
    client.on('error', () => {});
    void client.end().catch(() => {});
    if (this.closed) return;
    this.logger?.warn({ err: error }, 'database listener: connection lost, reconnecting');
    this.reconnectLater();
  }

  private reconnects = 0;

  private reconnectLater(): void {
    if (this.closed || this.retry) return;
    if (++this.reconnects > LISTEN_MAX_RECONNECTS) {
      this.logger?.error(
        { attempts: LISTEN_MAX_RECONNECTS },
        'database listener: giving up reconnecting; jobs are found by polling only until a restart',
      );
      return;
    }
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, LISTEN_BACKOFF_MAX_MS);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.serial(async () => {
        if (!this.client) await this.connect(true);
      }).catch((error: unknown) => {
        this.logger?.warn({ err: error, retry_ms: this.backoffMs }, 'database listener: reconnect failed');
        this.reconnectLater();
      });
    }, delay);
    this.retry.unref();
  }
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Runs `work` in a transaction: the caller's when `db` already is one (an automation's stretch calling a
 * domain operation the API also calls on its own), else a new one.
 */
export function inTransaction<T>(db: Kysely<DB>, work: (tx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

/** Whether the database answers (readiness). */
export async function ping(database: Database): Promise<void> {
  await sql`select 1`.execute(database.db);
}

/** A dump of a freshly migrated in-memory PGlite, to open test databases from (0.4 s instead of 1.5 s). */
export async function migratedPGliteTemplate(): Promise<Blob> {
  const pglite = new PGlite({ parsers: { [TIMESTAMPTZ_OID]: parseTimestamptz } });
  await pglite.exec(`set time zone 'UTC'`);
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  await migrate(db);
  const dump = await pglite.dumpDataDir('none');
  await db.destroy();
  await pglite.close();
  return dump;
}

/** Migrates through `db`, then closes it. */
async function migrateOn(db: Kysely<DB>): Promise<void> {
  try {
    await migrate(db);
  } finally {
    await db.destroy();
  }
}

async function migrate(db: Kysely<DB>): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * PGlite has no directory lock: take one, so two processes never open one data directory. A lock left by a
 * process that no longer runs is taken over.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, '.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw error;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isRunning(pid)) {
        throw new DataDirLockedError(
          `the data directory ${dataDir} is in use by process ${pid}; stop it first, or set DATA_DIR to another directory`,
        );
      }
      rmSync(file, { force: true });
    }
  }
  throw new DataDirLockedError(`could not lock the data directory ${dataDir}`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) === 'EPERM';
  }
}
