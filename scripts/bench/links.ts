// `npm run bench:links` (part of `npm run bench`): the redirect of a tracked link under load (issue 22; goal:
// p99 ≤ 25 ms on both engines, the click's event never on the redirect's path). A published instagram
// automation answers any message with a buttons block whose first button is a link (its output 0 sends a
// message); --contacts N (200) sandbox instagram contacts write to it through the admin API, so their runs send
// the block and the tracked_links rows are real. The bench collects their tracking addresses (`/links/{token}`)
// and opens them open-loop at --rate R (200) opens per second for --seconds S (10): a request starts every
// 1000/R ms whatever the previous ones did (`fetch(url, { redirect: 'manual' })`; undici's pool opens another
// socket whenever all are busy), the addresses shuffled and taken in turn, so each is opened R·S/N times
// (reloads). The server process runs the job worker, as with WORKERS=true: the first open of each link follows
// the button's output (a job, off the redirect's path) while the opens go on. It prints, per engine:
//   - opens sent, redirect latency p50/p95/p99/max (ms, from the request's start to the response's headers) and
//     how late the sender started its requests (p99, ms: the client's own share of the cores), the p99 of first
//     opens and of reloads apart, and the machine's load average (other processes share the cores);
//   - the statuses seen (all 302 expected);
//   - once the jobs have drained: `link.clicked` events recorded vs opens (each open is an event), the runs that
//     followed the link to their end, and the server process's RSS.
// Flags: --rate R (200), --seconds S (10), --contacts N (200), --engine pglite|postgres|both (both).
import { randomUUID } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { components } from '../../generated/api.js';
import {
  answerRequests,
  argInt,
  ENGINE_LABEL,
  engineOption,
  enginesToRun,
  fmt,
  main,
  ms,
  openBenchServer,
  quantile,
  request,
  seedPublishedAutomation,
  rng,
  table,
  withBenchServer,
  type EngineName,
} from './common.js';

const self = fileURLToPath(import.meta.url);
const options = {
  rate: argInt('rate', 200),
  seconds: argInt('seconds', 10),
  contacts: argInt('contacts', 200),
  engine: engineOption(),
};
const ADMIN_TOKEN = `bench-admin-${randomUUID()}`;
const OFFER = 'https://loja.example.com/black-friday?c={contact.first_name}';
/** The address a redirect leads to: the first name ("Cliente") of every contact filled in. */
const OFFER_SENT = 'https://loja.example.com/black-friday?c=Cliente';

interface Ready {
  url: string;
  accountId: string;
  connectionId: string;
  workflowId: string;
}
interface Status {
  /** Tracked links of the account, and their tokens when asked. */
  links: number;
  tokens: string[];
  clicks: number;
  /** Jobs of the account due now and not yet done, and those that gave up. */
  pendingJobs: number;
  failedJobs: number;
  completedRuns: number;
  rssMb: number;
}

/** The parent's questions: how far the seeding and the clicks' jobs are, the tokens, the events, the RSS. */
function answerStatus(server: Awaited<ReturnType<typeof openBenchServer>>): void {
  answerRequests(async (body) => {
    const { accountId, tokens } = body as { accountId: string; tokens?: boolean };
    const { db } = server;
    const links = await db
      .selectFrom('tracked_links')
      .select('token')
      .where('account_id', '=', accountId)
      .where('message_id', 'is not', null)
      .execute();
    const count = async (query: Promise<{ n: string | number | bigint }>) => Number((await query).n);
    const clicks = await count(
      db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('account_id', '=', accountId)
        .where('type', '=', 'link.clicked')
        .executeTakeFirstOrThrow(),
    );
    const jobs = await db
      .selectFrom('jobs')
      .select(['failed_at', (eb) => eb.fn.countAll<string>().as('n')])
      .where('account_id', '=', accountId)
      // Due now: a run waiting on its buttons may hold a job for much later.
      .where('run_at', '<=', server.clock.now().toISOString())
      .where('waiting_for', 'is', null)
      .groupBy('failed_at')
      .execute();
    const completedRuns = await count(
      db
        .selectFrom('workflow_runs')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('account_id', '=', accountId)
        .where('status', '=', 'completed')
        .executeTakeFirstOrThrow(),
    );
    return {
      links: links.length,
      tokens: tokens ? links.map((l) => l.token) : [],
      clicks,
      pendingJobs: jobs.filter((j) => j.failed_at === null).reduce((n, j) => n + Number(j.n), 0),
      failedJobs: jobs.filter((j) => j.failed_at !== null).reduce((n, j) => n + Number(j.n), 0),
      completedRuns,
      rssMb: process.memoryUsage().rss / 1024 / 1024,
    } satisfies Status;
  });
}

/** root → `menu` (a link button, a reply button) → output 0 `depois`, as the tracked-links tests have it. */
const graph: components['schemas']['WorkflowGraphInput'] = {
  nodes: {
    root: { type: 'root', data: { next: ['menu'] } },
    menu: {
      type: 'buttons',
      data: {
        subtitle: 'Veja a oferta',
        buttons: [
          { id: 'oferta', title: 'Ver oferta', url: OFFER },
          { id: 'falar', title: 'Falar' },
        ],
        next: ['depois', null, null, null],
      },
    },
    depois: { type: 'message', data: { text: 'Gostou da oferta, {contact.first_name}?', next: [null] } },
  },
};

async function serve(): Promise<void> {
  const server = await openBenchServer();
  const seeded = await seedPublishedAutomation(
    server,
    { name: 'Bench links', alias: `bench-links-${randomUUID()}` },
    { channel: 'instagram', name: 'Loja IG', username: 'loja_bench' },
    { title: 'Oferta', trigger: { events: ['message'], match: 'any' }, graph },
  );
  answerStatus(server);
  // The tracking addresses name this base; the parent opens their tokens on the server's real address.
  const start = await server.prepareWorkers('http://127.0.0.1');
  start();
  await server.listen((url) => ({ url, ...seeded }) satisfies Ready);
}

/** `count` sandbox instagram contacts write to the connection through the admin API, 8 at a time. */
async function seedContacts(ready: Ready, count: number): Promise<void> {
  const headers = { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' };
  let next = 0;
  const writer = async () => {
    for (let i = next++; i < count; i = next++) {
      const res = await fetch(`${ready.url}/admin/v1/sandbox/connections/${ready.connectionId}/inbound`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          from: { instagram_id: String(1_000_000_000 + i), username: `cliente_${i}`, name: `Cliente ${i}` },
          text: 'Oi, tem promoção?',
        }),
      });
      if (res.status !== 201) throw new Error(`${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 8 }, writer));
}

const pause = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** Asks the server until `done` holds (or fails after `limitMs`). */
async function until(ask: () => Promise<Status>, done: (s: Status) => boolean, what: string, limitMs = 300_000) {
  const t0 = performance.now();
  for (;;) {
    const status = await ask();
    if (done(status)) return status;
    if (performance.now() - t0 > limitMs) throw new Error(`${what}: ${JSON.stringify({ ...status, tokens: [] })}`);
    await pause(100);
  }
}

interface Load {
  sent: number;
  latencies: number[];
  /** The latencies of each link's first open (its run follows the output: a job) and of the reloads. */
  firsts: number[];
  reloads: number[];
  lateness: number[];
  statuses: Map<string, number>;
  seconds: number;
}

/**
 * Open-loop: the i-th open starts at t0 + i/rate whatever the others did (a timer wakes the sender each
 * millisecond or so and it starts every open now due), so a slow answer never slows the schedule.
 */
async function openLoad(addresses: readonly string[]): Promise<Load> {
  const total = options.rate * options.seconds;
  const interval = 1000 / options.rate;
  const random = rng(22);
  const order = [...addresses];
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const load: Load = { sent: 0, latencies: [], firsts: [], reloads: [], lateness: [], statuses: new Map(), seconds: 0 };
  const inFlight: Promise<void>[] = [];
  const openOne = async (address: string, due: number, first: boolean) => {
    const started = performance.now();
    load.lateness.push(started - due);
    let status: string;
    try {
      const res = await fetch(address, { redirect: 'manual' });
      const latency = performance.now() - started;
      load.latencies.push(latency);
      (first ? load.firsts : load.reloads).push(latency);
      // A 302 elsewhere than the button's address would be a wrong redirect: counted apart.
      const location = res.headers.get('location') ?? '';
      status = res.status === 302 && !location.startsWith(OFFER_SENT) ? '302 elsewhere' : String(res.status);
      await res.arrayBuffer();
    } catch (error) {
      status = `error ${error instanceof Error ? error.message : String(error)}`;
    }
    load.statuses.set(status, (load.statuses.get(status) ?? 0) + 1);
  };
  const t0 = performance.now();
  await new Promise<void>((done) => {
    const tick = () => {
      const now = performance.now();
      while (load.sent < total && t0 + load.sent * interval <= now) {
        const due = t0 + load.sent * interval;
        inFlight.push(openOne(order[load.sent % order.length]!, due, load.sent < order.length));
        load.sent += 1;
      }
      if (load.sent < total) setTimeout(tick, Math.max(0, t0 + load.sent * interval - performance.now()));
      else done();
    };
    tick();
  });
  await Promise.all(inFlight);
  load.seconds = (performance.now() - t0) / 1000;
  return load;
}

async function measure(engine: EngineName, ready: Ready, server: Parameters<typeof request>[0]): Promise<string[]> {
  const label = ENGINE_LABEL[engine];
  const ask = (tokens = false) => request<Status>(server, { accountId: ready.accountId, tokens });
  const t0 = performance.now();
  await seedContacts(ready, options.contacts);
  const seeded = await until(
    () => ask(true),
    (s) => s.links >= options.contacts && s.pendingJobs === 0,
    'the runs did not all send their link',
  );
  const addresses = seeded.tokens.map((token) => `${ready.url}/links/${token}`);
  const runsBefore = seeded.completedRuns;
  process.stderr.write(
    `  ${label}: ${fmt(options.contacts)} contacts seeded, ${fmt(addresses.length)} tracked links in ${((performance.now() - t0) / 1000).toFixed(1)} s; opening…\n`,
  );
  const load = await openLoad(addresses);
  const drained = await until(
    () => ask(),
    (s) => s.pendingJobs === 0,
    'the clicks’ jobs did not drain',
  );
  const latencies = [...load.latencies].sort((a, b) => a - b);
  const lateness = [...load.lateness].sort((a, b) => a - b);
  const p99 = (values: number[]) =>
    values.length
      ? ms(
          quantile(
            [...values].sort((a, b) => a - b),
            0.99,
          ),
        )
      : '-';
  const statuses = [...load.statuses].map(([s, n]) => `${s} × ${fmt(n)}`).join(', ');
  const lost = load.sent - drained.clicks;
  console.log(
    `${label}: ${fmt(load.sent)} opens of ${fmt(addresses.length)} links in ${load.seconds.toFixed(1)} s ` +
      `(${(load.sent / load.seconds).toFixed(0)}/s); statuses ${statuses}; p99 first opens ${p99(load.firsts)} ms, ` +
      `reloads ${p99(load.reloads)} ms; sender late p99 ${ms(quantile(lateness, 0.99))} ms; ` +
      `link.clicked ${fmt(drained.clicks)} of ${fmt(load.sent)} opens${lost === 0 ? '' : ` (${fmt(lost)} lost)`}; ` +
      `runs that followed the link to their end ${fmt(drained.completedRuns - runsBefore)}; ` +
      `jobs failed ${fmt(drained.failedJobs)}; the machine's 1-minute load average after it ${loadavg()[0]!.toFixed(1)} ` +
      `(${availableParallelism()} cores)`,
  );
  return [
    label,
    fmt(load.sent),
    ms(quantile(latencies, 0.5)),
    ms(quantile(latencies, 0.95)),
    ms(quantile(latencies, 0.99)),
    ms(latencies[latencies.length - 1] ?? NaN),
    statuses,
    `${fmt(drained.clicks)} / ${fmt(load.sent)}`,
    quantile(latencies, 0.99) <= 25 ? 'met' : 'not met',
    `${seeded.rssMb.toFixed(0)} → ${drained.rssMb.toFixed(0)}`,
  ];
}

async function bench(): Promise<void> {
  const rows = [
    [
      'engine',
      'opens',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      'max ms',
      'statuses',
      'link.clicked / opens',
      'p99 ≤ 25 ms',
      'server RSS MiB',
    ],
  ];
  const { engines, postgresBase, notes } = await enginesToRun(options.engine);
  for (const note of notes) console.log(note);
  for (const engine of engines)
    rows.push(
      await withBenchServer<Ready, string[]>(
        engine,
        postgresBase,
        self,
        { ADMIN_TOKEN, SANDBOX_ENABLED: 'true' },
        (ready, processes) => measure(engine, ready, processes.server),
      ),
    );
  console.log(
    `\nTracked links: ${fmt(options.contacts)} links opened open-loop at ${options.rate}/s for ${options.seconds} s ` +
      `(each about ${fmt((options.rate * options.seconds) / options.contacts)} times); the server process runs the jobs:\n`,
  );
  console.log(table(rows));
}

await main(serve, bench);
