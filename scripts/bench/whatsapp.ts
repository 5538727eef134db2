// `npm run bench:whatsapp` (issue 35): Meta's webhook and an automation's reply over the WhatsApp Cloud API, on the
// server as an operator runs it (`npm start`'s command, its job workers in the same process) against the fake
// Graph API on loopback (test/fakes/meta), on PGlite (a temporary DATA_DIR) and on PostgreSQL (a scratch database,
// created and dropped). Two numbers are attached through the admin API: one without automations, one whose
// published automation answers any message. Then:
//   1. acknowledgment: signed text payloads (each its own wamid, from --contacts contacts who wrote once before, so
//      none is a new contact's race) POSTed to /channels/whatsapp/webhook at --rate per second (500) for --seconds
//      (20) by --clients (16) keep-alive clients. It prints the payloads/s acknowledged and the 200's p50/p95/p99,
//      timed from each payload's planned send (an answer that comes late delays the payloads after it, and they
//      count the wait), goal ≥ 500/s with p99 ≤ 100 ms; the backlog of `channels.webhook` jobs when the load ends
//      and how long until it is applied;
//   2. the reply: --reply-rate (50) new contacts a second for --seconds write to the second number; per message,
//      the time from its webhook POST to the automation's reply at the fake (matched by recipient), goal p50 ≤
//      100 ms on PostgreSQL;
//   3. nothing lost: --crash-payloads (2000) payloads as fast as the server acknowledges them (at most 900/s, under
//      the default GLOBAL_RPS_CEILING), the server killed (SIGKILL) right after the last 200 while its workers apply
//      them, and started again on the same data; once the backlog is gone, each acknowledged wamid must be exactly
//      one inbound message.
// PostgreSQL's jobs and messages are queried while the server runs. PGlite's directory belongs to the server
// process: there the backlog is read from /metrics (jobs due or running, of every kind) and the messages are
// counted once the server has stopped.
//
// Flags: --engine pglite|postgres|both (both), --rate N, --seconds N, --clients N, --contacts N, --reply-rate N,
// --crash-payloads N (0 skips 3.), --worker-processes N (PostgreSQL: the API process with WORKERS=false beside N server processes
// that run the jobs, every one of them killed in 3.; default 0, one process as `npm start` runs). LOG_LEVEL sets the
// server's (warn); SERVER_LOG_DIR keeps its log.
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import type { DB } from '../../server/store/schema.js';
import type { Database } from '../../server/store/database.js';
import { signature256, startFakeMeta, webhooks, type FakeMeta, type FakeNumber } from '../../test/fakes/meta/index.js';
import { freePort, sandboxServerEnv, startServerProcess, type ServerProcess } from '../lib/server-process.js';
import {
  argInt,
  ENGINE_LABEL,
  engineOption,
  enginesToRun,
  fmt,
  phoneOf,
  quantile,
  scratchPostgres,
  table,
  type EngineName,
} from './common.js';

const options = {
  rate: argInt('rate', 500),
  seconds: argInt('seconds', 20),
  clients: argInt('clients', 16),
  contacts: argInt('contacts', 100),
  replyRate: argInt('reply-rate', 50),
  crashPayloads: argInt('crash-payloads', 2000, 0),
  /** PostgreSQL: the API process with WORKERS=false beside this many server processes running the jobs (0: one process). */
  workerProcesses: argInt('worker-processes', 0, 0),
};
const APP_SECRET = `bench-app-secret-${randomBytes(8).toString('hex')}`;
const ADMIN_TOKEN = `bench-admin-${randomBytes(12).toString('hex')}`;
const WEBHOOK_PATH = '/channels/whatsapp/webhook';
const CHANNEL_WEBHOOK_JOB = 'channels.webhook';
/** Phones of the contacts who write to the number without automations, and of the new ones who get replies. */
const FIRST_CONTACT = 0;
const FIRST_REPLY_CONTACT = 1_000_000;
const ACK_GOAL = { rate: 500, p99: 100 };
const REPLY_GOAL_P50 = 100;

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
const ms1 = (n: number) => n.toFixed(1);
const seconds1 = (n: number) => `${n.toFixed(1)} s`;

// ---------------------------------------------------------------------------------------------------------
// Payloads and the load
// ---------------------------------------------------------------------------------------------------------
/** A text payload as Meta writes it, signed in advance: the load measures the server, not the signing. */
interface Signed {
  bytes: Buffer;
  signature: string;
  wamid: string;
  phone: string;
}

function signedText(number: FakeNumber, phone: string, text: string): Signed {
  const wamid = webhooks.newWamid();
  const payload = webhooks.text(number, { from: phone, name: 'Cliente Bench', text, id: wamid });
  const bytes = Buffer.from(webhooks.metaJson(payload), 'utf8');
  return { bytes, signature: signature256(APP_SECRET, bytes), wamid, phone };
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

/** A number of the fake, as the admin API attaches it. */
function fakeNumber(name: string): { number: FakeNumber; phone: string } {
  const local = `9${randomInt(1000_0000, 9999_9999)}`;
  return {
    phone: `+5511${local}`,
    number: {
      phoneNumberId: `10${randomInt(1e12, 9e12)}`,
      wabaId: `10${randomInt(1e12, 9e12)}`,
      accessToken: `EAAG${randomBytes(24).toString('hex')}`,
      displayPhoneNumber: `+55 11 ${local.slice(0, 5)}-${local.slice(5)}`,
      verifiedName: name,
      templates: [],
    },
  };
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
        line.includes(`route="${WEBHOOK_PATH}"`) &&
        line.includes('status="200"')
      )
        return Number(line.slice(line.lastIndexOf(' ') + 1));
    return 0;
  };
  const all = bucket('+Inf');
  if (all === 0) return '—';
  return `${((bucket('0.025') / all) * 100).toFixed(1)}% ≤ 25 ms, ${((bucket('0.1') / all) * 100).toFixed(2)}% ≤ 100 ms`;
}

/** Inbound messages of `connectionId` per wamid. */
async function inboundPerWamid(db: Kysely<DB>, connectionId: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('messages')
    .select(['provider_message_id', (eb) => eb.fn.countAll<string>().as('n')])
    .where('connection_id', '=', connectionId)
    .where('direction', '=', 'inbound')
    .groupBy('provider_message_id')
    .execute();
  return new Map(rows.map((r) => [r.provider_message_id ?? '', Number(r.n)]));
}

/** How `wamids` came out: recorded exactly once, missing, recorded more than once. */
function tally(perWamid: Map<string, number>, wamids: readonly string[]) {
  let once = 0;
  let missing = 0;
  let duplicated = 0;
  for (const wamid of wamids) {
    const n = perWamid.get(wamid) ?? 0;
    if (n === 0) missing += 1;
    else if (n === 1) once += 1;
    else duplicated += 1;
  }
  return { once, missing, duplicated, expected: wamids.length };
}
type Tally = ReturnType<typeof tally>;

// ---------------------------------------------------------------------------------------------------------
// The account: two attached numbers, an automation that answers any message on the second
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

const idOf = (value: unknown, what: string): string => {
  if (typeof value === 'object' && value !== null && 'id' in value && typeof value.id === 'string') return value.id;
  throw new Error(`${what}: no id in ${JSON.stringify(value)}`);
};

const secretOf = (value: unknown): string => {
  if (typeof value === 'object' && value !== null && 'secret' in value && typeof value.secret === 'string')
    return value.secret;
  throw new Error(`an API key: no secret in ${JSON.stringify(value)}`);
};

interface Seeded {
  /** The number without automations (acknowledgment, crash) and its connection. */
  quiet: { number: FakeNumber; connectionId: string };
  /** The number whose automation answers any message. */
  replying: { number: FakeNumber; connectionId: string };
}

/** An account, a key, two whatsapp connections attached to numbers of the fake, an automation published on one. */
async function seed(baseUrl: string, fake: FakeMeta): Promise<Seeded> {
  const admin = (method: string, path: string, body?: unknown) =>
    callJson(baseUrl, ADMIN_TOKEN, method, `/admin/v1${path}`, body);
  const alias = `bench-wa-${randomBytes(4).toString('hex')}`;
  const accountId = idOf(await admin('POST', '/accounts', { name: 'Bench WhatsApp', alias }), 'an account');
  const key = secretOf(
    await admin('POST', `/accounts/${accountId}/keys`, {
      name: 'bench',
      scopes: ['workflows:read', 'workflows:write', 'workflows:publish'],
      validity_days: 30,
    }),
  );
  const attach = async (name: string) => {
    const { number, phone } = fakeNumber(name);
    fake.addNumber(number);
    const connection = await admin('POST', `/accounts/${accountId}/connections`, { channel: 'whatsapp', name, phone });
    const connectionId = idOf(connection, 'a connection');
    await admin('PUT', `/connections/${connectionId}/whatsapp-cloud`, {
      phone_number_id: number.phoneNumberId,
      waba_id: number.wabaId,
      access_token: number.accessToken,
    });
    return { number, connectionId };
  };
  const quiet = await attach('Loja Quieta');
  const replying = await attach('Loja Atende');
  const api = (method: string, path: string, body?: unknown) => callJson(baseUrl, key, method, path, body);
  const workflowId = idOf(
    await api('POST', '/v1/workflows', {
      title: 'Resposta automática',
      channel: { type: 'whatsapp', connection_id: replying.connectionId },
      trigger: { events: ['message'], match: 'any' },
      graph: {
        nodes: {
          root: { type: 'root', data: { next: ['reply'] } },
          reply: { type: 'message', data: { text: 'Oi! Recebemos sua mensagem.', next: [null] } },
        },
      },
    }),
    'an automation',
  );
  await api('POST', `/v1/workflows/${workflowId}/publish`);
  return { quiet, replying };
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
  wamids: string[];
}

/** 1. The contacts write once (and are applied), then the paced load; then the backlog until it is applied. */
async function measureAck(run: Running, seeded: Seeded): Promise<AckResult> {
  const { number } = seeded.quiet;
  const phones = Array.from({ length: options.contacts }, (_, i) => phoneOf(FIRST_CONTACT + i).nine);
  const warm = phones.map((phone) => signedText(number, phone, 'Oi'));
  await sendAll(run.webhookUrl, warm, { rate: null, clients: 4, retries: 3, label: 'contacts' });
  if ((await waitDrained(run, 'all', 120_000)) === null) throw new Error('the first messages were not applied');

  const count = options.rate * options.seconds;
  const payloads = Array.from({ length: count }, (_, i) =>
    signedText(number, phones[i % phones.length]!, `Mensagem ${i}: tem o tênis no 38?`),
  );
  process.stderr.write(`  acknowledgment: ${fmt(count)} payloads at ${options.rate}/s…\n`);
  const sent = await sendAll(run.webhookUrl, payloads, {
    rate: options.rate,
    clients: options.clients,
    label: 'acknowledged',
  });
  const ended = performance.now();
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
    wamids: payloads.map((p) => p.wamid),
  };
}

interface ReplyResult {
  sent: SendResult;
  latencies: number[];
  replies: number;
  expected: number;
}

/** 2. New contacts write to the number with the automation; each one's time from its POST to the reply's arrival. */
async function measureReplies(run: Running, fake: FakeMeta, seeded: Seeded): Promise<ReplyResult> {
  const { number } = seeded.replying;
  const count = options.replyRate * options.seconds;
  const payloads = Array.from({ length: count }, (_, i) =>
    signedText(number, phoneOf(FIRST_REPLY_CONTACT + i).nine, 'Oi, vocês estão abertos hoje?'),
  );
  process.stderr.write(`  replies: ${fmt(count)} new contacts at ${options.replyRate}/s…\n`);
  const repliesOf = () => fake.sent.filter((m) => m.phoneNumberId === number.phoneNumberId);
  const sent = await sendAll(run.webhookUrl, payloads, { rate: options.replyRate, clients: 4, label: 'written' });
  // Until every reply came, or 30 s without a new one.
  let seen = 0;
  let quietSince = performance.now();
  while (repliesOf().length < count && performance.now() - quietSince < 30_000) {
    await sleep(100);
    const now = repliesOf().length;
    if (now > seen) [seen, quietSince] = [now, performance.now()];
  }
  const firstReply = new Map<string, number>();
  for (const reply of repliesOf()) {
    const to = webhooks.digitsOf(reply.to);
    if (!firstReply.has(to)) firstReply.set(to, reply.at.getTime());
  }
  const latencies = payloads.map((p, i) => {
    const at = firstReply.get(webhooks.digitsOf(p.phone));
    return at === undefined ? Number.NaN : at - sent.postedAt[i]!;
  });
  await waitDrained(run, 'all');
  return { sent, latencies: sortedOf(latencies), replies: firstReply.size, expected: count };
}

interface CrashResult {
  sent: SendResult;
  /** PostgreSQL: `channels.webhook` jobs left when the server was killed. */
  leftAtKill: number | null;
  restartS: number;
  drainedS: number | null;
  wamids: string[];
}

/**
 * The crash's pace at most: under the server's default GLOBAL_RPS_CEILING (1,000/s, 429 above it), which the
 * acknowledgment alone now outruns; the kill measures durability, not the ceiling.
 */
const CRASH_RATE = 900;

/** 3. Payloads as fast as acknowledged (up to CRASH_RATE), the server killed after the last 200, started again, drained. */
async function measureCrash(run: Running, seeded: Seeded): Promise<CrashResult> {
  const { number } = seeded.quiet;
  const payloads = Array.from({ length: options.crashPayloads }, (_, i) =>
    signedText(number, phoneOf(FIRST_CONTACT + (i % options.contacts)).nine, `Antes da queda ${i}`),
  );
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
  for (const w of run.workers) w.server = await startServerProcess(w.env, w.baseUrl);
  const restartS = (performance.now() - killedAt) / 1000;
  const drainedS = secondsSince(killedAt, await waitDrained(run, 'webhook'));
  return {
    sent,
    leftAtKill,
    restartS,
    drainedS,
    wamids: payloads.filter((_, i) => Number.isFinite(sent.latencies[i])).map((p) => p.wamid),
  };
}

// ---------------------------------------------------------------------------------------------------------
// One engine, start to end
// ---------------------------------------------------------------------------------------------------------
interface EngineResult {
  engine: EngineName;
  ack: AckResult;
  reply: ReplyResult;
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

async function startRun(engine: EngineName, postgresBase: string, fake: FakeMeta) {
  const scratch = engine === 'postgres' ? await scratchPostgres(postgresBase, 'ep_bench_wa') : undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'ep-bench-wa-'));
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
    `\n${ENGINE_LABEL[engine]}: starting the server (npm start's command)` +
      `${separate ? ` with WORKERS=false and ${workers.length} worker process(es)` : ''}…\n`,
  );
  const opened = await (async () => {
    const server = await startServerProcess(env, baseUrl);
    for (const w of workers) w.server = await startServerProcess(w.env, w.baseUrl);
    const { openDatabase } = await import('../../server/store/database.js');
    const database = scratch ? await openDatabase({ engine: 'postgres', url: scratch.url, poolSize: 2 }) : undefined;
    return { server, database };
  })().catch(async (error: unknown) => {
    await cleanup();
    cleanups.delete(cleanup);
    throw error;
  });
  const { server, database } = opened;
  const webhookUrl = new URL(`${baseUrl}${WEBHOOK_PATH}`);
  const run: Running = { engine, env, baseUrl, webhookUrl, server, workers, dataDir, database };
  started.run = run;
  return { run, cleanup };
}

async function runEngine(engine: EngineName, postgresBase: string): Promise<EngineResult> {
  const fake = await startFakeMeta({ appSecret: APP_SECRET });
  const { run, cleanup } = await startRun(engine, postgresBase, fake).catch(async (error: unknown) => {
    await fake.close();
    throw error;
  });
  try {
    fake.setWebhookUrl(run.webhookUrl.toString());
    const loadBefore = loadavg()[0] ?? 0;
    const seeded = await seed(run.baseUrl, fake);
    const ack = await measureAck(run, seeded);
    const reply = await measureReplies(run, fake, seeded);
    const crash = options.crashPayloads > 0 ? await measureCrash(run, seeded) : null;
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
    const quiet = await inboundPerWamid(db, seeded.quiet.connectionId);
    await embedded?.close();
    return {
      engine,
      ack,
      reply,
      crash,
      ackTally: tally(quiet, ack.wamids),
      crashTally: crash && tally(quiet, crash.wamids),
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

function printTables(results: readonly EngineResult[]): void {
  const ackRows = [
    [
      'engine',
      'payloads',
      'acknowledged/s',
      '200 p50 / p95 / p99 ms',
      'POST → 200 p50 / p95 / p99 ms',
      'server side',
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
    ackRows.push([
      ENGINE_LABEL[r.engine],
      fmt(r.ack.wamids.length),
      fmt(rate),
      percentiles(r.ack.latencies),
      percentiles(r.ack.service),
      r.ack.serverSide,
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
      `(goal ≥ ${ACK_GOAL.rate}/s, p99 ≤ ${ACK_GOAL.p99} ms; times from each payload's planned send):\n`,
  );
  console.log(table(ackRows));

  const replyRows = [
    ['engine', 'messages', 'replies at the fake', 'POST → reply p50 / p95 / p99 ms', 'goal (PostgreSQL)'],
  ];
  for (const r of results)
    replyRows.push([
      ENGINE_LABEL[r.engine],
      fmt(r.reply.expected),
      fmt(r.reply.replies),
      percentiles(r.reply.latencies),
      r.engine === 'postgres' ? (quantile(r.reply.latencies, 0.5) <= REPLY_GOAL_P50 ? 'met' : 'NOT met') : '—',
    ]);
  console.log(
    `\n2. A new contact's text → the automation's reply at the fake Graph API, ${options.replyRate}/s for ${options.seconds} s ` +
      `(goal p50 ≤ ${REPLY_GOAL_P50} ms on PostgreSQL):\n`,
  );
  console.log(table(replyRows));

  const crashRows = [
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
    crashRows.push([
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
    `\n3. Nothing lost: SIGKILL right after the last 200, then a restart (each wamid exactly one message):\n`,
  );
  console.log(crashRows.length > 1 ? table(crashRows) : '(skipped: --crash-payloads 0)');
  console.log(
    `\nLoad average (1 min) before → after each engine: ${results.map((r) => `${ENGINE_LABEL[r.engine]} ${r.load}`).join(', ')}`,
  );
  console.log(
    options.workerProcesses > 0
      ? `Layout: PGlite one process; PostgreSQL the API process (WORKERS=false) and ${options.workerProcesses} worker process(es).`
      : 'Layout: one server process per engine, its job workers inside (npm start).',
  );
}

async function bench(): Promise<void> {
  const { engines, postgresBase, notes } = await enginesToRun(engineOption());
  const results: EngineResult[] = [];
  for (const engine of engines) results.push(await runEngine(engine, postgresBase));
  printTables(results);
  for (const note of notes) console.log(note);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping the server and dropping the scratch database…\n`);
    void Promise.allSettled([...cleanups].map((c) => c())).finally(() => process.exit(130));
  });

await bench().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
