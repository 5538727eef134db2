// What the seeded benchmarks (contacts.ts, messaging.ts, webhooks.ts) share: flags, figures and tables, a progress
// bar, bulk inserts, the bench server process (child mode: the real app with the account rate limit counted but
// never refusing, and the job workers of main.ts when asked) and, in the parent, the engines to run, their scratch
// PostgreSQL databases or PGlite directories, the server processes (and more processes on the same database, with
// requests to them over IPC) and the clean-up on Ctrl-C.
//
// Importing this module loads no server code: the child-side helpers import it when they run, so the parent
// process stays light and never opens a database itself.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import type { Clock } from '../../server/clock.js';
import type { Config } from '../../server/config.js';
import type { ConnectionInput } from '../../server/domain/console/connections.js';
import type { WorkflowCreateBody } from '../../server/domain/workflows/workflows.js';
import type { Database } from '../../server/store/database.js';
import type { DB } from '../../server/store/schema.js';

export const root = resolve(fileURLToPath(import.meta.url), '../../..');
export const DEFAULT_POSTGRES = 'postgres://postgres@127.0.0.1:5432/test';

export type EngineName = 'pglite' | 'postgres';
export const ENGINE_LABEL: Record<EngineName, string> = { pglite: 'PGlite', postgres: 'PostgreSQL' };

// ---------------------------------------------------------------------------------------------------------
// Flags, figures, tables
// ---------------------------------------------------------------------------------------------------------
export function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** An integer flag, at least `min` (1 unless said: a count that may be 0 says so). */
export function argInt(name: string, fallback: number, min = 1): number {
  const raw = argValue(name);
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min)
    throw new Error(`--${name} must be an integer ≥ ${min}${min === 1 ? ' (a positive integer)' : ''}`);
  return value;
}

/** `--engine pglite|postgres|both` (default both). */
export function engineOption(): 'pglite' | 'postgres' | 'both' {
  const engine = argValue('engine') ?? 'both';
  if (engine !== 'pglite' && engine !== 'postgres' && engine !== 'both')
    throw new Error('--engine must be pglite, postgres or both');
  return engine;
}

export const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
export const ms = (n: number) => n.toFixed(2);

/** mulberry32: a small seeded generator, so two runs seed the same data. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Brazilian area codes (DDD). */
const DDDS = [
  11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 24, 27, 28, 31, 32, 33, 34, 35, 37, 38, 41, 42, 43, 44, 45, 46, 47, 48,
  49, 51, 53, 54, 55, 61, 62, 63, 64, 65, 66, 67, 68, 69, 71, 73, 74, 75, 77, 79, 81, 82, 83, 84, 85, 86, 87, 88, 89,
  91, 92, 93, 94, 95, 96, 97, 98, 99,
];

/**
 * The i-th phone of a bench, a Brazilian mobile: `nine` is its 9-digit form (the phone key), `eight` its old
 * 8-digit form when it has one (subscriber numbers starting with 6–9). Distinct for every i below 6.7 billion:
 * the area code is i mod 67 and the subscriber number an affine bijection of i div 67 modulo 10^8.
 */
export function phoneOf(i: number): { nine: string; eight: string | null } {
  const ddd = DDDS[i % DDDS.length]!;
  const k = Math.floor(i / DDDS.length);
  const subscriber = String((k * 7919 + 12_345_678) % 100_000_000).padStart(8, '0');
  return { nine: `+55${ddd}9${subscriber}`, eight: /^[6-9]/.test(subscriber) ? `+55${ddd}${subscriber}` : null };
}

/** The q-quantile of ascending `sorted` (nearest rank). */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => '| ' + r.map((c, i) => c.padEnd(widths[i]!)).join(' | ') + ' |';
  return [line(rows[0]!), '| ' + widths.map((w) => '-'.repeat(w)).join(' | ') + ' |', ...rows.slice(1).map(line)].join(
    '\n',
  );
}

/** A progress bar on stderr: redrawn in place on a terminal, a line per 10% otherwise. */
export function progressBar(label: string, total: number) {
  const tty = process.stderr.isTTY === true;
  const started = performance.now();
  let lastTenth = -1;
  return {
    update(done: number): void {
      const seconds = (performance.now() - started) / 1000;
      const rate = done / Math.max(seconds, 1e-6);
      const share = done / total;
      if (tty) {
        const width = 30;
        const filled = Math.round(share * width);
        const eta = rate > 0 ? Math.ceil((total - done) / rate) : 0;
        process.stderr.write(
          `\r  ${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(share * 100).toFixed(0).padStart(3)}%` +
            `  ${fmt(done)}/${fmt(total)}  ${fmt(rate)}/s  eta ${eta} s   `,
        );
      } else {
        const tenth = Math.floor(share * 10);
        if (tenth > lastTenth) {
          lastTenth = tenth;
          process.stderr.write(`  ${label} ${tenth * 10}%  ${fmt(done)}/${fmt(total)}  ${fmt(rate)}/s\n`);
        }
      }
    },
    end(): void {
      if (tty) process.stderr.write('\n');
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Bulk inserts
// ---------------------------------------------------------------------------------------------------------
/**
 * Inserts `rows` in one statement, `insert … select * from unnest($1::uuid[], $2::text[], …)`: one array
 * parameter per column whatever the batch size. (A multi-row VALUES list binds rows × columns parameters and
 * was about 1.5× slower on both engines here: Kysely compiles, the driver binds and the server parses 14,000
 * parameters per 1000 contacts.) `columns` names the columns written, with their SQL types; the others keep
 * their defaults.
 */
export async function insertColumns<T extends object>(
  db: Kysely<DB>,
  table: string,
  columns: Partial<Record<keyof T & string, string>>,
  rows: readonly T[],
): Promise<void> {
  if (rows.length === 0) return;
  const names = Object.keys(columns) as (keyof T & string)[];
  const arrays = names.map((name) => {
    const values = rows.map((row) => (row as Record<string, unknown>)[name] ?? null);
    return sql`${values}::${sql.raw(columns[name]!)}[]`;
  });
  await sql`insert into ${sql.table(table)} (${sql.join(names.map((n) => sql.ref(n)))}) select * from unnest(${sql.join(arrays)})`.execute(
    db,
  );
}

/** ANALYZE of `tables`, as autovacuum would soon do on PostgreSQL; returns the seconds it took. */
export async function analyze(db: Kysely<DB>, tables: readonly string[]): Promise<number> {
  const started = performance.now();
  for (const table of tables) await sql`analyze ${sql.table(table)}`.execute(db);
  return (performance.now() - started) / 1000;
}

// ---------------------------------------------------------------------------------------------------------
// Child mode: the bench server process
// ---------------------------------------------------------------------------------------------------------
export interface BenchServer {
  config: Config;
  database: Database;
  db: Kysely<DB>;
  clock: Clock;
  /**
   * Serves the real app (all handlers) on a free loopback port, then sends `ready(url)` to the parent over
   * IPC. The account rate limit is counted in the database as in production but never refuses.
   */
  listen(ready: (url: string) => object): Promise<void>;
  /**
   * Prepares the background job worker of this process as main.ts does with WORKERS=true (the job registry of
   * `config`, JobWorker with the configured poll interval and concurrency unless `options` say otherwise, woken
   * by the database's notification of jobs due now, the webhook retention job ensured) and resolves with the function that starts it, so a bench can time from the
   * start alone. A stop (SIGTERM, the parent gone) lets its current jobs end first. `baseUrl` is the service's
   * public base (attachment URLs of message events).
   */
  prepareWorkers(baseUrl: string, options?: { concurrency?: number; pollIntervalMs?: number }): Promise<() => void>;
}

/**
 * Opens the database the environment names (DATABASE_URL, else PGlite under DATA_DIR; migrations run at open),
 * started like main.ts with the edge and per-second ceilings raised. Stops on SIGTERM or when the parent goes;
 * ignores Ctrl-C, which reaches the whole process group: the parent decides, and stops this process.
 */
export async function openBenchServer(): Promise<BenchServer> {
  const { systemClock } = await import('../../server/clock.js');
  const { loadConfig } = await import('../../server/config.js');
  const { openDatabase } = await import('../../server/store/database.js');
  const open: { database?: Database; server?: Server; workers?: { stop(): Promise<void> } } = {};
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    // Still seeding: nothing to finish, the parent drops the scratch database or removes the PGlite directory.
    if (!open.server && !open.workers) process.exit(0);
    open.server?.closeAllConnections();
    open.server?.close();
    void (open.workers?.stop() ?? Promise.resolve()).then(() => open.database?.close()).finally(() => process.exit(0));
  };
  process.on('disconnect', stop);
  process.on('SIGTERM', stop);
  process.on('SIGINT', () => {});
  answerProfileRequests();

  const config = loadConfig({
    ...process.env,
    EDGE_IP_LIMIT_PER_MINUTE: '1000000000',
    GLOBAL_RPS_CEILING: '1000000000',
    CHANNEL_WEBHOOK_RPS_CEILING: '1000000000',
  });
  const database = config.databaseUrl
    ? await openDatabase({ engine: 'postgres', url: config.databaseUrl, poolSize: config.dbPoolSize })
    : await openDatabase({ engine: 'pglite', dataDir: join(config.dataDir, 'pglite') });
  open.database = database;

  return {
    config,
    database,
    db: database.db,
    clock: systemClock,
    async listen(ready) {
      const { createApp } = await import('../../server/http/app.js');
      const { rateLimiterFor } = await import('../../server/http/rate-limit.js');
      const { handlers, replayers } = await import('../../server/http/routes/index.js');
      const { adminHandlers } = await import('../../server/http/admin.js');
      const { createServices } = await import('../../server/services.js');
      const { createLogger } = await import('../../server/logger.js');
      const logger = createLogger(config.logLevel); // stdout, which the parent discards
      const counted = rateLimiterFor(database, logger);
      const app = createApp(
        {
          config,
          database,
          clock: systemClock,
          logger,
          // The count is written as in production; only the refusal is lifted.
          rateLimiter: { hit: async (...args) => ({ ...(await counted.hit(...args)), allowed: true }) },
          ...createServices(config),
        },
        { handlers, replayers, adminHandlers },
      );
      const listening = app.listen(0, '127.0.0.1', () => {
        const { port } = listening.address() as AddressInfo;
        process.send!(ready(`http://127.0.0.1:${port}`));
      });
      open.server = listening;
    },
    async prepareWorkers(baseUrl, options = {}) {
      const { ensurePruneJob } = await import('../../server/domain/webhooks/delivery.js');
      const { createJobRegistry } = await import('../../server/jobs/handlers.js');
      const { createServices } = await import('../../server/services.js');
      const { JobWorker, wakeOnJobsReady } = await import('../../server/jobs/worker.js');
      const { createLogger } = await import('../../server/logger.js');
      const jobs = new JobWorker({
        db: database.db,
        clock: systemClock,
        registry: createJobRegistry({ config, baseUrl, ...createServices(config) }),
        logger: createLogger(config.logLevel),
        concurrency: config.workerConcurrency,
        pollIntervalMs: config.workerPollMs,
        wakeOn: wakeOnJobsReady(database),
        ...options,
      });
      // As main.ts: a job this process commits for itself (an invoke block's call) runs at once.
      jobs.runJobsAtCommit();
      await ensurePruneJob(database.db, systemClock);
      const { keepStatistics } = await import('../../server/start/statistics.js');
      return () => {
        jobs.start();
        // As startWorkers: the planner's statistics of the tables the burst grows.
        const statistics = keepStatistics({ database, logger: createLogger(config.logLevel) });
        open.workers = { stop: () => Promise.all([jobs.stop(), statistics.stop()]).then(() => undefined) };
      };
    },
  };
}

/**
 * Child side of `profile.ts`: V8's sampling profiler, started and stopped by the parent over IPC, so a profile
 * covers only the measured load (not the start, the migrations and the warm-up). Stopping sends the profile back.
 */
function answerProfileRequests(): void {
  let session: Session | undefined;
  process.on('message', (message: { profile?: 'start' | 'stop' }) => {
    if (message?.profile === 'start')
      void (async () => {
        const { Session } = await import('node:inspector/promises');
        session = new Session();
        session.connect();
        await session.post('Profiler.enable');
        await session.post('Profiler.setSamplingInterval', { interval: 200 });
        await session.post('Profiler.start');
        process.send!({ profiling: true });
      })();
    if (message?.profile === 'stop' && session)
      void session.post('Profiler.stop').then(({ profile }) => process.send!({ profile }));
  });
}

/**
 * Child side of `request`: answers each request of the parent with `handle(body)` (or its error's message).
 * Messages that are not requests are left to other listeners.
 */
/**
 * A bench account with one connection and one automation published on it, made through the domain as the console
 * and the API would (benches of the engine and of tracked links).
 */
export async function seedPublishedAutomation(
  server: BenchServer,
  account: { name: string; alias: string },
  connection: ConnectionInput,
  workflow: Omit<WorkflowCreateBody, 'channel'>,
): Promise<{ accountId: string; connectionId: string; workflowId: string }> {
  const { createAccount } = await import('../../server/domain/accounts/accounts.js');
  const { ADMIN_API } = await import('../../server/domain/accounts/actor.js');
  const { createConnection } = await import('../../server/domain/console/connections.js');
  const { createWorkflow } = await import('../../server/domain/workflows/workflows.js');
  const { publishWorkflow } = await import('../../server/domain/workflows/publishing.js');
  const { db, clock } = server;
  const created = await createAccount(db, clock, account);
  const made = await createConnection(db, clock, created.id, connection);
  const channel = { type: made.channel, connection_id: made.id };
  const automation = await createWorkflow(db, clock, ADMIN_API, created.id, { ...workflow, channel });
  await publishWorkflow(db, clock, ADMIN_API, created.id, automation.id, undefined);
  return { accountId: created.id, connectionId: made.id, workflowId: automation.id };
}

export function answerRequests(handle: (body: unknown) => Promise<unknown>): void {
  process.on('message', (message: { request?: number; body?: unknown }) => {
    if (typeof message?.request !== 'number') return;
    const id = message.request;
    handle(message.body).then(
      (reply) => process.send!({ reply: id, body: reply }),
      (error: unknown) => process.send!({ reply: id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
}

// ---------------------------------------------------------------------------------------------------------
// Parent mode: server processes, scratch databases, clean-up
// ---------------------------------------------------------------------------------------------------------
const children = new Set<ChildProcess>();

/** What must be undone if the run stops: scratch databases, temporary directories, server processes. */
const pendingCleanups = new Set<() => Promise<void>>();
let interrupted = false;

/** Whether Ctrl-C (or SIGTERM) stopped the run: its handler cleans up and exits. */
export const wasInterrupted = () => interrupted;

/** Parent mode only: the child runs the same module, and handles its own signals. */
export function handleSignals(): void {
  process.on('exit', () => {
    for (const child of children) child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      // npm and tsx pass Ctrl-C on and may follow it with SIGTERM: a second signal must not cut the clean-up short
      // (it is bounded: a server process gets 5 s, then SIGKILL).
      if (interrupted) return;
      interrupted = true;
      process.stderr.write(`\n${signal}: stopping the servers and dropping the scratch databases…\n`);
      void Promise.allSettled([...pendingCleanups].map((c) => c())).finally(() => process.exit(130));
    });
  }
}

/** `fn` run once, however many times it is called. */
function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
  children.delete(child);
}

/**
 * Starts `script --<mode>` (`--serve`: a server process) in a child process; `ready` settles with its first IPC
 * message (a server sends it once it has seeded its database and listens).
 */
function startServer<R>(
  script: string,
  env: NodeJS.ProcessEnv,
  mode = 'serve',
): { child: ChildProcess; ready: Promise<R> } {
  // BENCH_CPU_PROF=DIR: each server process writes a V8 CPU profile into DIR when it stops (for bench:profile's
  // reader or Chrome's DevTools).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', script, `--${mode}`], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  children.add(child);
  const ready = new Promise<R>((ok, fail) => {
    child.once('message', (m) => ok(m as R));
    child.once('exit', (code, signal) => fail(new Error(`the bench ${mode} process exited with ${code ?? signal}`)));
  });
  return { child, ready };
}

let requests = 0;

/** Parent side of `answerRequests`: sends `body` to `child` over IPC and resolves with its answer. */
export function request<T>(child: ChildProcess, body: unknown): Promise<T> {
  const id = ++requests;
  return new Promise<T>((ok, fail) => {
    const onMessage = (message: { reply?: number; body?: unknown; error?: string }) => {
      if (message?.reply !== id) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (message.error !== undefined) fail(new Error(message.error));
      else ok(message.body as T);
    };
    const onExit = (code: number | null, signal: string | null) => {
      child.off('message', onMessage);
      fail(new Error(`the bench process exited with ${code ?? signal} before answering`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send({ request: id, body });
  });
}

/** What `withBenchServer` gives its body besides the server's ready message. */
export interface BenchProcesses {
  /** The server process (for `request`). */
  server: ChildProcess;
  /**
   * Starts `script --<mode>` with the server's environment (the same database, `env` added): more processes on
   * the same PostgreSQL database, e.g. job workers. Stopped with the server, before the database is dropped.
   */
  start<M>(mode: string, env?: NodeJS.ProcessEnv): { child: ChildProcess; ready: Promise<M> };
}

interface Scratch {
  url: string;
  drop(): Promise<void>;
}

/**
 * A new database `<prefix>_<random>` on the server of `base` (a copy of `template` when given), dropped (with
 * force) by `drop`.
 */
export async function scratchPostgres(base: string, prefix = 'ep_bench', template?: string): Promise<Scratch> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * The engines of `--engine`, and PostgreSQL's base URL: DATABASE_URL, or the default. With `both` and no
 * DATABASE_URL, an unreachable default PostgreSQL is skipped with a note rather than failing `npm run bench`.
 */
export async function enginesToRun(
  option: 'pglite' | 'postgres' | 'both',
): Promise<{ engines: EngineName[]; postgresBase: string; notes: string[] }> {
  const engines: EngineName[] = option === 'both' ? ['pglite', 'postgres'] : [option];
  const explicitUrl = process.env.DATABASE_URL;
  const postgresBase = explicitUrl ?? DEFAULT_POSTGRES;
  const notes: string[] = [];
  if (option === 'both' && !explicitUrl) {
    const probe = new pg.Client({ connectionString: postgresBase, connectionTimeoutMillis: 3000 });
    try {
      await probe.connect();
    } catch (error) {
      engines.splice(engines.indexOf('postgres'), 1);
      notes.push(
        `PostgreSQL skipped: ${postgresBase} is not reachable (${error instanceof Error ? error.message : String(error)}); ` +
          'set DATABASE_URL to measure it.',
      );
    } finally {
      await probe.end().catch(() => {});
    }
  }
  return { engines, postgresBase, notes };
}

/**
 * Runs `body` against a fresh bench server on `engine`: `script --serve` in its own process, on a scratch
 * PostgreSQL database (created on `postgresBase`) or a PGlite directory under the system's temporary directory.
 * The server, the database and the directory go at the end, on failure and on Ctrl-C too.
 */
export async function withBenchServer<R, T>(
  engine: EngineName,
  postgresBase: string,
  script: string,
  env: NodeJS.ProcessEnv,
  body: (ready: R, processes: BenchProcesses) => Promise<T>,
): Promise<T> {
  let scratch: Scratch | undefined;
  let dataDir: string | undefined;
  let child: ChildProcess | undefined;
  const more: ChildProcess[] = [];
  const cleanup = once(async () => {
    await Promise.all(more.map(stopChild));
    if (child) await stopChild(child);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (scratch) await scratch.drop();
  });
  pendingCleanups.add(cleanup);
  try {
    const serverEnv: NodeJS.ProcessEnv = { ...process.env, APP_ENV: 'development', LOG_LEVEL: 'info', ...env };
    if (engine === 'postgres') {
      scratch = await scratchPostgres(postgresBase);
      serverEnv.DATABASE_URL = scratch.url;
      dataDir = mkdtempSync(join(tmpdir(), 'ep-bench-')); // media files and the like
    } else {
      delete serverEnv.DATABASE_URL;
      dataDir = mkdtempSync(join(tmpdir(), 'ep-bench-'));
    }
    serverEnv.DATA_DIR = dataDir;
    process.stderr.write(
      `\n${ENGINE_LABEL[engine]}${scratch ? ` (scratch database ${new URL(scratch.url).pathname.slice(1)})` : ''}\n`,
    );
    const started = startServer<R>(script, serverEnv);
    child = started.child; // known at once: an interruption while it seeds stops it before the drop
    const ready = await started.ready;
    return await body(ready, {
      server: started.child,
      start: <M>(mode: string, extra: NodeJS.ProcessEnv = {}) => {
        const other = startServer<M>(script, { ...serverEnv, ...extra }, mode);
        more.push(other.child);
        return other;
      },
    });
  } finally {
    await cleanup();
    pendingCleanups.delete(cleanup);
  }
}

/**
 * The entry of a bench script: `--serve` is the child mode, `--<mode>` one of `modes` (other child processes,
 * started through `BenchProcesses.start`), anything else the parent (exit code 1 on failure).
 */
export async function main(
  serve: () => Promise<void>,
  bench: () => Promise<void>,
  modes: Record<string, () => Promise<void>> = {},
): Promise<void> {
  if (process.argv.includes('--serve')) {
    await serve();
    return;
  }
  for (const [mode, run] of Object.entries(modes))
    if (process.argv.includes(`--${mode}`)) {
      await run();
      return;
    }
  handleSignals();
  await bench().catch((error: unknown) => {
    if (interrupted) return; // the signal handler cleans up and exits
    console.error(error);
    process.exitCode = 1;
  });
}

/**
 * `count` sandbox whatsapp contacts (phones `+55119<first + i>`) write `text` to `connectionId` through the admin
 * API, `writers` at a time; any answer but 201 stops the bench.
 */
export async function writeInbound(
  target: { url: string; connectionId: string; adminToken: string },
  input: { count: number; writers: number; firstPhone: number; text: string },
): Promise<void> {
  const headers = { Authorization: `Bearer ${target.adminToken}`, 'Content-Type': 'application/json' };
  let next = 0;
  const writer = async () => {
    for (let i = next++; i < input.count; i = next++) {
      const res = await fetch(`${target.url}/admin/v1/sandbox/connections/${target.connectionId}/inbound`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          from: { phone: `+55119${String(input.firstPhone + i)}`, name: `Cliente ${i}` },
          text: input.text,
        }),
      });
      if (res.status !== 201) throw new Error(`${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: input.writers }, writer));
}
