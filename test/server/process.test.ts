// The server as a process, started with the command of `npm start` on a fresh temporary DATA_DIR: what
// it prints, the printed key working, the data directory lock, a bad setting, and the graceful shutdown on
// SIGTERM (stop accepting, finish the requests in flight, cut the ones past the deadline, exit 0, release
// the lock), and an unhandled rejection or exception (logged with its request's id, the same drain, exit 1).
// With DATABASE_URL set, the shutdown is also checked on PostgreSQL.
//
// The groups run side by side, each its tests in order (`describe.concurrent` of `it.sequential`): most of the
// file's time is waiting (a drain's 10 s, a cluster's restarts a second apart) while another group starts its
// process. A start is mostly CPU, so at most STARTING_AT_ONCE processes start at a time. Only the first group
// starts on an empty DATA_DIR (the first start); the others on a copy of the run's migrated database.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../server/domain/accounts/keys.js';
import type { SchemaConnectionList, SchemaContact, SchemaMe, SchemaTag } from '../../generated/api.js';
import { scratchPostgres, withMigratedDatabase } from './npm-start.js';

const root = resolve(import.meta.dirname, '../..');
// `node --import tsx server/main.ts`: one process, so a SIGTERM reaches the server itself. (The tsx CLI runs
// the script in a child and kills it when it has not acknowledged a relayed signal within 30 ms: a server
// busy for longer, compiling the spec at start or in a PGlite query, would be killed with no shutdown.)
const startCommand = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } })
  .scripts.start;
const conversationId = '0b6e1d2c-5f7a-4c1e-9a53-2f1d8f4b7c10';
/** Loaded into the server with `--import`: a request with `x-test-crash` leaves a rejection or exception. */
const CRASH_FIXTURE = './test/fixtures/crash-on-request.ts';
/** Server processes of this file starting at a time (from spawn to the banner or the exit): the machine has 2 cores. */
const STARTING_AT_ONCE = 2;
/** How long a process may take to print what a test waits for: generous, the machine runs other tests too. */
const OUTPUT_WITHIN_MS = 120_000;

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

let starting = 0;
const waitingToStart: (() => void)[] = [];

/** A place among the processes starting now; the returned function gives it back (once). */
async function startSlot(): Promise<() => void> {
  while (starting >= STARTING_AT_ONCE) await new Promise<void>((ok) => waitingToStart.push(ok));
  starting += 1;
  let given = false;
  return () => {
    if (given) return;
    given = true;
    starting -= 1;
    waitingToStart.shift()?.();
  };
}

/**
 * `npm start` with these settings, once fewer than STARTING_AT_ONCE others are starting; the caller's DATABASE_URL,
 * ADMIN_TOKEN… never leak into it. `imports`: more modules node loads before the server (`--import`).
 */
async function startServer(env: Record<string, string>, imports: string[] = []): Promise<Started> {
  const started = await startSlot();
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        !['DATABASE_URL', 'ADMIN_TOKEN', 'APP_ENV', 'PORT', 'HOST', 'DATA_DIR', 'PUBLIC_BASE_URL'].includes(name),
    ),
  );
  const [command, ...args] = startCommand.split(' ');
  args.splice(-1, 0, ...imports.flatMap((file) => ['--import', file]));
  const child = spawn(command === 'node' ? process.execPath : command!, args, {
    cwd: root,
    env: { ...base, HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (/admin token: .+\n/.test(out)) started();
  });
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  // 'close': after the pipes' last bytes ('exit' may come first).
  const exited = new Promise<number | null>((ok) =>
    child.on('close', (code) => {
      started();
      ok(code);
    }),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function waitFor<T>(
  what: string,
  probe: () => T | undefined,
  started: Started,
  ms = OUTPUT_WITHIN_MS,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (started.child.exitCode !== null)
      throw new Error(
        `server exited (${started.child.exitCode}) before ${what}:\n${started.stdout()}${started.stderr()}`,
      );
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}:\n${started.stdout()}${started.stderr()}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

const bannerUrl = (s: Started) => /listening on (http:\/\/\S+)/.exec(s.stdout())?.[1];

/** A request whose body arrives in two parts: the first now, the second when `finish()` is called. */
function slowRequest(baseUrl: string, apiKey: string) {
  const url = new URL(baseUrl);
  const body = JSON.stringify({ text: 'Sent while the server stops' });
  const socket: Socket = connect(Number(url.port), url.hostname);
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
  socket.on('error', () => {});
  const closed = new Promise<void>((ok) => socket.on('close', () => ok()));
  socket.write(
    [
      `POST /v1/conversations/${conversationId}/messages HTTP/1.1`,
      `Host: ${url.host}`,
      `Authorization: Bearer ${apiKey}`,
      'Content-Type: application/json',
      `Idempotency-Key: shutdown-${randomBytes(4).toString('hex')}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      '',
      body.slice(0, 10),
    ].join('\r\n'),
  );
  return {
    finish: () => socket.write(body.slice(10)),
    answer: () => answer,
    closed,
  };
}

describe.concurrent('the server process, embedded', () => {
  let dataDir: string;
  let server: Started;
  let baseUrl: string;
  let apiKey: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ep-process-'));
    server = await startServer({ DATA_DIR: dataDir });
    await waitFor('the banner', () => (/admin token: .+\n/.test(server.stdout()) ? true : undefined), server);
    baseUrl = bannerUrl(server)!;
    apiKey = /demo API key \(every scope\): (\S+)/.exec(server.stdout())![1]!;
  }, 300_000);

  afterAll(async () => {
    if (server?.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.sequential('is started by `npm start` as one node process (signals reach the server)', () => {
    expect(startCommand).toBe('node --import tsx server/main.ts');
  });

  it.sequential(
    'prints the base URL, the docs hint, a demo key with every scope and where the admin token is',
    async () => {
      const out = server.stdout();
      expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(out).toContain('npm run docs');
      expect(apiKey).toMatch(/^epk_[A-Za-z0-9]{46}$/);
      expect(out).toContain(`admin token: ${join(dataDir, 'admin-token')}`);
      expect(existsSync(join(dataDir, 'admin-token'))).toBe(true);
      // Embedded development: the sandbox is on and webhooks may go to a receiver on this machine.
      expect(out).toContain(`sandbox: on (act as contacts and channels: ${baseUrl}/admin/v1/sandbox/…)`);
      expect(out).toContain('webhook receivers: http and loopback allowed (WEBHOOK_DEV_TARGETS)');
      // The console's ready link: the admin token in the fragment (never sent to a server), the demo account too.
      const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
      const link = new RegExp(`console: (${baseUrl}/console)#token=([^&\\s]+)&account=([0-9a-f-]{36})\\n`).exec(out);
      expect(link?.[2]).toBe(encodeURIComponent(token));
      expect((await fetch(link?.[1] ?? `${baseUrl}/console`)).status).toBe(200);

      const res = await fetch(`${baseUrl}/v1/me`, { headers: { Authorization: `Bearer ${apiKey}` } });
      expect(res.status).toBe(200);
      const me = (await res.json()) as SchemaMe;
      expect([...me.api_key.scopes].sort()).toEqual([...SCOPES].sort());
      expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
    },
  );

  it.sequential(
    'refuses to open a data directory another process holds: exit non-zero with a clear message',
    async () => {
      const second = await startServer({ DATA_DIR: dataDir });
      const code = await second.exited;
      expect(code).not.toBe(0);
      expect(second.stderr()).toMatch(/data directory .* is in use by process \d+/);
      // The first server is untouched.
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    },
    300_000,
  );

  it.sequential(
    'on SIGTERM stops accepting, finishes the request in flight, cuts one past the deadline, exits 0 and ' +
      'releases the lock',
    async () => {
      const inFlight = slowRequest(baseUrl, apiKey);
      const stuck = slowRequest(baseUrl, apiKey);
      await new Promise((ok) => setTimeout(ok, 300)); // the server has both requests' headers
      const signalled = Date.now();
      server.child.kill('SIGTERM');
      // The drain began (its first line is logged just before the server stops listening, in the same turn).
      await waitFor('the drain', () => (/"msg":"shutting down: /.test(server.stdout()) ? true : undefined), server);

      // Stopped accepting, still running for the requests in flight.
      await expect(fetch(`${baseUrl}/healthz`)).rejects.toThrow();
      expect(server.child.exitCode).toBeNull();

      inFlight.finish();
      await inFlight.closed;
      // A whole answer of the pipeline (501 until sends land), not a cut connection or a 500.
      expect(inFlight.answer()).toMatch(/^HTTP\/1\.1 (?!500)\d{3} [\s\S]*\r\n\r\n\{[\s\S]*\}$/);
      expect(inFlight.answer()).toMatch(/x-request-id: [0-9a-f-]{36}/i);
      expect(server.child.exitCode).toBeNull(); // the stuck request holds it, until the deadline

      await stuck.closed; // cut at the deadline, never answered
      expect(stuck.answer()).toBe('');
      expect(await server.exited).toBe(0);
      expect(Date.now() - signalled).toBeGreaterThanOrEqual(9_000);
      expect(existsSync(join(dataDir, 'pglite', '.lock'))).toBe(false);
      expect(server.stdout()).toMatch(/"msg":"stopped"/);
    },
    120_000,
  );
});

describe.concurrent('the server process, on an unhandled rejection or exception', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = withMigratedDatabase(mkdtempSync(join(tmpdir(), 'ep-process-')));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it.sequential.each(['rejection', 'exception'])(
    'an unhandled %s is logged with its request id; the request in flight is finished; exit 1',
    async (crash) => {
      const server = await startServer({ DATA_DIR: dataDir }, [CRASH_FIXTURE]);
      try {
        await waitFor('the banner', () => (/admin token: .+\n/.test(server.stdout()) ? true : undefined), server);
        const baseUrl = bannerUrl(server)!;
        const apiKey = /demo API key \(every scope\): (\S+)/.exec(server.stdout())![1]!;
        const inFlight = slowRequest(baseUrl, apiKey);
        await new Promise((ok) => setTimeout(ok, 300)); // the server has its headers

        // Through the whole pipeline (body, key, database) to the handler's answer, where the fixture fails.
        const res = await fetch(`${baseUrl}/v1/tags`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', 'x-test-crash': crash },
          body: JSON.stringify({ name: `Crash ${crash} ${randomBytes(3).toString('hex')}` }),
        });
        expect(res.status).toBe(201);
        const requestId = res.headers.get('x-request-id');
        const fatal = await waitFor(
          'the fatal log line',
          () =>
            server
              .stdout()
              .split('\n')
              .find((line) => line.includes('"level":60')),
          server,
        );
        expect(JSON.parse(fatal)).toMatchObject({
          msg: `${crash === 'rejection' ? 'unhandled rejection' : 'uncaught exception'}: exiting`,
          request_id: requestId,
          err: { message: expect.stringMatching(/^test crash: /) },
        });

        // Draining: no new connection, the request in flight still answered.
        await expect(fetch(`${baseUrl}/healthz`)).rejects.toThrow();
        inFlight.finish();
        await inFlight.closed;
        expect(inFlight.answer()).toMatch(/^HTTP\/1\.1 (?!500)\d{3} [\s\S]*\r\n\r\n\{[\s\S]*\}$/);
        expect(await server.exited).toBe(1);
        expect(server.stdout()).toMatch(/"exit_code":1,"msg":"stopped"/);
        expect(existsSync(join(dataDir, 'pglite', '.lock'))).toBe(false);
      } finally {
        if (server.child.exitCode === null) {
          server.child.kill('SIGKILL');
          await server.exited;
        }
      }
    },
    300_000,
  );
});

describe.concurrent('the server process, start-up errors', () => {
  it.sequential(
    'exits non-zero naming the setting when a setting is invalid',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'ep-process-'));
      try {
        const bad = await startServer({ DATA_DIR: dataDir, PORT: 'abc' });
        expect(await bad.exited).not.toBe(0);
        expect(bad.stderr()).toMatch(/invalid configuration:\s+PORT:/);
        expect(bad.stdout()).not.toContain('listening');
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    300_000,
  );
});

/**
 * A PostgreSQL database and a DATA_DIR of their own for `run`, dropped and removed after it. `migrated`: a copy of
 * the run's migrated database, else an empty one (the server migrates it, as on a first start).
 */
async function withScratchPostgres(
  options: { migrated: boolean },
  run: (url: string, dataDir: string) => Promise<void>,
): Promise<void> {
  const database = await scratchPostgres('ep_test_process', options);
  const dataDir = mkdtempSync(join(tmpdir(), 'ep-process-'));
  try {
    await run(database.url, dataDir);
  } finally {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// Two groups on PostgreSQL (the same name: one story), side by side with the others. The first start on an
// empty database is the first test's; the others start on a copy of the run's migrated database.
const onPostgres = { concurrent: true } as const;

describe.runIf(process.env.DATABASE_URL)('the server process, on PostgreSQL', onPostgres, () => {
  it.sequential(
    'serves, then on SIGTERM exits 0',
    async () => {
      await withScratchPostgres({ migrated: false }, async (url, dataDir) => {
        // A DATA_DIR that does not exist yet, as on a fresh clone (only the admin token goes there).
        const server = await startServer({ DATABASE_URL: url, DATA_DIR: join(dataDir, 'fresh') });
        const baseUrl = await waitFor('the banner', () => bannerUrl(server), server);
        expect(server.stdout()).toContain('PostgreSQL');
        expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
        server.child.kill('SIGTERM');
        expect(await server.exited).toBe(0);
      });
    },
    300_000,
  );

  it.sequential(
    'on SIGTERM ends within its drain time though a request waits on a row lock held outside',
    async () => {
      await withScratchPostgres({ migrated: true }, async (url, dataDir) => {
        const server = await startServer({ DATABASE_URL: url, DATA_DIR: dataDir, REQUEST_DEADLINE_MS: '120000' });
        const baseUrl = await waitFor('the banner', () => bannerUrl(server), server);
        const apiKey = /demo API key \(every scope\): (\S+)/.exec(server.stdout())![1]!;
        const api = (method: string, path: string, body?: unknown) =>
          fetch(`${baseUrl}${path}`, {
            method,
            headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
            ...(body ? { body: JSON.stringify(body) } : {}),
          });
        const connections = (await (await api('GET', '/v1/connections')).json()) as SchemaConnectionList;
        const whatsapp = connections.data.find((connection) => connection.channel === 'whatsapp')!;
        const contact = (await (
          await api('POST', '/v1/contacts', {
            phone: '+5511987650002',
            name: 'Ana',
            connection_id: whatsapp.id,
            consent: true,
          })
        ).json()) as SchemaContact;
        const tag = (await (await api('POST', '/v1/tags', { name: 'Stuck' })).json()) as SchemaTag;
        // Another session holds the contact's row for the whole test: the request below waits on it.
        const outside = new pg.Client({ connectionString: url });
        await outside.connect();
        try {
          await outside.query('begin');
          await outside.query('select id from contacts where id = $1 for update', [contact.id]);
          const stuck = api('PUT', `/v1/contacts/${contact.id}/tags/${tag.id}`).catch(() => undefined);
          await new Promise((ok) => setTimeout(ok, 500));
          const stopping = Date.now();
          server.child.kill('SIGTERM');
          expect(await server.exited).toBe(0);
          // 10 s for the requests in flight, then they are expired and their statements cancelled.
          expect(Date.now() - stopping).toBeLessThan(14_000);
          await stuck;
        } finally {
          await outside.query('rollback').catch(() => {});
          await outside.end();
        }
      });
    },
    300_000,
  );

  it.sequential(
    'refuses WEB_CONCURRENCY above 1 on an embedded database',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'ep-process-'));
      try {
        const server = await startServer({ DATA_DIR: dataDir, WEB_CONCURRENCY: '2' });
        expect(await server.exited).toBe(2);
        expect(server.stderr()).toContain('WEB_CONCURRENCY');
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    300_000,
  );
});

describe.runIf(process.env.DATABASE_URL)('the server process, on PostgreSQL', onPostgres, () => {
  it.sequential(
    "runs WEB_CONCURRENCY server processes that share one account's limits, and stops them all on SIGTERM",
    async () => {
      await withScratchPostgres({ migrated: true }, async (url, dataDir) => {
        const server = await startServer({ DATABASE_URL: url, DATA_DIR: dataDir, WEB_CONCURRENCY: '2' });
        const baseUrl = await waitFor('the banner', () => bannerUrl(server), server);
        expect(server.stdout()).toContain('2 API processes (WEB_CONCURRENCY)');
        const apiKey = /demo API key \(every scope\): (\S+)/.exec(server.stdout())![1]!;
        // The banner comes with the first process listening: the second may still be starting (the machine is busy).
        await waitFor(
          'both processes listening',
          () => (/"serving":2/.test(server.stdout()) ? true : undefined),
          server,
        );
        // 130 reads at once in one minute (started just after a minute turns, so the window cannot change midway):
        // whichever process answers, exactly 120 pass.
        const second = Date.now() % 60_000;
        if (second > 50_000) await new Promise((ok) => setTimeout(ok, 60_500 - second));
        const answers = await Promise.all(
          Array.from({ length: 130 }, () =>
            fetch(`${baseUrl}/v1/me`, { headers: { Authorization: `Bearer ${apiKey}` } }).then((r) => r.status),
          ),
        );
        expect(answers.filter((s) => s === 200)).toHaveLength(120);
        expect(answers.filter((s) => s === 429)).toHaveLength(10);
        // Both processes served: the request log lines carry two process ids.
        await new Promise((ok) => setTimeout(ok, 200));
        const pids = new Set(
          server
            .stdout()
            .split('\n')
            .filter((line) => line.includes('"route":"/v1/me"'))
            .map((line) => (JSON.parse(line) as { pid: number }).pid),
        );
        expect(pids.size).toBe(2);
        server.child.kill('SIGTERM');
        expect(await server.exited).toBe(0);
      });
    },
    300_000,
  );

  it.sequential(
    'gives up, exit 1, when its server processes keep ending before they serve (no respawn for ever)',
    async () => {
      await withScratchPostgres({ migrated: true }, async (url, dataDir) => {
        const server = await startServer({ DATABASE_URL: url, DATA_DIR: dataDir, WEB_CONCURRENCY: '2' }, [
          './test/fixtures/worker-fails-at-start.ts',
        ]);
        expect(await server.exited).toBe(1);
        expect(server.stdout()).toContain('server processes keep ending before they serve: giving up');
      });
    },
    300_000,
  );
});
