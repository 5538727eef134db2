// `npm run bench:workflows` (part of `npm run bench`): automations at Part B's size limit over HTTP, on embedded
// PGlite and on PostgreSQL. A valid graph of 305 blocks just under 256 KiB once the service fills in positions
// (tags blocks naming 100 real tags, message blocks with long texts), sent without positions:
//   - POST /v1/workflows (create: validation, positions, the references index, the audit entry), sequential;
//   - PATCH /v1/workflows/{id} replacing the whole graph (If-Match), sequential;
//   - POST /v1/workflows/{id}/validate (every stage, warnings included) on the saved draft.
// Prints p50/p99 of each over --runs N (50) after a warm-up. The server child is started like main.ts (see
// common.ts): the real app and pipeline, response validation off (the production default), rate limits counted
// but never refusing. Flags: --runs N (50), --blocks N (305), --engine pglite|postgres|both (both).
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  argInt,
  ENGINE_LABEL,
  engineOption,
  enginesToRun,
  main,
  ms,
  openBenchServer,
  quantile,
  table,
  withBenchServer,
  type EngineName,
} from './common.js';

const self = fileURLToPath(import.meta.url);
const options = { runs: argInt('runs', 50), blocks: argInt('blocks', 305), engine: engineOption() };
const TAGS = Array.from({ length: 100 }, (_, i) => `Campanha ${i}`);
const WARMUP = 5;

interface Ready {
  url: string;
  apiKey: string;
}

async function serve(): Promise<void> {
  const { createAccount } = await import('../../server/domain/accounts/accounts.js');
  const { createApiKey, SCOPES } = await import('../../server/domain/accounts/keys.js');
  const { createTag } = await import('../../server/domain/tags/tags.js');
  const server = await openBenchServer();
  const { db, clock } = server;
  const account = await createAccount(db, clock, {
    name: 'Bench automations',
    alias: `bench-workflows-${randomBytes(4).toString('hex')}`,
  });
  const key = await createApiKey(db, clock, {
    accountId: account.id,
    name: 'bench key',
    scopes: SCOPES,
    validityDays: 30,
  });
  for (const name of TAGS) await createTag(db, clock, account.id, name);
  await server.listen((url) => ({ url, apiKey: key.secret }) satisfies Ready);
}

/** `blocks` blocks in a chain: tags blocks and message blocks of ~900 characters, no positions. */
function bigGraph(blocks: number, variant: number): { nodes: Record<string, unknown> } {
  const nodes: Record<string, unknown> = { root: { type: 'root', data: { next: ['b0'] } } };
  for (let i = 0; i < blocks; i += 1) {
    const next = [i + 1 < blocks ? `b${i + 1}` : null];
    nodes[`b${i}`] =
      i % 5 === 0
        ? { type: 'tags', data: { operation: 'add', tags: [TAGS[i % TAGS.length], TAGS[(i + 1) % TAGS.length]], next } }
        : {
            type: 'message',
            data: { text: `${variant} ${'Olá {contact.first_name}! '.repeat(40)}`.slice(0, 900), next },
          };
  }
  return { nodes };
}

async function timed(runs: number, call: (i: number) => Promise<Response>, expected: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = -WARMUP; i < runs; i += 1) {
    const start = performance.now();
    const res = await call(i);
    const elapsed = performance.now() - start;
    if (res.status !== expected) throw new Error(`${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    if (i >= 0) samples.push(elapsed);
  }
  return samples.sort((a, b) => a - b);
}

async function measure(engine: EngineName, ready: Ready): Promise<string[][]> {
  const headers = { Authorization: `Bearer ${ready.apiKey}`, 'Content-Type': 'application/json' };
  const graph = bigGraph(options.blocks, 0);
  const body = JSON.stringify({
    title: 'Bench',
    channel: { type: 'instagram' },
    trigger: { events: ['message'], match: 'contains', keywords: ['bench'] },
    graph,
  });
  const ids: string[] = [];
  const creates = await timed(
    options.runs,
    async () => {
      const res = await fetch(`${ready.url}/v1/workflows`, { method: 'POST', headers, body });
      if (res.status === 201) ids.push(((await res.clone().json()) as { id: string }).id);
      return res;
    },
    201,
  );
  const stored = (await (await fetch(`${ready.url}/v1/workflows/${ids[0]}`, { headers })).text()).length;
  const id = ids[0]!;
  let revision = 0;
  const patches = await timed(
    options.runs,
    async (i) => {
      const res = await fetch(`${ready.url}/v1/workflows/${id}`, {
        method: 'PATCH',
        headers: { ...headers, 'If-Match': `"${revision}"` },
        body: JSON.stringify({ graph: bigGraph(options.blocks, i + WARMUP + 1) }),
      });
      if (res.status === 200) revision += 1;
      return res;
    },
    200,
  );
  const validations = await timed(
    options.runs,
    () => fetch(`${ready.url}/v1/workflows/${id}/validate`, { method: 'POST', headers }),
    200,
  );
  const row = (name: string, s: number[]) => [ENGINE_LABEL[engine], name, ms(quantile(s, 0.5)), ms(quantile(s, 0.99))];
  console.log(
    `${ENGINE_LABEL[engine]}: graph of ${options.blocks + 1} blocks, ${(stored / 1024).toFixed(0)} KiB as read back (positions filled in)`,
  );
  return [
    row(`POST /v1/workflows (${(body.length / 1024).toFixed(0)} KiB body)`, creates),
    row('PATCH /v1/workflows/{id} (whole graph)', patches),
    row('POST /v1/workflows/{id}/validate', validations),
  ];
}

async function bench(): Promise<void> {
  const rows: string[][] = [['engine', 'request', 'p50 ms', 'p99 ms']];
  const { engines, postgresBase, notes } = await enginesToRun(options.engine);
  for (const note of notes) console.log(note);
  for (const engine of engines)
    rows.push(
      ...(await withBenchServer<Ready, string[][]>(engine, postgresBase, self, {}, (ready) => measure(engine, ready))),
    );
  console.log(
    `\nAutomations at the size limit, ${options.runs} sequential requests each after ${WARMUP} of warm-up:\n`,
  );
  console.log(table(rows));
}

await main(serve, bench);
