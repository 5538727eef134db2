// Component tests against a real database: PGlite always, and PostgreSQL too when DATABASE_URL is set (as
// .ci/run does). Each test file gets its own database — a PGlite opened from a migrated template, or a
// PostgreSQL database created for the run and dropped at the end — so runs never share state. Both templates
// are migrated once per run by test/global-setup.ts (a file opening a database migrates nothing itself).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import pg from 'pg';
import { pino } from 'pino';
import { inject } from 'vitest';
import { ManualClock } from '../../server/clock.js';
import { loadConfig, type Config } from '../../server/config.js';
import { createAccount } from '../../server/domain/accounts/accounts.js';
import { createApiKey, SCOPES, type Scope, type ValidityDays } from '../../server/domain/accounts/keys.js';
import { adminHandlers as allAdminHandlers } from '../../server/http/admin.js';
import { createApp, type AppRoutes } from '../../server/http/app.js';
import type { AdminHandlers, Handlers, IdempotencyOptions } from '../../server/http/context.js';
import { rateLimiterFor, type RateLimiter } from '../../server/http/rate-limit.js';
import { handlers as allHandlers, replayers } from '../../server/http/routes/index.js';
import { createServices, type Services } from '../../server/services.js';
import { migratedPGliteTemplate, openDatabase, type Database, type Engine } from '../../server/store/database.js';
import type { JobsAtCommit } from '../../server/store/jobs.js';
import { noSessionsLeft } from '../pg-sessions.js';

/** The engines this run tests on. */
export const engines: Engine[] = process.env.DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

/**
 * The engine of the files that check published text rather than storage (the README's examples and walkthroughs,
 * the served description): PGlite alone, the one a reader starts on, also when DATABASE_URL is set. The rules such
 * a file passes through run on both engines in their own files; each file's header says so.
 */
export const walkthroughEngines: Engine[] = ['pglite'];

let template: Promise<Blob> | undefined;

/** The run's migrated PGlite (test/global-setup.ts), or one migrated here when there is none. */
function pgliteTemplate(): Promise<Blob> {
  const file = inject('pgliteTemplate');
  return file ? Promise.resolve(new Blob([readFileSync(file)])) : migratedPGliteTemplate();
}

export interface TestDatabase {
  database: Database;
  /** The PostgreSQL database's URL, to open a second handle on it (another "process"). */
  url?: string;
  /** Closes the handle and drops the PostgreSQL database. */
  drop(): Promise<void>;
}

export interface TestDatabaseOptions {
  /** PostgreSQL only: the database's collation and character classes (LC_COLLATE, LC_CTYPE), e.g. `C`. */
  locale?: 'C';
}

export async function openTestDatabase(engine: Engine, options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  if (engine === 'pglite') {
    template ??= pgliteTemplate();
    const database = await openDatabase({ engine: 'pglite', template: await template });
    return { database, drop: () => database.close() };
  }
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('DATABASE_URL is not set');
  const name = `ep_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  // A copy of the run's migrated database; a database of another locale is made from template0 and migrated.
  const postgresTemplate = inject('postgresTemplate');
  const from = options.locale
    ? ` template template0 encoding 'UTF8' lc_collate '${options.locale}' lc_ctype '${options.locale}'`
    : postgresTemplate
      ? ` template ${postgresTemplate}`
      : '';
  await admin.query(`create database ${name}${from}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  const database = await openDatabase({ engine: 'postgres', url: url.toString(), poolSize: 5 });
  return {
    database,
    url: url.toString(),
    drop: async () => {
      await database.close();
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await noSessionsLeft(c, name, 100);
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface TestApp {
  baseUrl: string;
  database: Database;
  clock: ManualClock;
  config: Config;
  /** The services the app was built with, for the job workers a test runs beside it (as main.ts shares them). */
  services: Services;
  /** Set on PostgreSQL: the test database's URL. */
  databaseUrl?: string;
  /** A new account with a key holding `scopes` (default: every scope). */
  account(options?: { scopes?: readonly Scope[]; validityDays?: ValidityDays }): Promise<TestCaller>;
  close(): Promise<void>;
}

export interface TestCaller {
  accountId: string;
  keyId: string;
  apiKey: string;
  /** fetch on the test server with this key. */
  call(
    method: string,
    path: string,
    init?: { body?: unknown; headers?: Record<string, string>; redirect?: 'follow' | 'manual' },
  ): Promise<Response>;
}

/** The routes of the app: the real ones, or the handlers a test gives. */
export const appRoutes = (handlers: Handlers = allHandlers): AppRoutes => ({
  handlers,
  replayers,
  adminHandlers: allAdminHandlers,
});

export async function startTestApp(
  engine: Engine,
  options: {
    handlers?: Handlers;
    /** The admin API's handlers (default: the real ones). */
    adminHandlers?: AdminHandlers;
    rateLimiter?: RateLimiter;
    idempotency?: IdempotencyOptions;
    /** Services to use instead of the real ones (a broken storage, a stub resolver). */
    services?: Partial<Services>;
    env?: NodeJS.ProcessEnv;
    /** Another app on the same database and clock, like a second server process (its own pool on PostgreSQL). */
    sameDatabaseAs?: TestApp;
    database?: TestDatabaseOptions;
    /** The worker that runs at once the jobs the app commits for it (main.ts's; a test attaches its registry). */
    jobsAtCommit?: JobsAtCommit;
  } = {},
): Promise<TestApp> {
  const { database, drop, url } = options.sameDatabaseAs
    ? await secondHandle(options.sameDatabaseAs)
    : await openTestDatabase(engine, options.database);
  const clock = options.sameDatabaseAs?.clock ?? new ManualClock(new Date());
  // Media files go to a directory of this app's own (removed at close), never to the repository's ./data.
  const scratch = options.env?.DATA_DIR ? undefined : mkdtempSync(join(tmpdir(), 'ep-test-data-'));
  const config = loadConfig({
    APP_ENV: 'test',
    KEY_CACHE_SECONDS: '0',
    LOG_LEVEL: 'silent',
    ...(scratch ? { DATA_DIR: scratch } : {}),
    ...options.env,
  });
  // As main.ts: shared counts on PostgreSQL, one in-memory count per embedded database (and its second apps).
  const rateLimiter = options.rateLimiter ?? rateLimiterFor(database);
  // As main.ts: the services built once, shared by the app and the workers a test starts (`services`).
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const services = createServices(config, options.services, { db: database.db, logger });
  const app = createApp(
    {
      config,
      database,
      clock,
      logger,
      rateLimiter,
      ...services,
      ...(options.idempotency ? { idempotency: options.idempotency } : {}),
      ...(options.jobsAtCommit ? { jobsAtCommit: options.jobsAtCommit } : {}),
    },
    { ...appRoutes(options.handlers), ...(options.adminHandlers ? { adminHandlers: options.adminHandlers } : {}) },
  );
  const server: Server = await new Promise((ok) => {
    const s = app.listen(0, '127.0.0.1', () => ok(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let n = 0;
  return {
    baseUrl,
    database,
    clock,
    config,
    services,
    ...(url ? { databaseUrl: url } : {}),
    async account({ scopes = SCOPES, validityDays = 90 } = {}) {
      n += 1;
      const account = await createAccount(database.db, clock, {
        name: `Test account ${n}`,
        alias: `test-${n}-${randomBytes(3).toString('hex')}`,
      });
      const { key, secret } = await createApiKey(database.db, clock, {
        accountId: account.id,
        name: `test key ${n}`,
        scopes,
        validityDays,
      });
      return {
        accountId: account.id,
        keyId: key.id,
        apiKey: secret,
        call: (method, path, init = {}) => call(baseUrl, secret, method, path, init),
      };
    },
    async close() {
      await new Promise<void>((ok) => server.close(() => ok()));
      if (!options.sameDatabaseAs) await rateLimiter.close?.();
      await drop();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** A second handle on a test app's database: a new pool on PostgreSQL, the same PGlite (one process). */
async function secondHandle(first: TestApp): Promise<TestDatabase> {
  if (!first.databaseUrl) return { database: first.database, drop: async () => {} };
  const database = await openDatabase({ engine: 'postgres', url: first.databaseUrl, poolSize: 5 });
  return { database, url: first.databaseUrl, drop: () => database.close() };
}

export function call(
  baseUrl: string,
  apiKey: string | undefined,
  method: string,
  path: string,
  init: { body?: unknown; headers?: Record<string, string>; redirect?: 'follow' | 'manual' } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...init.headers };
  if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
  if (init.body !== undefined) headers['Content-Type'] ??= 'application/json';
  return fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(init.redirect ? { redirect: init.redirect } : {}),
    ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) } : {}),
  });
}
