// `npm run bench:recovery` (issue 23, "Recovery in seconds after a crash"): how long the work of a server process
// killed with SIGKILL (kill -9) waits before another process resumes it, on the server as an operator runs it
// (`npm start`'s command, each process with its job workers), against 10 webhook receivers on loopback that
// answer 200 after --receiver-delay ms (1000: slow enough that most of the backlog is still pending when the
// contacts are all made; a receiver that held requests past the 10 s deadline would add retries a minute later)
// and watch every request:
//   1. --events N (60) contacts created through the API, each a `contact.created` delivered to the 10 endpoints:
//      600 deliveries, which the workers start sending at once (at most 5 in flight per endpoint);
//   2. once a quarter of the deliveries were answered, one process is killed (SIGKILL) mid-delivery; its attempts in flight
//      are cut (the receivers see their connections close before the answer: "cut short");
//   3. the bench times, from the kill: the last delivery cut short answered 200 again ("resumed"), and every
//      delivery answered 200 ("drained"); and checks that no delivery was ever in flight twice at once, that
//      every one was answered (and, on PostgreSQL, that the database holds each `succeeded`).
// Cases: PostgreSQL, two processes, one killed and not restarted (the other sees its heartbeat stop:
// server/jobs/liveness.ts); PostgreSQL, one of two killed and started again at once (a supervisor's restart: the
// starting process sees the killed one is gone); PGlite, its one process killed and started again (it owns its
// data directory). Goal: every case resumed within 30 s, nothing lost, no delivery twice at once.
//
// Flags: --events N (60), --receiver-delay N (1000 ms), --engine pglite|postgres|both (both), --timeline (answered
// by second since the kill), --no-kill (the same run without the kill: the delivery's own pace). SERVER_LOG_DIR
// keeps each server's log (scripts/lib/server-process.ts); LOG_LEVEL sets theirs (error).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createClient, type ApiClient } from '../../client/index.js';
import { check } from '../../examples/check.js';
import { freePort, sandboxServerEnv, startServerProcess, type ServerProcess } from '../lib/server-process.js';
import { argInt, engineOption, enginesToRun, ENGINE_LABEL, scratchPostgres, table, type EngineName } from './common.js';

const ENDPOINTS = 10;
const GOAL_S = 30;
const options = { events: argInt('events', 60), receiverDelay: argInt('receiver-delay', 1000) };
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** The 10 receivers, as one server with a path per endpoint. */
interface Receivers {
  url: string;
  /** (event, endpoint) answered 200. */
  answered: Set<string>;
  /** Answered 200, each with when (performance.now()). */
  answeredAt: Map<string, number>;
  /** (event, endpoint) whose request was cut before its answer, with when. */
  cut: Map<string, number>;
  /** Requests per (event, endpoint). */
  requests: Map<string, number>;
  /** (event, endpoint) seen in flight twice at once. */
  overlaps: Set<string>;
  inFlight(): number;
  close(): Promise<void>;
}

async function startReceivers(delayMs: number): Promise<Receivers> {
  const answered = new Set<string>();
  const answeredAt = new Map<string, number>();
  const cut = new Map<string, number>();
  const requests = new Map<string, number>();
  const overlaps = new Set<string>();
  const flying = new Map<string, number>();
  let inFlight = 0;
  const server: Server = createServer((req, res) => {
    const key = `${String(req.headers['service-event-id'])} ${req.url ?? ''}`;
    requests.set(key, (requests.get(key) ?? 0) + 1);
    const now = (flying.get(key) ?? 0) + 1;
    flying.set(key, now);
    if (now > 1) overlaps.add(key);
    inFlight += 1;
    let done = false;
    const leave = () => {
      if (done) return;
      done = true;
      inFlight -= 1;
      flying.set(key, (flying.get(key) ?? 1) - 1);
    };
    res.on('close', () => {
      if (!res.writableFinished) cut.set(key, performance.now());
      leave();
    });
    req.resume();
    setTimeout(() => {
      if (res.destroyed) return;
      res.writeHead(200).end('ok', () => {
        answered.add(key);
        answeredAt.set(key, performance.now());
      });
    }, delayMs);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    answered,
    answeredAt,
    cut,
    requests,
    overlaps,
    inFlight: () => inFlight,
    close: () => {
      server.closeAllConnections();
      return new Promise((ok) => server.close(() => ok()));
    },
  };
}

interface Case {
  engine: EngineName;
  label: string;
  /** Server processes started (PostgreSQL: 2; PGlite: 1, it owns its directory). */
  processes: number;
  /** Whether the killed process is started again at once. */
  restart: boolean;
}

interface Result {
  cutShort: number;
  /** From the kill to the restarted process answering /readyz (restart cases). */
  restartS: number | null;
  resumedS: number;
  drainedS: number;
  answered: number;
  expected: number;
  repeats: number;
  overlaps: number;
  databaseSucceeded: number | null;
}

/** A partner's client: on `429` it waits as `Retry-After` says, then asks again. */
async function polite<T extends { response: Response }>(call: () => Promise<T>): Promise<T> {
  for (;;) {
    const result = await call();
    if (result.response.status !== 429) return result;
    await sleep(Math.max(1, Number(result.response.headers.get('retry-after') ?? '1')) * 1000);
  }
}

async function runCase(c: Case, postgresBase: string): Promise<Result> {
  const receivers = await startReceivers(options.receiverDelay);
  const dirs: string[] = [];
  const scratch = c.engine === 'postgres' ? await scratchPostgres(postgresBase, 'ep_recovery') : undefined;
  const servers: { env: NodeJS.ProcessEnv; baseUrl: string; process: ServerProcess }[] = [];
  try {
    const adminToken = `recovery-${randomBytes(8).toString('hex')}`;
    for (let i = 0; i < c.processes; i++) {
      const port = await freePort();
      // Its own directory (media files, the demo key's file; PGlite's data): a restart keeps it.
      const dataDir = mkdtempSync(join(tmpdir(), 'ep-recovery-'));
      dirs.push(dataDir);
      const env = sandboxServerEnv({
        port,
        dataDir,
        adminToken,
        ...(scratch ? { databaseUrl: scratch.url } : {}),
        logLevel: process.env.LOG_LEVEL ?? 'error',
        extra: { WEBHOOK_PACE_PER_MINUTE: '0' },
      });
      const baseUrl = `http://127.0.0.1:${port}`;
      servers.push({ env, baseUrl, process: await startServerProcess(env, baseUrl) });
    }
    const first = servers[0]!;
    const api: ApiClient = createClient({ baseUrl: first.baseUrl, apiKey: first.process.apiKey });
    const connections = check(await api.GET('/v1/connections'), 'connections');
    const whatsapp = connections.data.find((x) => x.channel === 'whatsapp' && x.status === 'connected');
    if (!whatsapp) throw new Error('no whatsapp connection on the demo account');
    for (let e = 0; e < ENDPOINTS; e++)
      check(
        await api.POST('/v1/webhooks', {
          body: { url: `${receivers.url}/hook/${e}`, description: `recovery ${e}`, event_types: ['contact.created'] },
        }),
        'register an endpoint',
      );

    // The backlog, 8 writers at a time (through the first process: its API is up until the kill).
    const expected = options.events * ENDPOINTS;
    const stamp = Date.now() % 1_000_000;
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = next++; i < options.events; i = next++)
          check(
            await polite(() =>
              api.POST('/v1/contacts', {
                body: {
                  phone: `+5511${String(900_000_000 + stamp * 100 + i).slice(-9)}`,
                  name: `Recovery ${i}`,
                  connection_id: whatsapp.id,
                  consent: true,
                },
              }),
            ),
            'create a contact',
          );
      }),
    );

    // The kill, a quarter in, with attempts in flight.
    const quarter = Math.floor(expected / 4);
    const waitUntil = performance.now() + 120_000;
    while (receivers.answered.size < quarter || receivers.inFlight() < 5) {
      if (performance.now() > waitUntil) throw new Error(`no quarter answered: ${receivers.answered.size}`);
      await sleep(5);
    }
    const victim = servers[0]!;
    const killedAt = performance.now();
    // --no-kill: the same run without the kill, to tell the kill's cost from the delivery's own pace.
    const kill = !process.argv.includes('--no-kill');
    if (kill) victim.process.child.kill('SIGKILL');
    if (kill) await victim.process.exited;
    let restartS: number | null = null;
    if (c.restart && kill) {
      victim.process = await startServerProcess(victim.env, victim.baseUrl);
      restartS = (performance.now() - killedAt) / 1000;
    }

    const deadline = killedAt + 300_000;
    // Answered by each second after the kill (--timeline prints it).
    const timeline: number[] = [];
    while (receivers.answered.size < expected) {
      if (performance.now() > deadline) break;
      const second = Math.floor((performance.now() - killedAt) / 1000);
      timeline[second] = receivers.answered.size;
      await sleep(20);
    }
    if (process.argv.includes('--timeline'))
      process.stderr.write(`  answered by second since the kill: ${timeline.map((n) => n ?? '·').join(' ')}\n`);
    const drainedS = (performance.now() - killedAt) / 1000;
    // The deliveries cut short by the kill: when each was answered again.
    const cutByKill = [...receivers.cut].filter(([, at]) => at >= killedAt - 50 && at <= killedAt + 2000);
    const resumedAt = Math.max(killedAt, ...cutByKill.map(([key]) => receivers.answeredAt.get(key) ?? Infinity));
    let databaseSucceeded: number | null = null;
    if (scratch) {
      const client = new pg.Client({ connectionString: scratch.url });
      await client.connect();
      try {
        // The last answers' outcomes are being recorded: up to 10 s for the database to hold them.
        for (const until = performance.now() + 10_000; ; await sleep(100)) {
          const row = await client.query<{ n: string }>(
            `select count(*) as n from webhook_deliveries where status = 'succeeded'`,
          );
          databaseSucceeded = Number(row.rows[0]?.n ?? 0);
          if (databaseSucceeded >= expected || performance.now() > until) break;
        }
      } finally {
        await client.end();
      }
    }
    return {
      cutShort: cutByKill.length,
      restartS,
      resumedS: (resumedAt - killedAt) / 1000,
      drainedS,
      answered: receivers.answered.size,
      expected,
      repeats: [...receivers.requests.values()].reduce((sum, n) => sum + n - 1, 0),
      overlaps: receivers.overlaps.size,
      databaseSucceeded,
    };
  } finally {
    for (const s of servers) {
      s.process.child.kill('SIGTERM');
      const timer = setTimeout(() => s.process.child.kill('SIGKILL'), 10_000);
      await s.process.exited;
      clearTimeout(timer);
    }
    await receivers.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await scratch?.drop();
  }
}

const { engines, postgresBase, notes } = await enginesToRun(engineOption());
const cases: Case[] = [];
if (engines.includes('postgres'))
  cases.push(
    { engine: 'postgres', label: 'one of two killed, not restarted', processes: 2, restart: false },
    { engine: 'postgres', label: 'one of two killed, restarted at once', processes: 2, restart: true },
  );
if (engines.includes('pglite'))
  cases.push({ engine: 'pglite', label: 'its one process killed, restarted', processes: 1, restart: true });

const rows = [
  [
    'engine',
    'case',
    'cut short',
    'restarted',
    'resumed',
    'drained',
    'answered',
    'repeats',
    'twice at once',
    'db succeeded',
    'goal',
  ],
];
let failed = false;
for (const c of cases) {
  process.stderr.write(`${ENGINE_LABEL[c.engine]}: ${c.label}…\n`);
  const r = await runCase(c, postgresBase);
  const met =
    r.resumedS <= GOAL_S &&
    r.answered === r.expected &&
    r.overlaps === 0 &&
    (r.databaseSucceeded === null || r.databaseSucceeded === r.expected);
  if (!met) failed = true;
  rows.push([
    ENGINE_LABEL[c.engine],
    c.label,
    String(r.cutShort),
    r.restartS === null ? '—' : `${r.restartS.toFixed(1)} s`,
    `${r.resumedS.toFixed(1)} s`,
    `${r.drainedS.toFixed(1)} s`,
    `${r.answered}/${r.expected}`,
    String(r.repeats),
    String(r.overlaps),
    r.databaseSucceeded === null ? '—' : `${r.databaseSucceeded}/${r.expected}`,
    met ? 'met' : 'NOT met',
  ]);
}
console.log(
  `\nRecovery after kill -9: ${options.events} contacts × ${ENDPOINTS} endpoints, receivers answering in ${options.receiverDelay} ms; ` +
    `times from the kill (goal: resumed ≤ ${GOAL_S} s, nothing lost, no delivery twice at once)\n`,
);
console.log(table(rows));
for (const note of notes) console.log(note);
if (failed) process.exitCode = 1;
