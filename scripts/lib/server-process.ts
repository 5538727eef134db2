// The server as an operator runs it, for the checks and benches that kill and restart it: `npm start`'s command
// (`node --import tsx server/main.ts`) in a process of its own, on a port chosen here.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { repoRoot } from './root.js';

export interface ServerProcess {
  child: ChildProcess;
  /** The demo account's API key the start printed. */
  apiKey: string;
  exited: Promise<void>;
}

/** A loopback port free now. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  const { port } = s.address() as AddressInfo;
  await new Promise((ok) => s.close(ok));
  return port;
}

/**
 * The environment of a development server with the sandbox on, on `port` with its own `dataDir`: the embedded
 * database (the shell's DATABASE_URL is dropped: pass `databaseUrl` to use one), webhooks to loopback allowed.
 */
export function sandboxServerEnv(options: {
  port: number;
  dataDir: string;
  adminToken: string;
  databaseUrl?: string;
  logLevel?: string;
  extra?: NodeJS.ProcessEnv;
}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(options.port),
    DATA_DIR: options.dataDir,
    ADMIN_TOKEN: options.adminToken,
    APP_ENV: 'development',
    SANDBOX_ENABLED: 'true',
    WEBHOOK_DEV_TARGETS: 'true',
    LOG_LEVEL: options.logLevel ?? 'warn',
    ...options.extra,
  };
  delete env.DATABASE_URL;
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  return env;
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/**
 * `npm start`'s command, on `env`; resolves once it printed its demo key and answers /readyz. With
 * SERVER_LOG_DIR set (in this process's environment), each server's output also goes to `<dir>/<pid>.log`;
 * SERVER_NODE_ARGS (space-separated) go to its node first, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (which
 * NODE_OPTIONS refuses): a profile is written when the server ends on SIGTERM, not on a kill -9.
 */
export async function startServerProcess(env: NodeJS.ProcessEnv, baseUrl: string): Promise<ServerProcess> {
  const nodeArgs = (process.env.SERVER_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'server/main.ts'], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const logDir = process.env.SERVER_LOG_DIR;
  const keep = (d: Buffer) => {
    out += d.toString();
    if (logDir) appendFileSync(join(logDir, `${child.pid}.log`), d);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const key = /demo API key \(every scope\): (epk_\S+)/.exec(out)?.[1];
    if (key) {
      const ready = await fetch(`${baseUrl}/readyz`)
        .then((r) => r.ok)
        .catch(() => false);
      if (ready) return { child, apiKey: key, exited };
    }
    if (child.exitCode !== null) throw new Error(`the server exited ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`the server did not start:\n${out}`);
    await sleep(200);
  }
}
