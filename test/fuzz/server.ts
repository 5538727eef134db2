// The real server for the fuzz harness: the `npm start` command as a child process on a fresh temporary
// DATA_DIR (PGlite), or on a fresh PostgreSQL database created on the server of DATABASE_URL (dropped at the
// end, also on failure); the base URL and the demo key read from its banner, the admin token from
// DATA_DIR/admin-token. Also a webhook receiver on loopback that answers 204 at once. The test suite starts it on
// a copy of the run's migrated database (`from`): the same server, without PGlite's initdb and the migrations.
import { startFakeMeta, type FakeMeta } from '../fakes/meta/index.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { scratchPostgres } from '../../scripts/bench/common.js';

export type Engine = 'pglite' | 'postgres';

/** A migrated database to copy: a closed PGlite data directory, a PostgreSQL template database (its name). */
export interface MigratedDatabase {
  pgliteDataDir?: string;
  postgresTemplate?: string;
}

/** The engines to fuzz: PGlite always, PostgreSQL when DATABASE_URL is set. */
export const fuzzEngines = (): Engine[] => (process.env.DATABASE_URL ? ['pglite', 'postgres'] : ['pglite']);

/** Settings of the parent that never leak into the child: the harness decides them. */
const SERVER_SETTINGS = [
  'APP_ENV',
  'HOST',
  'PORT',
  'PUBLIC_BASE_URL',
  'DATA_DIR',
  'DATABASE_URL',
  'DB_POOL_SIZE',
  'DB_NAMED_STATEMENTS',
  'DB_STATEMENT_TIMEOUT_MS',
  'DB_IDLE_IN_TRANSACTION_TIMEOUT_MS',
  'REQUEST_DEADLINE_MS',
  'ADMIN_TOKEN',
  'RESPONSE_VALIDATION',
  'REQUEST_VALIDATION',
  'KEY_CACHE_SECONDS',
  'TRUST_PROXY',
  'EDGE_IP_LIMIT_PER_MINUTE',
  'GLOBAL_RPS_CEILING',
  'CHANNEL_WEBHOOK_RPS_CEILING',
  'WEB_CONCURRENCY',
  'WORKERS',
  'WORKER_CONCURRENCY',
  'WEBHOOK_DELIVERY_CONCURRENCY',
  'WORKER_POLL_MS',
  'LOG_LEVEL',
  'SANDBOX_ENABLED',
  'WEBHOOK_DEV_TARGETS',
  'WEBHOOK_MAX_IN_FLIGHT',
  'WEBHOOK_PACE_PER_MINUTE',
  'RUNS_PER_CONTACT_PER_HOUR',
  'META_APP_SECRET',
  'META_VERIFY_TOKEN',
  'GRAPH_API_BASE_URL',
  'INSTAGRAM_GRAPH_BASE_URL',
  'INSTAGRAM_CDN_BASE_URL',
  'GRAPH_API_VERSION',
  'CHANNEL_CREDENTIALS_KEY',
  'CHANNEL_CREDENTIALS_OLD_KEYS',
];

/** SIGTERM, then SIGKILL when the process has not exited after this long. */
const KILL_AFTER_MS = 15_000;
/** Output kept per stream (the head holds the banner, the tail the latest errors). */
const KEEP_CHARS = 256 * 1024;

export interface StartedServer {
  engine: Engine;
  baseUrl: string;
  apiKey: string;
  adminToken: string;
  /** The demo account's id, from the banner. */
  demoAccountId: string | undefined;
  stdout(): string;
  stderr(): string;
  /** Null while it runs. */
  exitCode(): number | null;
  /** Kills the process (SIGTERM, SIGKILL after 15 s), drops the database, removes the data directory. */
  stop(): Promise<void>;
}

function keep(text: string): string {
  return text.length <= 2 * KEEP_CHARS ? text : `${text.slice(0, KEEP_CHARS)}\n[…]\n${text.slice(-KEEP_CHARS)}`;
}

function startCommand(root: string): [string, string[]] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const [command, ...args] = pkg.scripts.start.split(' ');
  return [command === 'node' ? process.execPath : command!, args];
}

/** A fresh PostgreSQL database on the server of DATABASE_URL (a copy of `template`), dropped by `drop`. */
async function createDatabase(template: string | undefined): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('DATABASE_URL is not set');
  const prefix = `ep_fuzz_${process.pid}`;
  if (!template) return scratchPostgres(base, prefix);
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const query = async (text: string) => {
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    try {
      await admin.query(text);
    } finally {
      await admin.end();
    }
  };
  await query(`create database ${name} template ${template}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => query(`drop database if exists ${name} with (force)`) };
}

async function killChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((ok) => (timer = setTimeout(() => ok('late'), KILL_AFTER_MS)));
  const outcome = await Promise.race([exited.then(() => 'exited' as const), late]);
  clearTimeout(timer);
  if (outcome === 'late') {
    child.kill('SIGKILL');
    await exited;
  }
}

export interface StartOptions {
  root: string;
  /** More settings for the child (the harness's own win over them only where it must). */
  env?: Record<string, string>;
  /** How long the banner may take. */
  startTimeoutMs?: number;
  /** A migrated database to start on, else an empty one. */
  from?: MigratedDatabase;
}

/** Starts the server with `npm start`'s command on `engine`; throws (after cleaning up) if it does not come up. */
export async function startServer(engine: Engine, options: StartOptions): Promise<StartedServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ep-fuzz-'));
  let database: { url: string; drop: () => Promise<void> } | undefined;
  // The Graph API the server attaches numbers through: the fake on loopback (this machine reaches no Meta, and a
  // Graph API that never answers would be the server's 502, not a fault the fuzzer looks for).
  let graph: FakeMeta | undefined;
  let child: ChildProcess | undefined;
  let exited: Promise<number | null> = Promise.resolve(null);
  let stopped: Promise<void> | undefined;
  // Should the harness exit without stopping it (an uncaught error, process.exit), the server goes too.
  const onExit = () => void child?.kill('SIGKILL');
  process.on('exit', onExit);
  const stop = () =>
    (stopped ??= (async () => {
      try {
        if (child) await killChild(child, exited);
        process.off('exit', onExit);
      } finally {
        try {
          if (database) await database.drop();
          await graph?.close();
        } finally {
          rmSync(dataDir, { recursive: true, force: true });
        }
      }
    })());

  try {
    if (engine === 'postgres') database = await createDatabase(options.from?.postgresTemplate);
    else if (options.from?.pgliteDataDir)
      cpSync(options.from.pgliteDataDir, join(dataDir, 'pglite'), { recursive: true });
    graph = await startFakeMeta();
    const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !SERVER_SETTINGS.includes(name)));
    const env: Record<string, string> = {
      ...(base as Record<string, string>),
      RUNS_PER_CONTACT_PER_HOUR: '10000',
      GRAPH_API_BASE_URL: graph.url,
      // Both of Meta's hosts on the fake: no call may leave the machine (a name that never resolves costs seconds).
      INSTAGRAM_GRAPH_BASE_URL: graph.url,
      INSTAGRAM_CDN_BASE_URL: graph.url,
      ...options.env,
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      EDGE_IP_LIMIT_PER_MINUTE: '100000000',
      GLOBAL_RPS_CEILING: '100000000',
      CHANNEL_WEBHOOK_RPS_CEILING: '100000000',
      // One process: the sandbox clock the harness advances lives in it.
      WEB_CONCURRENCY: '1',
      ...(database ? { DATABASE_URL: database.url, SANDBOX_ENABLED: 'true', WEBHOOK_DEV_TARGETS: 'true' } : {}),
    };
    const [command, args] = startCommand(options.root);
    const proc = spawn(command, args, { cwd: options.root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let out = '';
    let err = '';
    proc.stdout!.on('data', (chunk: Buffer) => (out = keep(out + chunk.toString())));
    proc.stderr!.on('data', (chunk: Buffer) => (err = keep(err + chunk.toString())));
    exited = new Promise((ok) => proc.on('exit', (code) => ok(code)));

    const until = Date.now() + (options.startTimeoutMs ?? 120_000);
    while (!/admin token: .+\n/.test(out)) {
      if (proc.exitCode !== null)
        throw new Error(`the server exited (${proc.exitCode}) before its banner:\n${out}${err}`);
      if (Date.now() > until) throw new Error(`the server printed no banner in time:\n${out}${err}`);
      await new Promise((ok) => setTimeout(ok, 50));
    }
    const baseUrl = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    const apiKey = /demo API key \(every scope\): (\S+)/.exec(out)?.[1];
    if (!baseUrl || !apiKey) throw new Error(`no base URL or demo key in the banner:\n${out}`);
    const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    return {
      engine,
      baseUrl,
      apiKey,
      adminToken,
      demoAccountId: /demo account ([0-9a-f-]{36})/.exec(out)?.[1],
      stdout: () => out,
      stderr: () => err,
      exitCode: () => proc.exitCode,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

export interface Receiver {
  url: string;
  received(): number;
  close(): Promise<void>;
}

/** A webhook receiver on loopback: every request is answered 204 at once. */
export async function startReceiver(): Promise<Receiver> {
  let count = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count += 1;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received: () => count,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
