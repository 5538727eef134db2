// `npm run bench:engine` (part of `npm run bench`): the automation engine under a burst of triggers, on embedded
// PGlite (the API process runs the job worker) and on PostgreSQL (the API process and a second worker process
// both run workers, WORKERS as in production; response validation off, production's default). A published whatsapp automation answers the keyword `promo`
// with a message and a question; --contacts N (500) sandbox contacts write the keyword through the admin API,
// 8 at a time, as fast as the server takes them. The bench then waits until every run waits on its question and
// prints:
//   - runs started per second (trigger to question sent, all contacts, from the first write to the last run
//     waiting) and steps per second (3 steps per run: root, message, question);
//   - trigger-to-first-send latency per run, p50/p99: from the contact's message to the automation's first
//     message, both as the database recorded them (goal of issue 14: p50 ≤ 100 ms on PostgreSQL);
//   - the server process's RSS before and after, with the runs waiting (they are rows, not memory);
//   - the inbound writes per second (the sandbox requests themselves), and issue 37's goals, each met or not.
// Then the restart case: --sleepers N (1000) runs sleep --sleep-seconds S (60); the server is killed (SIGKILL) while
// they sleep and started again once their waits are over; it prints how long until every run completed (goal
// of issue 14: within 10 s).
// The burst also prints the round trips to the database per run: db_round_trips_total of every job kind, summed
// over the processes that run jobs, before and after the burst, divided by the runs; and per job of each kind.
// Flags: --contacts N (500), --writers N (8: how many write at once), --sleepers N (1000; 0: no restart case),
// --sleep-seconds S (60),
// --engine pglite|postgres|both (both).
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { components } from '../../generated/api.js';
import { sql } from 'kysely';
import { serviceRegistry } from '../../server/metrics.js';
import {
  answerRequests,
  argInt,
  ENGINE_LABEL,
  engineOption,
  enginesToRun,
  main,
  ms,
  analyze,
  openBenchServer,
  quantile,
  request,
  seedPublishedAutomation,
  writeInbound,
  table,
  withBenchServer,
  type EngineName,
} from './common.js';

const self = fileURLToPath(import.meta.url);
const options = {
  contacts: argInt('contacts', 500),
  writers: argInt('writers', 8),
  sleepers: argInt('sleepers', 1000, 0),
  sleepSeconds: argInt('sleep-seconds', 60),
  engine: engineOption(),
};
const ADMIN_TOKEN = `bench-admin-${randomUUID()}`;

interface Ready {
  url: string;
  accountId: string;
  connectionId: string;
  workflowId: string;
}
interface Status {
  waiting: number;
  other: number;
  byStatus: Record<string, number>;
  steps: number;
  latencies: number[];
  rssMb: number;
}

/**
 * The parent's questions: how far the runs are, and (`latencies`, asked once at the end: the query joins the
 * messages and would load the embedded database's one thread while the runs it measures are going) the
 * trigger-to-first-send delays.
 */
function answerStatus(server: Awaited<ReturnType<typeof openBenchServer>>): void {
  answerRequests(async (body) => {
    if ((body as { metrics?: boolean }).metrics) return serviceRegistry.metrics();
    const { accountId, workflowId, latencies } = body as { accountId: string; workflowId: string; latencies?: boolean };
    const { db } = server;
    const runs = await db
      .selectFrom('workflow_runs')
      .select(['status', (eb) => eb.fn.countAll<string>().as('n')])
      .where('account_id', '=', accountId)
      .groupBy('status')
      .execute();
    const steps = await db
      .selectFrom('workflow_run_steps')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    // Fresh statistics first: on a table just filled, the planner's guess of its size makes the join quadratic
    // (past the statement timeout at 10,000 runs).
    if (latencies) await analyze(db, ['messages']);
    const delays = latencies
      ? await sql<{ ms: number }>`
      select extract(epoch from (min(o.created_at) - i.created_at)) * 1000 as ms
      from messages i
      join messages o on o.contact_id = i.contact_id and o.direction = 'outbound' and o.sender_workflow_id = ${workflowId}
      where i.account_id = ${accountId} and i.direction = 'inbound'
      group by i.id, i.created_at`.execute(db)
      : { rows: [] };
    const waiting = runs.filter((r) => r.status === 'waiting').reduce((n, r) => n + Number(r.n), 0);
    const all = runs.reduce((n, r) => n + Number(r.n), 0);
    return {
      waiting,
      other: all - waiting,
      byStatus: Object.fromEntries(runs.map((r) => [r.status, Number(r.n)])),
      steps: Number(steps.n),
      latencies: delays.rows.map((r) => Number(r.ms)),
      rssMb: process.memoryUsage().rss / 1024 / 1024,
    } satisfies Status;
  });
}

/** A message and a question; with BENCH_SLEEP_SECONDS, a message, a sleep and a message (the restart case). */
function graphNodes(): components['schemas']['WorkflowGraphInput']['nodes'] {
  const sleep = Number(process.env.BENCH_SLEEP_SECONDS ?? 0);
  if (sleep > 0)
    return {
      root: { type: 'root', data: { next: ['hello'] } },
      hello: { type: 'message', data: { text: 'Oi! Já volto.', next: ['nap'] } },
      nap: { type: 'sleep', data: { seconds: sleep, next: ['bye'] } },
      bye: { type: 'message', data: { text: 'Voltei.', next: [null] } },
    };
  return {
    root: { type: 'root', data: { next: ['hello'] } },
    hello: { type: 'message', data: { text: 'Oi {contact.first_name}! Temos promoção.', next: ['ask'] } },
    ask: { type: 'question', data: { text: 'Qual tamanho?', answer_type: 'any', answer_field: '', next: [null] } },
  };
}

async function serve(): Promise<void> {
  const server = await openBenchServer();
  const seeded = await seedPublishedAutomation(
    server,
    { name: 'Bench engine', alias: `bench-engine-${randomUUID()}` },
    { channel: 'whatsapp', name: 'Atendimento', phone: '+5511930001234' },
    {
      title: 'Promo',
      trigger: { events: ['message'], match: 'contains', keywords: ['promo'] },
      graph: { nodes: graphNodes() },
    },
  );
  answerStatus(server);
  const start = await server.prepareWorkers('http://127.0.0.1');
  start();
  await server.listen((url) => ({ url, ...seeded }) satisfies Ready);
}

/** The restarted server: the same database, its workers started, answering the status questions. */
async function resume(): Promise<void> {
  const server = await openBenchServer();
  answerStatus(server);
  const start = await server.prepareWorkers('http://127.0.0.1');
  start();
  process.send!({ ready: true });
}

/** A second worker process on the same PostgreSQL database (answers the metrics question only). */
async function work(): Promise<void> {
  const server = await openBenchServer();
  answerRequests(async () => serviceRegistry.metrics());
  const start = await server.prepareWorkers('http://127.0.0.1');
  start();
  process.send!({ ready: true });
}

/** `count` sandbox contacts write the keyword through the admin API, `writers` at a time. */
async function writeKeyword(ready: Ready, count: number, writers = 8): Promise<void> {
  await writeInbound(
    { url: ready.url, connectionId: ready.connectionId, adminToken: ADMIN_TOKEN },
    { count, writers, firstPhone: 10_000_000, text: 'Quero a promo' },
  );
}

/** The job kinds' round trips and runs in one process's metrics text (db_round_trips_total, jobs_run_total). */
interface JobCounts {
  trips: Record<string, number>;
  runs: Record<string, number>;
}

function jobCountsOf(text: string): JobCounts {
  const counts: JobCounts = { trips: {}, runs: {} };
  for (const [, kind, n] of text.matchAll(/^db_round_trips_total\{work="job:([^"]+)"\} (\d+)$/gm))
    counts.trips[kind!] = Number(n);
  for (const [, kind, n] of text.matchAll(/^jobs_run_total\{kind="([^"]+)"\} (\d+)$/gm)) counts.runs[kind!] = Number(n);
  return counts;
}

/** The job counts of every process that runs jobs, summed. */
async function jobCounts(children: readonly ChildProcess[]): Promise<JobCounts> {
  const sum: JobCounts = { trips: {}, runs: {} };
  for (const child of children) {
    const counts = jobCountsOf(await request<string>(child, { metrics: true }));
    for (const [kind, n] of Object.entries(counts.trips)) sum.trips[kind] = (sum.trips[kind] ?? 0) + n;
    for (const [kind, n] of Object.entries(counts.runs)) sum.runs[kind] = (sum.runs[kind] ?? 0) + n;
  }
  return sum;
}

/** Round trips per run (every job kind's, over the runs) and per job of each kind, between two counts. */
function roundTripsReport(before: JobCounts, after: JobCounts, runs: number): { perRun: string; lines: string[] } {
  const kinds = [...new Set([...Object.keys(after.trips), ...Object.keys(after.runs)])].sort();
  let total = 0;
  const lines: string[] = [];
  for (const kind of kinds) {
    const trips = (after.trips[kind] ?? 0) - (before.trips[kind] ?? 0);
    const jobs = (after.runs[kind] ?? 0) - (before.runs[kind] ?? 0);
    if (trips === 0 && jobs === 0) continue;
    total += trips;
    lines.push(`  ${kind}: ${jobs} jobs, ${trips} round trips, ${jobs ? (trips / jobs).toFixed(1) : '-'} per job`);
  }
  return { perRun: (total / runs).toFixed(1), lines };
}

const pause = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/**
 * The restart case: `sleepers` runs sleep until about the same moment; the server is killed (SIGKILL) while they
 * sleep; once their waits are over a new server process starts on the same database, and the bench times how
 * long until every run has completed (goal of issue 14: within 10 s).
 */
async function measureResume(engine: EngineName, ready: Ready, processes: Processes): Promise<string[]> {
  const ask = (child: typeof processes.server) =>
    request<Status>(child, { accountId: ready.accountId, workflowId: ready.workflowId });
  const t0 = performance.now();
  await writeKeyword(ready, options.sleepers);
  for (;;) {
    const status = await ask(processes.server);
    if ((status.byStatus.running ?? 0) >= options.sleepers) break;
    if (performance.now() - t0 > 600_000) throw new Error(`runs did not all sleep: ${JSON.stringify(status)}`);
    await pause(200);
  }
  const asleep = performance.now();
  processes.server.kill('SIGKILL');
  // Every wait ends within sleep-seconds of the last run starting its sleep.
  await pause(options.sleepSeconds * 1000 + 1000 - (performance.now() - asleep));
  const restarted = processes.start<{ ready: true }>('resume');
  await restarted.ready;
  const up = performance.now();
  let status: Status;
  for (;;) {
    status = await ask(restarted.child);
    if ((status.byStatus.completed ?? 0) >= options.sleepers) break;
    if (performance.now() - up > 300_000) throw new Error(`runs did not all resume: ${JSON.stringify(status)}`);
    await pause(100);
  }
  const seconds = (performance.now() - up) / 1000;
  console.log(
    `${ENGINE_LABEL[engine]}: ${options.sleepers} runs asleep, server killed; after the restart all completed in ${seconds.toFixed(1)} s`,
  );
  return [ENGINE_LABEL[engine], String(options.sleepers), `${seconds.toFixed(1)} s`, seconds <= 10 ? 'met' : 'not met'];
}

type Processes = Parameters<Parameters<typeof withBenchServer>[4]>[1];

/** Issue 37's goals, one row per figure and engine, printed after the table. */
const goalRows: string[][] = [];
const goalRow = (engine: string, figure: string, measured: string, goal: string, met: boolean) => [
  engine,
  figure,
  measured,
  goal,
  met ? 'met' : 'NOT met',
];

async function measure(
  engine: EngineName,
  ready: Ready,
  processes: Parameters<Parameters<typeof withBenchServer>[4]>[1],
) {
  const jobProcesses: ChildProcess[] = [processes.server];
  if (engine === 'postgres') {
    const worker = processes.start<{ ready: true }>('work');
    await worker.ready;
    jobProcesses.push(worker.child);
  }
  const status = (latencies = false) =>
    request<Status>(processes.server, { accountId: ready.accountId, workflowId: ready.workflowId, latencies });
  const before = await status();
  const countsBefore = await jobCounts(jobProcesses);
  const t0 = performance.now();
  await writeKeyword(ready, options.contacts, options.writers);
  const written = performance.now();
  let last: Status = before;
  for (;;) {
    last = await status();
    if (last.waiting + last.other >= options.contacts && last.other === 0) break;
    if (performance.now() - written > 600_000) throw new Error(`runs did not all wait: ${JSON.stringify(last)}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
  const seconds = (performance.now() - t0) / 1000;
  const trips = roundTripsReport(countsBefore, await jobCounts(jobProcesses), options.contacts);
  const latencies = [...(await status(true)).latencies].sort((a, b) => a - b);
  const label = ENGINE_LABEL[engine];
  console.log(
    `${label}: ${options.contacts} writes in ${((written - t0) / 1000).toFixed(1)} s; every run waiting on its question after ${seconds.toFixed(1)} s`,
  );
  console.log(`${label}: ${trips.perRun} round trips per run (the jobs' of every kind ÷ runs), by job kind:`);
  for (const line of trips.lines) console.log(line);
  const writesPerSecond = options.contacts / ((written - t0) / 1000);
  const runsPerSecond = options.contacts / seconds;
  const p50 = quantile(latencies, 0.5);
  const p99 = quantile(latencies, 0.99);
  const growth = (last.rssMb - before.rssMb) / before.rssMb;
  goalRows.push(
    ...(engine === 'postgres'
      ? [
          goalRow(label, 'the inbound writes, /s', writesPerSecond.toFixed(0), '≥ 400', writesPerSecond >= 400),
          goalRow(label, 'runs/s', runsPerSecond.toFixed(0), '≥ 200', runsPerSecond >= 200),
          goalRow(
            label,
            'trigger → first send p50 / p99 ms',
            `${ms(p50)} / ${ms(p99)}`,
            '≤ 40 / ≤ 200',
            p50 <= 40 && p99 <= 200,
          ),
        ]
      : [goalRow(label, 'trigger → first send p50 ms', ms(p50), '≤ 300', p50 <= 300)]),
    goalRow(
      label,
      `API RSS after ${options.contacts} runs ÷ before`,
      `${(100 * growth).toFixed(0)} %`,
      options.contacts >= 10_000 ? '≤ 20 % (at 10,000 runs)' : '≤ 20 % (measured at --contacts 10000)',
      growth <= 0.2,
    ),
  );
  return [
    label,
    engine === 'postgres' ? '2 (API + 1 worker process)' : '1 (the API process)',
    writesPerSecond.toFixed(0),
    runsPerSecond.toFixed(0),
    (last.steps / seconds).toFixed(0),
    trips.perRun,
    ms(p50),
    ms(p99),
    `${before.rssMb.toFixed(0)} → ${last.rssMb.toFixed(0)}`,
  ];
}

async function bench(): Promise<void> {
  const rows = [
    [
      'engine',
      'processes with workers',
      'writes/s',
      'runs/s',
      'steps/s',
      'round trips/run',
      'trigger→send p50 ms',
      'p99 ms',
      'API RSS MiB',
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
        { ADMIN_TOKEN, SANDBOX_ENABLED: 'true', RESPONSE_VALIDATION: 'false' },
        (ready, processes) => measure(engine, ready, processes),
      ),
    );
  console.log(
    `\nAutomation engine: ${options.contacts} contacts write the keyword (${options.writers} at a time); a message and a question each:\n`,
  );
  console.log(table(rows));
  console.log("\nIssue 37's goals (the API RSS goal is for a 10,000-run burst: --contacts 10000):\n");
  console.log(table([['engine', 'figure', 'measured', 'goal', ''], ...goalRows]));

  if (options.sleepers === 0) return;
  const resumed = [['engine', 'sleeping runs', 'all completed after the restart', 'goal ≤ 10 s']];
  for (const engine of engines)
    resumed.push(
      await withBenchServer<Ready, string[]>(
        engine,
        postgresBase,
        self,
        {
          ADMIN_TOKEN,
          SANDBOX_ENABLED: 'true',
          RESPONSE_VALIDATION: 'false',
          BENCH_SLEEP_SECONDS: String(options.sleepSeconds),
        },
        (ready, processes) => measureResume(engine, ready, processes),
      ),
    );
  console.log(
    `\nRestart: runs sleeping ${options.sleepSeconds} s; the server killed (SIGKILL) meanwhile and restarted once their waits were over:\n`,
  );
  console.log(table(resumed));
}

await main(serve, bench, { work, resume });
