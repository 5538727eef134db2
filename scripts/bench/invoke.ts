// `npm run bench:invoke` (part of `npm run bench`): the invoke block (issue 22, "Figures"). A published whatsapp
// automation answers the keyword `promo` with an invoke block (a POST to a local receiver that answers in 20 ms)
// and then a message; --contacts N (300) sandbox contacts write the keyword through the admin API, --writers N
// (8) at a time. The server runs with INVOKE_DEV_TARGETS=true (the receiver is on loopback). Prints:
//   - invoke calls per second (all contacts, from the first write to the last run completed);
//   - trigger-to-send latency per run, p50/p99: from the contact's message to the automation's message after the
//     invoke block, as the database recorded them, split into the HTTP call (the attempts' time the call row
//     records) and the engine's own time (the rest: the stretch, the job's hand-offs, the wake);
//     and of the engine's time, the part around the call (from the invoke step to the send after it);
//   - the server process's RSS before and after.
// Flags: --contacts N (300), --writers N (8), --sequential (one run at a time: the engine's floor, no two runs
// sharing the process), --engine pglite|postgres|both (default: postgres when DATABASE_URL is set, else pglite).
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import {
  answerRequests,
  argInt,
  argValue,
  ENGINE_LABEL,
  enginesToRun,
  main,
  ms,
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
function engineFlagOf(): 'pglite' | 'postgres' | 'both' {
  const flag = argValue('engine') ?? (process.env.DATABASE_URL ? 'postgres' : 'pglite');
  if (flag !== 'pglite' && flag !== 'postgres' && flag !== 'both')
    throw new Error('--engine must be pglite, postgres or both');
  return flag;
}
const engineFlag = engineFlagOf();
const options = {
  contacts: argInt('contacts', 300),
  writers: argInt('writers', 8),
  engine: engineFlag,
  sequential: process.argv.includes('--sequential'),
};
const ADMIN_TOKEN = `bench-admin-${randomUUID()}`;
const RECEIVER_DELAY_MS = 20;

interface Ready {
  url: string;
  accountId: string;
  connectionId: string;
  workflowId: string;
}
interface Status {
  completed: number;
  all: number;
  /** Per run: trigger to send, and the call's HTTP time. */
  latencies: Array<{ total: number; http: number; toBlock: number }>;
  rssMb: number;
}

function answerStatus(server: Awaited<ReturnType<typeof openBenchServer>>): void {
  answerRequests(async (body) => {
    const { accountId, workflowId, latencies } = body as { accountId: string; workflowId: string; latencies?: boolean };
    const { db } = server;
    const runs = await db
      .selectFrom('workflow_runs')
      .select(['status', (eb) => eb.fn.countAll<string>().as('n')])
      .where('account_id', '=', accountId)
      .groupBy('status')
      .execute();
    const rows = latencies
      ? await sql<{ total: number; http: number; to_block: number }>`
      select extract(epoch from (min(o.created_at) - i.created_at)) * 1000 as total, max(c.duration_ms) as http,
        extract(epoch from (max(c.created_at) - i.created_at)) * 1000 as to_block
      from messages i
      join messages o on o.contact_id = i.contact_id and o.direction = 'outbound' and o.sender_workflow_id = ${workflowId}
      join workflow_runs r on r.contact_id = i.contact_id and r.workflow_id = ${workflowId}
      join invoke_calls c on c.run_id = r.id
      where i.account_id = ${accountId} and i.direction = 'inbound'
      group by i.id, i.created_at`.execute(db)
      : { rows: [] };
    return {
      completed: runs.filter((r) => r.status === 'completed').reduce((n, r) => n + Number(r.n), 0),
      all: runs.reduce((n, r) => n + Number(r.n), 0),
      latencies: rows.rows.map((r) => ({ total: Number(r.total), http: Number(r.http), toBlock: Number(r.to_block) })),
      rssMb: process.memoryUsage().rss / 1024 / 1024,
    } satisfies Status;
  });
}

async function serve(): Promise<void> {
  const server = await openBenchServer();
  const receiver = process.env.BENCH_RECEIVER_URL ?? '';
  const seeded = await seedPublishedAutomation(
    server,
    { name: 'Bench invoke', alias: `bench-invoke-${randomUUID()}` },
    { channel: 'whatsapp', name: 'Atendimento', phone: '+5511930004321' },
    {
      title: 'Promo',
      trigger: { events: ['message'], match: 'contains', keywords: ['promo'] },
      graph: {
        nodes: {
          root: { type: 'root', data: { next: ['crm'] } },
          crm: {
            type: 'invoke',
            data: {
              method: 'POST',
              endpoint: receiver,
              data: '{"name": "{contact.name}", "text": "{message.trigger}"}',
              next: ['thanks', 'thanks'],
            },
          },
          thanks: { type: 'message', data: { text: 'Recebido, {contact.first_name}!', next: [null] } },
        },
      },
    },
  );
  answerStatus(server);
  const start = await server.prepareWorkers('http://127.0.0.1');
  start();
  await server.listen((url) => ({ url, ...seeded }) satisfies Ready);
}

/** The receiver: answers every request after RECEIVER_DELAY_MS with a small JSON body. */
async function startReceiver(): Promise<{ url: string; server: Server; count: () => number }> {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      n += 1;
      setTimeout(() => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('{"ok":true}');
      }, RECEIVER_DELAY_MS);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/crm`, server, count: () => n };
}

/** `count` sandbox contacts write the keyword through the admin API, `writers` at a time. */
async function writeKeyword(ready: Ready, count: number, writers: number): Promise<void> {
  await writeInbound(
    { url: ready.url, connectionId: ready.connectionId, adminToken: ADMIN_TOKEN },
    { count, writers, firstPhone: 20_000_000, text: 'promo' },
  );
}

/**
 * --sequential: one contact at a time, the next keyword written once the run before it completed, so no two runs
 * share the process or the database: the engine's floor, apart from the load the other figures are taken under.
 */
async function writeKeywordOneByOne(ready: Ready, count: number, completed: () => Promise<number>): Promise<void> {
  const target = { url: ready.url, connectionId: ready.connectionId, adminToken: ADMIN_TOKEN };
  const start = await completed();
  for (let i = 0; i < count; i += 1) {
    await writeInbound(target, { count: 1, writers: 1, firstPhone: 20_000_000 + i, text: 'promo' });
    const deadline = performance.now() + 30_000;
    while ((await completed()) < start + i + 1) {
      if (performance.now() > deadline) throw new Error(`run ${i + 1} did not complete within 30 s`);
      await new Promise((ok) => setTimeout(ok, 20));
    }
  }
}

type Processes = Parameters<Parameters<typeof withBenchServer>[4]>[1];

async function measure(engine: EngineName, ready: Ready, processes: Processes, calls: () => number) {
  const status = (latencies = false) =>
    request<Status>(processes.server, { accountId: ready.accountId, workflowId: ready.workflowId, latencies });
  const before = await status();
  const t0 = performance.now();
  if (options.sequential) await writeKeywordOneByOne(ready, options.contacts, async () => (await status()).completed);
  else await writeKeyword(ready, options.contacts, options.writers);
  let last = before;
  for (;;) {
    last = await status();
    if (last.completed >= options.contacts) break;
    if (performance.now() - t0 > 600_000) throw new Error(`runs did not all complete: ${JSON.stringify(last)}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
  const seconds = (performance.now() - t0) / 1000;
  const runs = (await status(true)).latencies;
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const total = sorted(runs.map((r) => r.total));
  const http = sorted(runs.map((r) => r.http));
  const own = sorted(runs.map((r) => r.total - r.http));
  // The engine's time around the call: from the invoke step to the send after it, the HTTP call left out.
  const around = sorted(runs.map((r) => r.total - r.toBlock - r.http));
  console.log(
    `${ENGINE_LABEL[engine]}: ${options.contacts} runs completed in ${seconds.toFixed(1)} s; ${calls()} calls received`,
  );
  return [
    ENGINE_LABEL[engine],
    (options.contacts / seconds).toFixed(0),
    `${ms(quantile(total, 0.5))} / ${ms(quantile(total, 0.99))}`,
    `${ms(quantile(http, 0.5))} / ${ms(quantile(http, 0.99))}`,
    `${ms(quantile(own, 0.5))} / ${ms(quantile(own, 0.99))}`,
    `${ms(quantile(around, 0.5))} / ${ms(quantile(around, 0.99))}`,
    `${before.rssMb.toFixed(0)} → ${last.rssMb.toFixed(0)}`,
  ];
}

async function bench(): Promise<void> {
  const receiver = await startReceiver();
  const rows = [
    [
      'engine',
      'invoke calls/s',
      'trigger→send p50 / p99 ms',
      'HTTP call p50 / p99 ms',
      'engine’s own p50 / p99 ms',
      'of which around the call p50 / p99 ms',
      'API RSS MiB',
    ],
  ];
  const { engines, postgresBase, notes } = await enginesToRun(options.engine);
  for (const note of notes) console.log(note);
  try {
    for (const engine of engines)
      rows.push(
        await withBenchServer<Ready, string[]>(
          engine,
          postgresBase,
          self,
          { ADMIN_TOKEN, SANDBOX_ENABLED: 'true', INVOKE_DEV_TARGETS: 'true', BENCH_RECEIVER_URL: receiver.url },
          (ready, processes) => measure(engine, ready, processes, receiver.count),
        ),
      );
  } finally {
    receiver.server.close();
  }
  console.log(
    `\nInvoke: ${options.contacts} contacts write the keyword (${options.sequential ? 'one run at a time' : `${options.writers} at a time`}); an invoke block (receiver ` +
      `answering in ${RECEIVER_DELAY_MS} ms), then a message; the engine's own time is trigger→send minus the HTTP call:\n`,
  );
  console.log(table(rows));
}

await main(serve, bench);
