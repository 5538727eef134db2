// `npm start`'s command (package.json's `start`) in a process of its own, for the tests that run the server as an
// operator does (the README walkthrough, the cluster's metrics). The caller's own settings never leak into it:
// only `env` and the machine's environment without the server's settings. Also what such a process may start on
// when its test is not about a first start: a copy of the run's migrated database (test/global-setup.ts), embedded
// or PostgreSQL. A first start's CPU is mostly PGlite's initdb and the migrations (tsx and the validators aside).
import { scratchPostgres as scratchDatabase } from '../../scripts/bench/common.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { inject } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const SERVER_SETTINGS = [
  'DATABASE_URL',
  'ADMIN_TOKEN',
  'APP_ENV',
  'PORT',
  'HOST',
  'DATA_DIR',
  'PUBLIC_BASE_URL',
  'SANDBOX_ENABLED',
  'WEBHOOK_DEV_TARGETS',
];

export interface StartedServer {
  child: ChildProcess;
  /** What it printed so far, stdout and stderr together. */
  output: () => string;
  exited: Promise<number | null>;
}

/** The server started with `npm start`'s command on `env`, on 127.0.0.1 and a port of the system's choice. */
export function startNpmStart(env: Record<string, string>): StartedServer {
  const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts
    .start;
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !SERVER_SETTINGS.includes(name)));
  const [command, ...args] = start.split(' ');
  const child = spawn(command === 'node' ? process.execPath : (command ?? 'node'), args, {
    cwd: root,
    env: { ...base, HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  // 'close': after the pipes' last bytes ('exit' may come first).
  const exited = new Promise<number | null>((ok) => child.on('close', (code) => ok(code)));
  return { child, output: () => out, exited };
}

/**
 * `dataDir` (made if need be) holding a copy of the run's migrated embedded database in `pglite/`: a server started
 * on it opens it as it opens its own on a second start. Without the run's copy (no global set-up) it is left
 * empty, and the server makes its database itself.
 */
export function withMigratedDatabase(dataDir: string): string {
  const template = inject('pgliteDataDir');
  if (template) cpSync(template, join(dataDir, 'pglite'), { recursive: true });
  return dataDir;
}

export interface ScratchPostgres {
  url: string;
  /** Drops the database (its sessions ended first). */
  drop: () => Promise<void>;
}

/**
 * A PostgreSQL database of its own on DATABASE_URL's server: `migrated`, a copy of the run's migrated template
 * (test/global-setup.ts; an empty one without it), else empty, as on a first start.
 */
export async function scratchPostgres(prefix: string, options: { migrated: boolean }): Promise<ScratchPostgres> {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('DATABASE_URL is not set');
  return scratchDatabase(base, prefix, options.migrated ? inject('postgresTemplate') : undefined);
}
