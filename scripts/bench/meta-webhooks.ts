// What the benches of Meta's channels share (`npm run bench:whatsapp`, `npm run bench:instagram`): the server as an
// operator runs it (`npm start`'s command, its job workers in the same process, or beside it with
// --worker-processes) against the fake Graph API on loopback, on PGlite (a temporary DATA_DIR) or PostgreSQL (a
// scratch database, created and dropped); signed webhook payloads POSTed at a pace by keep-alive clients; the
// backlog of jobs; and the three measures each channel runs, printed as tables:
//   1. acknowledgment: the contacts write once (and are applied), then signed payloads at --rate per second for
//      --seconds by --clients clients: payloads/s acknowledged, the 200's p50/p95/p99 timed from each payload's
//      planned send (goal ≥ 500/s with p99 ≤ 100 ms), the backlog when the load ends and how long until applied;
//   2. replies: payloads that an automation answers, at a rate; per payload, the time from its webhook POST to the
//      reply's arrival at the fake (the channel says how a reply is matched to its payload);
//   3. nothing lost: --crash-payloads payloads as fast as the server acknowledges them (at most 900/s), the server
//      killed (SIGKILL) right after the last 200, started again on the same data; once the backlog is gone, each
//      acknowledged message id must be exactly one inbound message.
// PostgreSQL's jobs and messages are queried while the server runs. PGlite's directory belongs to the server
// process: there the backlog is read from /metrics and the messages are counted once the server has stopped.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { loadavg, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import type { DB } from '../../server/store/schema.js';
import type { Database } from '../../server/store/database.js';
import { signature256, startFakeMeta, type FakeMeta } from '../../test/fakes/meta/index.js';
import { freePort, sandboxServerEnv, startServerProcess, type ServerProcess } from '../lib/server-process.js';
import {
  argInt,
  ENGINE_LABEL,
  engineOption,
  enginesToRun,
  fmt,
  quantile,
  scratchPostgres,
  table,
  type EngineName,
} from './common.js';

export const options = {
  rate: argInt('rate', 500),
  seconds: argInt('seconds', 20),
  clients: argInt('clients', 16),
  contacts: argInt('contacts', 100),
  replyRate: argInt('reply-rate', 50),
  crashPayloads: argInt('crash-payloads', 2000, 0),
  /** PostgreSQL: the API process with WORKERS=false beside this many server processes running the jobs (0: one process). */
  workerProcesses: argInt('worker-processes', 0, 0),
  /** The worker processes' OS priority (nice, 0–19): the apply yields the CPU to the intake while both want it. */
  workerNice: argInt('worker-nice', 0, 0),
  /** 0 skips 2. (the replies). */
  replies: argInt('replies', 1, 0),
};
const APP_SECRET = `bench-app-secret-${randomBytes(8).toString('hex')}`;
export const ADMIN_TOKEN = `bench-admin-${randomBytes(12).toString('hex')}`;
const CHANNEL_WEBHOOK_JOB = 'channels.webhook';
// Issue 35's goal at its rate (500/s), issue 37's from 1,000/s offered (`npm run bench` offers 1,000/s).
const ACK_GOAL = options.rate >= 1000 ? { rate: 1000, p99: 50, issue: 37 } : { rate: 500, p99: 100, issue: 35 };

export const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
const ms1 = (n: number) => n.toFixed(1);
const seconds1 = (n: number) => `${n.toFixed(1)} s`;

// ---------------------------------------------------------------------------------------------------------
// Payloads and the load
// ---------------------------------------------------------------------------------------------------------
/** A payload as Meta writes it, signed in advance: the load measures the server, not the signing. */
export interface Signed {
  bytes: Buffer;
  signature: string;
  /** The message id the server stores it under (a wamid, a mid, a comment's id). */
  id: string;
  /** What its reply is matched by (a phone's digits, an IGSID, a comment's id). */
  key: string;
}

/** `json` (Meta's serialization of the payload) signed under the bench's app secret. */
export function signedJson(json: string, id: string, key: string): Signed {
  const bytes = Buffer.from(json, 'utf8');
  return { bytes, signature: signature256(APP_SECRET, bytes), id, key };
}

/** One signed POST on a keep-alive connection of `agent`; resolves with the status. */
function post(agent: Agent, url: URL, payload: Signed): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        agent,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(payload.bytes.length),
          'user-agent': 'facebookexternalua',
          'x-hub-signature-256': payload.signature,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload.bytes);
  });
}

interface SendResult {
  /** Per payload (by index): ms from its planned send to its 200 (NaN: never acknowledged). */
  latencies: number[];
  /** Per payload: ms from its (last) POST to its 200, the server's answer alone. */
  service: number[];
  /** Per payload: Date.now() when its (first) POST started. */
  postedAt: number[];
  /** Answers other than 200 (and connection errors). */
  failures: number;
  /** The failures by status (0: the connection failed). */
  statuses: Map<number, number>;
  /** Payloads acknowledged with 200. */
  acked: number;
  /** From the first planned send to the last 200. */
  seconds: number;
}

/**
 * POSTs `payloads` from `clients` keep-alive clients, in order: at `rate` per second (each payload planned at
 * i/rate s; a client that is late sends at once) or, with `rate` null, as fast as the server answers. With
 * `retries`, a payload answered other than 200 is sent again 100 ms later, as Meta would (later).
 */
async function sendAll(
  url: URL,
  payloads: readonly Signed[],
  pace: { rate: number | null; clients: number; retries?: number; label: string },
): Promise<SendResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: pace.clients });
  const latencies = payloads.map(() => Number.NaN);
  const service = payloads.map(() => Number.NaN);
  const postedAt = payloads.map(() => 0);
  let failures = 0;
  const statuses = new Map<number, number>();
  let acked = 0;
  let next = 0;
  let lastAck = 0;
  const t0 = performance.now() + 20;
  const progress = setInterval(
    () => process.stderr.write(`  ${pace.label}: ${fmt(acked)}/${fmt(payloads.length)}\n`),
    5000,
  );
  const client = async () => {
    for (let i = next++; i < payloads.length; i = next++) {
      const planned = pace.rate === null ? performance.now() : t0 + (i * 1000) / pace.rate;
      const wait = planned - performance.now();
      if (wait > 0) await sleep(wait);
      for (let attempt = 0; attempt <= (pace.retries ?? 0); attempt++) {
        if (attempt === 0) postedAt[i] = Date.now();
        else await sleep(100);
        const posted = performance.now();
        const status = await post(agent, url, payloads[i]!).catch(() => 0);
        if (status === 200) {
          lastAck = performance.now();
          latencies[i] = lastAck - planned;
          service[i] = lastAck - posted;
          acked += 1;
          break;
        }
        failures += 1;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: pace.clients }, client));
  } finally {
    clearInterval(progress);
    agent.destroy();
  }
  return { latencies, service, postedAt, failures, statuses, acked, seconds: (lastAck - t0) / 1000 };
}

const sortedOf = (values: readonly number[]) => values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
const percentiles = (sorted: readonly number[]) =>
  sorted.length === 0
    ? '—'
    : `${ms1(quantile(sorted, 0.5))} / ${ms1(quantile(sorted, 0.95))} / ${ms1(quantile(sorted, 0.99))}`;

// ---------------------------------------------------------------------------------------------------------
// The server, its database, its backlog
// ---------------------------------------------------------------------------------------------------------
interface Running {
  engine: EngineName;
  env: NodeJS.ProcessEnv;
  baseUrl: string;
  webhookUrl: URL;
  server: ServerProcess;
  /** `--worker-processes`: server processes on the same database running the jobs (the API process runs none). */
  workers: { env: NodeJS.ProcessEnv; baseUrl: string; server?: ServerProcess }[];
  dataDir: string;
  /** PostgreSQL only: the parent's own connection to the scratch database. */
  database: Database | undefined;
}

/**
 * `webhook`: the `channels.webhook` jobs left (PostgreSQL; on PGlite, as `all`); `all`: the jobs due or running of
 * every kind (/metrics: the contacts' message jobs and the automations' runs the payloads made too).
 */
async function backlog(run: Running, scope: 'webhook' | 'all'): Promise<number> {
  if (run.database && scope === 'webhook') {
    const row = await run.database.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('kind', '=', CHANNEL_WEBHOOK_JOB)
      .where('failed_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
  const text = await (await fetch(`${run.baseUrl}/metrics`)).text();
  let n = 0;
  for (const match of text.matchAll(/^jobs\{state="(due|running)"\} (\d+)$/gm)) n += Number(match[2]);
  return n;
}

/** When (performance.now()) the backlog was first seen 0 (then once more, a poll later), or null after `limitMs`. */
async function waitDrained(run: Running, scope: 'webhook' | 'all', limitMs = 600_000): Promise<number | null> {
  const t0 = performance.now();
  const every = run.database && scope === 'webhook' ? 250 : 1000;
  let firstZero: number | null = null;
  while (performance.now() - t0 < limitMs) {
    const seen = performance.now();
    if ((await backlog(run, scope)) > 0) firstZero = null;
    else if (firstZero === null) firstZero = seen;
    else return firstZero;
    await sleep(every);
  }
  return null;
}

const secondsSince = (t0: number, at: number | null) => (at === null ? null : (at - t0) / 1000);

/** The server's own time for the webhook's 200s (/metrics): the share answered within 25 ms and within 100 ms. */
async function serverSideAck(run: Running): Promise<string> {
  const text = await (await fetch(`${run.baseUrl}/metrics`)).text();
  const bucket = (le: string) => {
    // The webhook route labels its own series (channel-webhooks.ts).
    for (const line of text.split('\n'))
      if (
        line.startsWith('http_request_duration_seconds_bucket{') &&
        line.includes(`le="${le}"`) &&
        line.includes('method="POST"') &&
        line.includes(`route="${run.webhookUrl.pathname}"`) &&
        line.includes('status="200"')
      )
        return Number(line.slice(line.lastIndexOf(' ') + 1));
    return 0;
  };
  const all = bucket('+Inf');
  if (all === 0) return '—';
  return `${((bucket('0.025') / all) * 100).toFixed(1)}% ≤ 25 ms, ${((bucket('0.1') / all) * 100).toFixed(2)}% ≤ 100 ms`;
}

/** The API process's counters (/metrics): its CPU, and its round trips to the database for requests and for jobs. */
interface Counters {
  cpuSeconds: number;
  requestTrips: number;
  jobTrips: number;
}

async function counters(run: Running): Promise<Counters> {
  const text = await (await fetch(`${run.baseUrl}/metrics`)).text();
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
  let jobTrips = 0;
  for (const [, n] of text.matchAll(/^db_round_trips_total\{work="job:[^"]+"\} (\d+)$/gm)) jobTrips += Number(n);
  return {
    cpuSeconds: value(/^process_cpu_seconds_total (\S+)$/m),
    requestTrips: value(/^db_round_trips_total\{work="request"\} (\d+)$/m),
    jobTrips,
  };
}

/** Inbound messages of `connectionId` per provider message id. */
async function inboundPerId(db: Kysely<DB>, connectionId: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('messages')
    .select(['provider_message_id', (eb) => eb.fn.countAll<string>().as('n')])
    .where('connection_id', '=', connectionId)
    .where('direction', '=', 'inbound')
    .groupBy('provider_message_id')
    .execute();
  return new Map(rows.map((r) => [r.provider_message_id ?? '', Number(r.n)]));
}

/** How `ids` came out: recorded exactly once, missing, recorded more than once. */
function tally(perId: Map<string, number>, ids: readonly string[]) {
  let once = 0;
  let missing = 0;
  let duplicated = 0;
  for (const id of ids) {
    const n = perId.get(id) ?? 0;
    if (n === 0) missing += 1;
    else if (n === 1) once += 1;
    else duplicated += 1;
  }
  return { once, missing, duplicated, expected: ids.length };
}
type Tally = ReturnType<typeof tally>;

// ---------------------------------------------------------------------------------------------------------
// The account, through the admin API and the public API
// ---------------------------------------------------------------------------------------------------------
async function callJson(baseUrl: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  const parsed: unknown = JSON.parse(text);
  return parsed;
}

export const idOf = (value: unknown, what: string): string => {
  if (typeof value === 'object' && value !== null && 'id' in value && typeof value.id === 'string') return value.id;
  throw new Error(`${what}: no id in ${JSON.stringify(value)}`);
};

const secretOf = (value: unknown): string => {
  if (typeof value === 'object' && value !== null && 'secret' in value && typeof value.secret === 'string')
    return value.secret;
  throw new Error(`an API key: no secret in ${JSON.stringify(value)}`);
};

type Call = (method: string, path: string, body?: unknown) => Promise<unknown>;

/**
 * A new account (named `name`) with an API key that may write and publish automations: `admin` calls the admin API
 * (`/admin/v1` + path), `api` the public API with the key.
 */
export async function benchAccount(
  baseUrl: string,
  name: string,
): Promise<{ accountId: string; admin: Call; api: Call }> {
  const admin: Call = (method, path, body) => callJson(baseUrl, ADMIN_TOKEN, method, `/admin/v1${path}`, body);
  const alias = `bench-${randomBytes(4).toString('hex')}`;
  const accountId = idOf(await admin('POST', '/accounts', { name, alias }), 'an account');
  const key = secretOf(
    await admin('POST', `/accounts/${accountId}/keys`, {
      name: 'bench',
      scopes: ['workflows:read', 'workflows:write', 'workflows:publish'],
      validity_days: 30,
    }),
  );
  return { accountId, admin, api: (method, path, body) => callJson(baseUrl, key, method, path, body) };
}

/** An automation on `connectionId` whose trigger is `trigger` and whose one block sends `text`, published. */
export async function publishReply(
  api: Call,
  channel: { type: 'whatsapp' | 'instagram'; connection_id: string },
  title: string,
  trigger: Record<string, unknown>,
  text: string,
): Promise<void> {
  const workflowId = idOf(
    await api('POST', '/v1/workflows', {
      title,
      channel,
      trigger,
      graph: {
        nodes: {
          root: { type: 'root', data: { next: ['reply'] } },
          reply: { type: 'message', data: { text, next: [null] } },
        },
      },
    }),
    'an automation',
  );
  await api('POST', `/v1/workflows/${workflowId}/publish`);
}

// ---------------------------------------------------------------------------------------------------------
// The three measures
// ---------------------------------------------------------------------------------------------------------
interface AckResult {
  sent: SendResult;
  latencies: number[];
  service: number[];
  backlogAtEnd: number;
  /** From the last 200: the `channels.webhook` jobs applied (PostgreSQL), every job done (both). */
  webhookDrainedS: number | null;
  drainedS: number | null;
  serverSide: string;
  ids: string[];
  /** The API process during the load, per payload acknowledged: its CPU (ms) and round trips (requests, jobs). */
  perPayload: { cpuMs: number; requestTrips: number; jobTrips: number };
}

/** 1. The contacts write once (`warm`, applied), then the paced `load`; then the backlog until it is applied. */
async function measureAck(run: Running, warm: readonly Signed[], load: readonly Signed[]): Promise<AckResult> {
  await sendAll(run.webhookUrl, warm, { rate: null, clients: 4, retries: 3, label: 'contacts' });
  if ((await waitDrained(run, 'all', 120_000)) === null) throw new Error('the first messages were not applied');
  process.stderr.write(`  acknowledgment: ${fmt(load.length)} payloads at ${options.rate}/s…\n`);
  const before = await counters(run);
  const sent = await sendAll(run.webhookUrl, load, {
    rate: options.rate,
    clients: options.clients,
    label: 'acknowledged',
  });
  const ended = performance.now();
  const after = await counters(run);
  const per = (n: number) => n / Math.max(1, sent.acked);
  const backlogAtEnd = await backlog(run, 'webhook');
  const serverSide = await serverSideAck(run);
  const webhookDrainedS = run.database ? secondsSince(ended, await waitDrained(run, 'webhook')) : null;
  const drainedS = secondsSince(ended, await waitDrained(run, 'all'));
  return {
    sent,
    latencies: sortedOf(sent.latencies),
    service: sortedOf(sent.service),
    backlogAtEnd,
    webhookDrainedS,
    drainedS,
    serverSide,
    ids: load.map((p) => p.id),
    perPayload: {
      cpuMs: per((after.cpuSeconds - before.cpuSeconds) * 1000),
      requestTrips: per(after.requestTrips - before.requestTrips),
      jobTrips: per(after.jobTrips - before.jobTrips),
    },
  };
}

/** A measure of replies: what is sent, and how its replies are seen at the fake. */
export interface ReplyMeasure<S> {
  /** The table's heading, after its number: `A new contact's text → the automation's reply at the fake…`. */
  title: string;
  /** Payloads a second (for --seconds). */
  rate: number;
  /** The progress line's label. */
  label: string;
  /** `count` payloads that the automation answers, each with the key its reply is matched by. */
  payloads(seeded: S, count: number): Signed[];
  /** The first reply's arrival at the fake (Date ms) per key, of the replies seen so far. */
  arrivals(fake: FakeMeta, seeded: S): Map<string, number>;
  /** Goal of the p50 on PostgreSQL in ms; null: none is set (the figure is reported). */
  goalP50OnPostgres: number | null;
}

interface ReplyResult {
  sent: SendResult;
  latencies: number[];
  replies: number;
  expected: number;
}

/** 2. Payloads the automation answers; each one's time from its POST to its reply's arrival at the fake. */
async function measureReplies<S>(
  run: Running,
  fake: FakeMeta,
  seeded: S,
  measure: ReplyMeasure<S>,
): Promise<ReplyResult> {
  const count = measure.rate * options.seconds;
  const payloads = measure.payloads(seeded, count);
  process.stderr.write(`  ${measure.label}: ${fmt(count)} at ${measure.rate}/s…\n`);
  const sent = await sendAll(run.webhookUrl, payloads, { rate: measure.rate, clients: 4, label: measure.label });
  // Until every reply came, or 30 s without a new one.
  let seen = 0;
  let quietSince = performance.now();
  while (measure.arrivals(fake, seeded).size < count && performance.now() - quietSince < 30_000) {
    await sleep(100);
    const now = measure.arrivals(fake, seeded).size;
    if (now > seen) [seen, quietSince] = [now, performance.now()];
  }
  const arrivals = measure.arrivals(fake, seeded);
  const latencies = payloads.map((p, i) => {
    const at = arrivals.get(p.key);
    return at === undefined ? Number.NaN : at - sent.postedAt[i]!;
  });
  await waitDrained(run, 'all');
  return { sent, latencies: sortedOf(latencies), replies: arrivals.size, expected: count };
}

interface CrashResult {
  sent: SendResult;
  /** PostgreSQL: `channels.webhook` jobs left when the server was killed. */
  leftAtKill: number | null;
  restartS: number;
  drainedS: number | null;
  ids: string[];
}

/** The crash's pace at most: the kill measures durability, not the acknowledgment's ceiling. */
const CRASH_RATE = 900;

/** 3. Payloads as fast as acknowledged (up to CRASH_RATE), the server killed after the last 200, started again, drained. */
async function measureCrash(run: Running, payloads: readonly Signed[]): Promise<CrashResult> {
  process.stderr.write(
    `  crash: ${fmt(payloads.length)} payloads as fast as acknowledged (≤ ${CRASH_RATE}/s), then SIGKILL…\n`,
  );
  const sent = await sendAll(run.webhookUrl, payloads, {
    rate: CRASH_RATE,
    clients: options.clients,
    retries: 5,
    label: 'acknowledged',
  });
  // Every process of the run, the worker processes too.
  const processes = [run.server, ...run.workers.flatMap((w) => (w.server ? [w.server] : []))];
  for (const server of processes) server.child.kill('SIGKILL');
  await Promise.all(processes.map((server) => server.exited));
  const killedAt = performance.now();
  const leftAtKill = run.database ? await backlog(run, 'webhook') : null;
  run.server = await startServerProcess(run.env, run.baseUrl);
  for (const w of run.workers) w.server = await startWorkerProcess(w.env, w.baseUrl);
  const restartS = (performance.now() - killedAt) / 1000;
  const drainedS = secondsSince(killedAt, await waitDrained(run, 'webhook'));
  return {
    sent,
    leftAtKill,
    restartS,
    drainedS,
    ids: payloads.filter((_, i) => Number.isFinite(sent.latencies[i])).map((p) => p.id),
  };
}

// ---------------------------------------------------------------------------------------------------------
// A channel's bench, one engine start to end
// ---------------------------------------------------------------------------------------------------------
/** What a channel gives the bench: its webhook, its account on the fake, its payloads, its replies. */
export interface ChannelBench<S> {
  /** `WhatsApp`, `Instagram`. */
  name: string;
  /** In the scratch database's and the directory's names: `wa`, `ig`. */
  short: string;
  /** `/channels/whatsapp/webhook`. */
  webhookPath: string;
  /** The server's environment for this channel, besides the app secret, the verify token and GRAPH_API_BASE_URL. */
  env(fake: FakeMeta): NodeJS.ProcessEnv;
  /** The account, its attached connections and its automations, made through the admin API and the public API. */
  seed(baseUrl: string, fake: FakeMeta): Promise<S>;
  /** The connection without automations that 1. and 3. write to. */
  quietConnectionId(seeded: S): string;
  /** 1.: each contact's first message (`warm`) and the paced load (`count` payloads). */
  ackPayloads(seeded: S, count: number): { warm: Signed[]; load: Signed[] };
  /** 3.: `count` payloads to the quiet connection. */
  crashPayloads(seeded: S, count: number): Signed[];
  /** 2.: the reply measures, in order. */
  replies: ReplyMeasure<S>[];
}

interface EngineResult {
  engine: EngineName;
  ack: AckResult;
  replies: ReplyResult[];
  /** Null with --crash-payloads 0 (3. skipped: the server then ends with SIGTERM, e.g. to write a --cpu-prof). */
  crash: CrashResult | null;
  ackTally: Tally;
  crashTally: Tally | null;
  load: string;
}

/** Undone on the way out, and on Ctrl-C: the server, the fake, the directory, the scratch database. */
const cleanups = new Set<() => Promise<void>>();

async function stopServer(server: ServerProcess): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
  await server.exited;
  clearTimeout(timer);
}

/** A server process running the jobs beside the API, at the OS priority of --worker-nice. */
async function startWorkerProcess(env: NodeJS.ProcessEnv, baseUrl: string): Promise<ServerProcess> {
  const server = await startServerProcess(env, baseUrl);
  if (options.workerNice > 0 && server.child.pid !== undefined) setPriority(server.child.pid, options.workerNice);
  return server;
}

async function startRun<S>(channel: ChannelBench<S>, engine: EngineName, postgresBase: string, fake: FakeMeta) {
  const scratch = engine === 'postgres' ? await scratchPostgres(postgresBase, `ep_bench_${channel.short}`) : undefined;
  const dataDir = mkdtempSync(join(tmpdir(), `ep-bench-${channel.short}-`));
  const port = await freePort();
  const separate = scratch !== undefined && options.workerProcesses > 0;
  const envOn = (port: number, workers: boolean) =>
    sandboxServerEnv({
      port,
      dataDir,
      adminToken: ADMIN_TOKEN,
      ...(scratch ? { databaseUrl: scratch.url } : {}),
      logLevel: process.env.LOG_LEVEL ?? 'warn',
      extra: {
        META_APP_SECRET: APP_SECRET,
        META_VERIFY_TOKEN: 'bench-verify-token',
        GRAPH_API_BASE_URL: fake.url,
        WORKERS: String(workers),
        ...channel.env(fake),
      },
    });
  const env = envOn(port, !separate);
  const baseUrl = `http://127.0.0.1:${port}`;
  const workers: Running['workers'] = [];
  for (let i = 0; separate && i < options.workerProcesses; i++) {
    const workerPort = await freePort();
    workers.push({ env: envOn(workerPort, true), baseUrl: `http://127.0.0.1:${workerPort}` });
  }
  // The run, once its server started: the clean-up stops it (a crash case may have replaced its process).
  const started: { run?: Running } = {};
  const cleanup = async () => {
    if (started.run) await stopServer(started.run.server);
    for (const w of workers) if (w.server) await stopServer(w.server);
    await started.run?.database?.close();
    rmSync(dataDir, { recursive: true, force: true });
    await scratch?.drop();
  };
  cleanups.add(cleanup);
  process.stderr.write(
    `\n${channel.name}, ${ENGINE_LABEL[engine]}: starting the server (npm start's command)` +
      `${separate ? ` with WORKERS=false and ${workers.length} worker process(es)` : ''}…\n`,
  );
  const opened = await (async () => {
    const server = await startServerProcess(env, baseUrl);
    for (const w of workers) w.server = await startWorkerProcess(w.env, w.baseUrl);
    const { openDatabase } = await import('../../server/store/database.js');
    const database = scratch ? await openDatabase({ engine: 'postgres', url: scratch.url, poolSize: 2 }) : undefined;
    return { server, database };
  })().catch(async (error: unknown) => {
    await cleanup();
    cleanups.delete(cleanup);
    throw error;
  });
  const { server, database } = opened;
  const webhookUrl = new URL(`${baseUrl}${channel.webhookPath}`);
  const run: Running = { engine, env, baseUrl, webhookUrl, server, workers, dataDir, database };
  started.run = run;
  return { run, cleanup };
}

async function runEngine<S>(channel: ChannelBench<S>, engine: EngineName, postgresBase: string): Promise<EngineResult> {
  const fake = await startFakeMeta({ appSecret: APP_SECRET });
  const { run, cleanup } = await startRun(channel, engine, postgresBase, fake).catch(async (error: unknown) => {
    await fake.close();
    throw error;
  });
  try {
    const loadBefore = loadavg()[0] ?? 0;
    const seeded = await channel.seed(run.baseUrl, fake);
    const { warm, load: payloads } = channel.ackPayloads(seeded, options.rate * options.seconds);
    const ack = await measureAck(run, warm, payloads);
    const replies: ReplyResult[] = [];
    for (const measure of options.replies > 0 ? channel.replies : [])
      replies.push(await measureReplies(run, fake, seeded, measure));
    const crash =
      options.crashPayloads > 0 ? await measureCrash(run, channel.crashPayloads(seeded, options.crashPayloads)) : null;
    const load = `${loadBefore.toFixed(1)} → ${(loadavg()[0] ?? 0).toFixed(1)}`;
    // PGlite's directory opens here once its server has stopped; PostgreSQL's is read live.
    let db = run.database?.db;
    let embedded: Database | undefined;
    if (!db) {
      await stopServer(run.server);
      const { openDatabase } = await import('../../server/store/database.js');
      embedded = await openDatabase({ engine: 'pglite', dataDir: join(run.dataDir, 'pglite') });
      db = embedded.db;
    }
    const quiet = await inboundPerId(db, channel.quietConnectionId(seeded));
    await embedded?.close();
    return {
      engine,
      ack,
      replies,
      crash,
      ackTally: tally(quiet, ack.ids),
      crashTally: crash && tally(quiet, crash.ids),
      load,
    };
  } finally {
    await cleanup();
    cleanups.delete(cleanup);
    await fake.close();
  }
}

// ---------------------------------------------------------------------------------------------------------
// The tables
// ---------------------------------------------------------------------------------------------------------
/** `0`, or the count and each status's (`0`: the connection failed). */
const failuresText = (sent: SendResult) =>
  sent.failures === 0
    ? '0'
    : `${sent.failures} (${[...sent.statuses].map(([status, n]) => `${status} ×${n}`).join(', ')})`;

const onceText = (t: Tally) =>
  `${fmt(t.once)}/${fmt(t.expected)}${t.missing ? `, ${t.missing} missing` : ''}${t.duplicated ? `, ${t.duplicated} twice` : ''}`;

function printAck(results: readonly EngineResult[]): void {
  const rows = [
    [
      'engine',
      'payloads',
      'acknowledged/s',
      '200 p50 / p95 / p99 ms',
      'POST → 200 p50 / p95 / p99 ms',
      'server side',
      'API CPU ms / round trips (requests, jobs) per payload',
      'not 200',
      'webhook jobs left at the end',
      'applied after',
      'every job done after',
      'recorded once',
      'goal',
    ],
  ];
  for (const r of results) {
    const rate = r.ack.sent.acked / r.ack.sent.seconds;
    const met = rate >= ACK_GOAL.rate * 0.99 && quantile(r.ack.latencies, 0.99) <= ACK_GOAL.p99;
    rows.push([
      ENGINE_LABEL[r.engine],
      fmt(r.ack.ids.length),
      fmt(rate),
      percentiles(r.ack.latencies),
      percentiles(r.ack.service),
      r.ack.serverSide,
      `${r.ack.perPayload.cpuMs.toFixed(2)} / ${r.ack.perPayload.requestTrips.toFixed(2)}, ${r.ack.perPayload.jobTrips.toFixed(2)}`,
      failuresText(r.ack.sent),
      `${fmt(r.ack.backlogAtEnd)}${r.engine === 'pglite' ? ' jobs (all kinds)' : ''}`,
      r.engine === 'pglite' ? '—' : r.ack.webhookDrainedS === null ? 'not in 10 min' : seconds1(r.ack.webhookDrainedS),
      r.ack.drainedS === null ? 'not in 10 min' : seconds1(r.ack.drainedS),
      onceText(r.ackTally),
      met ? 'met' : 'NOT met',
    ]);
  }
  console.log(
    `\n1. Signed webhooks at ${options.rate}/s for ${options.seconds} s, ${options.clients} clients, ${options.contacts} contacts ` +
      `(issue ${ACK_GOAL.issue}'s goal ≥ ${ACK_GOAL.rate}/s, p99 ≤ ${ACK_GOAL.p99} ms; times from each payload's planned send; ` +
      `--rate 1000 measures issue 37's, ≥ 1,000/s with p99 ≤ 50 ms):\n`,
  );
  console.log(table(rows));
}

function printReplies<S>(results: readonly EngineResult[], measure: ReplyMeasure<S>, index: number): void {
  const goal = measure.goalP50OnPostgres;
  const rows = [['engine', 'payloads', 'replies at the fake', 'POST → reply p50 / p95 / p99 ms', 'goal (PostgreSQL)']];
  for (const r of results) {
    const reply = r.replies[index];
    if (!reply) continue;
    const met = goal !== null && reply.latencies.length > 0 && quantile(reply.latencies, 0.5) <= goal;
    rows.push([
      ENGINE_LABEL[r.engine],
      fmt(reply.expected),
      fmt(reply.replies),
      percentiles(reply.latencies),
      goal === null ? 'none set' : r.engine === 'postgres' ? (met ? 'met' : 'NOT met') : '—',
    ]);
  }
  console.log(
    `\n${index + 2}. ${measure.title}, ${measure.rate}/s for ${options.seconds} s ` +
      `(${goal === null ? 'no goal set: reported' : `goal p50 ≤ ${goal} ms on PostgreSQL`}):\n`,
  );
  console.log(table(rows));
}

function printCrash(results: readonly EngineResult[], index: number): void {
  const rows = [
    [
      'engine',
      'acknowledged',
      'acknowledged/s',
      'not 200 (each retried)',
      'left when killed',
      'restarted in',
      'applied after the kill',
      'recorded once',
      'goal',
    ],
  ];
  for (const r of results) {
    const t = r.crashTally;
    if (!r.crash || !t) continue;
    rows.push([
      ENGINE_LABEL[r.engine],
      fmt(r.crash.sent.acked),
      fmt(r.crash.sent.acked / r.crash.sent.seconds),
      failuresText(r.crash.sent),
      r.crash.leftAtKill === null ? '—' : fmt(r.crash.leftAtKill),
      seconds1(r.crash.restartS),
      r.crash.drainedS === null ? 'not in 10 min' : seconds1(r.crash.drainedS),
      onceText(t),
      t.missing === 0 && t.duplicated === 0 && t.once === options.crashPayloads ? 'met' : 'NOT met',
    ]);
  }
  console.log(
    `\n${index}. Nothing lost: SIGKILL right after the last 200, then a restart (each message id exactly one message):\n`,
  );
  console.log(rows.length > 1 ? table(rows) : '(skipped: --crash-payloads 0)');
}

function printTables<S>(channel: ChannelBench<S>, results: readonly EngineResult[]): void {
  printAck(results);
  if (options.replies > 0) channel.replies.forEach((measure, i) => printReplies(results, measure, i));
  printCrash(results, channel.replies.length + 2);
  console.log(
    `\nLoad average (1 min) before → after each engine: ${results.map((r) => `${ENGINE_LABEL[r.engine]} ${r.load}`).join(', ')}`,
  );
  console.log(
    options.workerProcesses > 0
      ? `Layout: PGlite one process; PostgreSQL the API process (WORKERS=false) and ${options.workerProcesses} worker process(es)` +
          `${options.workerNice > 0 ? ` at nice ${options.workerNice}` : ''}.`
      : 'Layout: one server process per engine, its job workers inside (npm start).',
  );
}

/** The bench of `channel` on the engines of --engine, its tables printed; Ctrl-C cleans up. */
export async function runChannelBench<S>(channel: ChannelBench<S>): Promise<void> {
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping the server and dropping the scratch database…\n`);
      void Promise.allSettled([...cleanups].map((c) => c())).finally(() => process.exit(130));
    });
  try {
    const { engines, postgresBase, notes } = await enginesToRun(engineOption());
    const results: EngineResult[] = [];
    for (const engine of engines) results.push(await runEngine(channel, engine, postgresBase));
    printTables(channel, results);
    for (const note of notes) console.log(note);
  } catch (error: unknown) {
    console.error(error);
    process.exitCode = 1;
  }
}
