// Startup that tells the truth (issue 23): each way a start can fail for a reason the operator fixes ends the
// real process (`npm start`'s command) with exit 2 and one message naming the setting or the path, and the way
// out, never a stack nor a server listening on nothing. Also the banner's warning when development conveniences
// are on and the server listens beyond loopback, and the readable log lines. The processes run concurrently, on a
// copy of the run's migrated database (test/global-setup.ts) where the test is not about the database: a start
// without PGlite's initdb and the migrations (the first start is process.test.ts's).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prettyLine, prettyLogs } from '../../server/logger.js';
import { scratchPostgres, withMigratedDatabase } from './npm-start.js';

const root = resolve(import.meta.dirname, '../..');
const startCommand = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } })
  .scripts.start;
const scratch = mkdtempSync(join(tmpdir(), 'ep-startup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(scratch, `data-${++dirs}`);
/** A DATA_DIR holding a copy of the run's migrated embedded database. */
const migratedDir = () => withMigratedDatabase(freshDir());

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `npm start` with these settings (none of the caller's), until it exits; or, given `whileUp`, until it has
 * printed its banner and `whileUp` (given what it printed so far) is done: then it is killed.
 */
function start(env: Record<string, string>, whileUp?: (stdout: () => string) => Promise<void>): Promise<Run> {
  const keep = Object.entries(process.env).filter(
    ([name]) =>
      !/^(DATABASE_URL|ADMIN_TOKEN|APP_ENV|PORT|HOST|DATA_DIR|PUBLIC_BASE_URL|LOG_FORMAT|SANDBOX_ENABLED|WEBHOOK_DEV_TARGETS|INVOKE_DEV_TARGETS)$/.test(
        name,
      ),
  );
  const [command, ...args] = startCommand.split(' ');
  const child = spawn(command === 'node' ? process.execPath : command!, args, {
    cwd: root,
    env: { ...Object.fromEntries(keep), HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let up = false;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (!whileUp || up || !/admin token: .+\n/.test(stdout)) return;
    up = true;
    void whileUp(() => stdout).finally(() => child.kill('SIGKILL'));
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Generous: these start side by side on a shared machine, each compiling the server with tsx.
  const killer = setTimeout(() => child.kill('SIGKILL'), 280_000);
  // 'close', not 'exit': 'exit' may come before the pipes have given up their last bytes (the message of exit 2).
  return new Promise((ok) =>
    child.on('close', (code) => {
      clearTimeout(killer);
      ok({ code, stdout, stderr });
    }),
  );
}

/** One request with the demo key the banner printed, then its request log line (whatever the format). */
async function logOneRequest(stdout: () => string): Promise<void> {
  const baseUrl = /listening on (http:\/\/\S+)/.exec(stdout())?.[1] ?? '';
  const apiKey = /demo API key \(every scope\): (\S+)/.exec(stdout())?.[1] ?? '';
  await fetch(`${baseUrl}/v1/me`, { headers: { Authorization: `Bearer ${apiKey}` } });
  // `route=/v1/me` (readable) or `"route":"/v1/me"` (JSON): not the banner's curl line.
  for (let i = 0; i < 100 && !/route\W+\/v1\/me/.test(stdout()); i++) await new Promise((ok) => setTimeout(ok, 100));
}

/** A port something else listens on, for the test's length. */
async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return { port: address.port, server };
}

/** A port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const { port, server } = await occupiedPort();
  await new Promise((ok) => server.close(ok));
  return port;
}

/** No stack trace: not a line `    at something (file:line)`. */
const stack = /^[ \t]+at .+/m;

describe.concurrent(
  'a start that cannot succeed: exit 2, one message naming the setting or the path',
  { timeout: 300_000 },
  () => {
    it('PORT already in use: `PORT <n> is in use`, the database closed (the data directory lock released)', async () => {
      const { port, server } = await occupiedPort();
      try {
        const dataDir = migratedDir();
        const run = await start({ DATA_DIR: dataDir, PORT: String(port) });
        expect(run.code).toBe(2);
        expect(run.stderr).toContain(`PORT ${port} is in use`);
        expect(run.stderr).not.toMatch(stack);
        expect(run.stdout).not.toContain('listening on');
        expect(existsSync(join(dataDir, 'pglite', '.lock'))).toBe(false);
      } finally {
        server.close();
      }
    });

    it('HOST that is not an address of this machine: named, exit 2', async () => {
      // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never a local address.
      const run = await start({ DATA_DIR: migratedDir(), HOST: '192.0.2.1' });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('HOST 192.0.2.1 is not an address of this machine');
      expect(run.stderr).not.toMatch(stack);
    });

    it('DATABASE_URL on a port where nothing listens: the setting, the host and port, what was tried; no stack', async () => {
      const port = await closedPort();
      const run = await start({
        DATA_DIR: freshDir(),
        DATABASE_URL: `postgres://ops:secret-pw@127.0.0.1:${port}/shop`,
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        `cannot open the database of DATABASE_URL: tried PostgreSQL at 127.0.0.1:${port}, database shop as user ops: ` +
          'connection refused',
      );
      expect(run.stderr).not.toContain('secret-pw');
      expect(run.stderr).not.toMatch(stack);
    });

    it.each([
      [
        'pg_control overwritten',
        (dir: string) => writeFileSync(join(dir, 'global', 'pg_control'), Buffer.alloc(8192, 7)),
      ],
      ['base/ removed', (dir: string) => rmSync(join(dir, 'base'), { recursive: true })],
    ])('a damaged embedded data directory (%s): the path and the way out', async (_, damage) => {
      const dataDir = migratedDir();
      const pgliteDir = join(dataDir, 'pglite');
      damage(pgliteDir);
      const run = await start({ DATA_DIR: dataDir });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`the embedded database in ${pgliteDir} cannot be opened`);
      expect(run.stderr).toContain(`Move it aside (mv ${pgliteDir} ${pgliteDir}.damaged)`);
      expect(run.stderr).toContain('a new embedded database is created, with a new demo account');
      expect(run.stderr).not.toMatch(stack);
      expect(existsSync(join(pgliteDir, '.lock'))).toBe(false);
    });

    it('DATA_DIR that is a file: the path and the way out', async () => {
      const file = join(scratch, 'not-a-directory');
      writeFileSync(file, 'x');
      const run = await start({ DATA_DIR: file });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`DATA_DIR ${file} cannot be used as the data directory: a file is in the way`);
      expect(run.stderr).toContain('Move the file aside, or set DATA_DIR');
      expect(run.stderr).not.toMatch(stack);
    });

    it('APP_ENV=production: every missing required setting in one message', async () => {
      const run = await start({ DATA_DIR: freshDir(), APP_ENV: 'production' });
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        [
          'invalid configuration:',
          '  DATABASE_URL: required when APP_ENV=production',
          '  ADMIN_TOKEN: required when APP_ENV=production',
          '  PUBLIC_BASE_URL: required when APP_ENV=production',
          '  CHANNEL_CREDENTIALS_KEY: required when APP_ENV=production (32 random bytes in base64: `openssl rand -base64 32`)',
          '',
        ].join('\n'),
      );
    });
  },
);

describe.concurrent('the banner on a non-loopback address, and readable logs', { timeout: 300_000 }, () => {
  it('warns in one line when a development convenience is on; LOG_FORMAT=pretty writes readable lines', async () => {
    const run = await start({ DATA_DIR: migratedDir(), HOST: '0.0.0.0', LOG_FORMAT: 'pretty' }, logOneRequest);
    const warnings = run.stdout.split('\n').filter((line) => line.includes('WARNING'));
    expect(warnings).toEqual([
      '  WARNING: listening on 0.0.0.0, not loopback, with development conveniences on (SANDBOX_ENABLED, ' +
        'WEBHOOK_DEV_TARGETS, INVOKE_DEV_TARGETS): set SANDBOX_ENABLED=false WEBHOOK_DEV_TARGETS=false ' +
        'INVOKE_DEV_TARGETS=false or HOST=127.0.0.1',
    ]);
    // The request's log line: `HH:MM:SS.mmm INFO  request … route=/v1/me …`, not JSON.
    expect(run.stdout).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}request .*route=\/v1\/me/m);
    expect(run.stdout).not.toContain('"msg"');
  });

  it('says nothing when they are off; JSON log lines when stdout is not a terminal', async () => {
    const run = await start(
      {
        DATA_DIR: migratedDir(),
        HOST: '0.0.0.0',
        SANDBOX_ENABLED: 'false',
        WEBHOOK_DEV_TARGETS: 'false',
        INVOKE_DEV_TARGETS: 'false',
      },
      logOneRequest,
    );
    expect(run.stdout).toContain('sandbox: off');
    expect(run.stdout).not.toContain('WARNING');
    expect(run.stdout).toMatch(/^\{.*"route":"\/v1\/me".*"msg":"request"\}$/m);
  });
});

describe.runIf(process.env.DATABASE_URL)('on PostgreSQL', { timeout: 300_000 }, () => {
  it('WEB_CONCURRENCY=2 with PORT in use: the processes say so and the service exits 2 (no respawn)', async () => {
    const database = await scratchPostgres('ep_test_startup', { migrated: true });
    const { port, server } = await occupiedPort();
    try {
      const run = await start({
        DATABASE_URL: database.url,
        DATA_DIR: freshDir(),
        PORT: String(port),
        WEB_CONCURRENCY: '2',
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`PORT ${port} is in use`);
      expect(run.stdout).not.toContain('listening on');
      expect(run.stdout).not.toContain('a server process ended: starting another');
    } finally {
      server.close();
      await database.drop();
    }
  });
});

describe('readable log lines', () => {
  it('LOG_FORMAT=auto: readable on a terminal outside production, JSON otherwise', () => {
    expect(prettyLogs('auto', 'development', true)).toBe(true);
    expect(prettyLogs('auto', 'development', false)).toBe(false);
    expect(prettyLogs('auto', 'production', true)).toBe(false);
    expect(prettyLogs('json', 'development', true)).toBe(false);
    expect(prettyLogs('pretty', 'production', false)).toBe(true);
  });

  it('one line: time, level, message, the other fields; an error stack indented below', () => {
    const time = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
    const line = JSON.stringify({ level: 40, time, pid: 1, hostname: 'h', msg: 'slow', route: '/v1/me', ms: 12 });
    expect(prettyLine(line)).toBe('03:04:05.678 WARN  slow route=/v1/me ms=12\n');
    const failed = JSON.stringify({
      level: 50,
      time,
      msg: 'failed',
      err: { message: 'boom', stack: 'Error: boom\n  at x' },
    });
    expect(prettyLine(failed)).toBe('03:04:05.678 ERROR failed\n    Error: boom\n      at x\n');
    expect(prettyLine('not json')).toBe('not json');
  });
});
