// `npm start`'s command (package.json's `start`) in a process of its own, for the tests that run the server as an
// operator does (the README walkthrough, the cluster's metrics). The caller's own settings never leak into it:
// only `env` and the machine's environment without the server's settings.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

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
  const exited = new Promise<number | null>((ok) => child.on('exit', (code) => ok(code)));
  return { child, output: () => out, exited };
}
