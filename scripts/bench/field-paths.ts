// `npm run bench:field-paths`: what reading an invoke answer's fields costs now that it runs in a worker thread
// with a budget (issue 33; docs/decisions.md, "JSONPath without an evaluator"). For a small answer (the common
// case) and a 1 MiB one, each read N times one after another: the latency of a read through the worker
// (postMessage, JSON.parse and the paths there, the answer back) beside the same paths read on this thread, and
// the longest pause of this thread's event loop meanwhile. Also the worker's first start, and a path that runs
// out of its budget followed by a read on the new worker. Flags: --reads N (500).
import { performance } from 'node:perf_hooks';
import { FieldPathEvaluator, FIELD_PATHS_BUDGET_MS } from '../../server/engine/blocks/invoke/field-evaluator.js';
import { fieldValuesOf } from '../../server/blocks/invoke/field-path.js';

const readsFlag = process.argv.indexOf('--reads');
const READS = readsFlag > 0 ? Number(process.argv[readsFlag + 1]) : 500;

const FIELDS = [
  { path: '$.customer.plan', name: 'plan' },
  { path: '$.items[-1].id', name: 'last' },
  { path: '$.items[?@.price > 10].id', name: 'dear' },
];
const small = JSON.stringify({
  customer: { plan: 'gold', name: 'Ana' },
  items: [
    { id: 'a1', price: 5 },
    { id: 'b2', price: 20 },
  ],
});
const large = JSON.stringify({
  customer: { plan: 'gold', name: 'Ana' },
  items: Array.from({ length: 12_000 }, (_, i) => ({ id: `id-${i}`, price: i % 50, note: 'x'.repeat(40) })),
});

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? 0;
const ms = (n: number) => `${n.toFixed(2)} ms`;

/** The event loop's longest pause while `work` runs. */
async function watchingTheLoop<T>(work: () => Promise<T>): Promise<{ result: T; longestPause: number }> {
  let longest = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last - 1);
    last = now;
  }, 1);
  const result = await work();
  clearInterval(ticker);
  return { result, longestPause: longest };
}

async function measure(label: string, answer: string, evaluator: FieldPathEvaluator) {
  const worker: number[] = [];
  const inThread: number[] = [];
  const reads = label === 'small' ? READS : Math.max(20, Math.floor(READS / 10));
  const { longestPause } = await watchingTheLoop(async () => {
    for (let i = 0; i < reads; i += 1) {
      const started = performance.now();
      const reading = await evaluator.read(FIELDS, answer);
      worker.push(performance.now() - started);
      if (reading.status !== 'read') throw new Error(`a read ended ${reading.status}`);
    }
  });
  for (let i = 0; i < reads; i += 1) {
    const started = performance.now();
    fieldValuesOf(FIELDS, answer);
    inThread.push(performance.now() - started);
  }
  console.log(
    `${label} answer (${(answer.length / 1024).toFixed(0)} KiB), ${reads} reads: worker p50 ${ms(percentile(worker, 50))}, ` +
      `p99 ${ms(percentile(worker, 99))}; on this thread p50 ${ms(percentile(inThread, 50))}, p99 ${ms(percentile(inThread, 99))}; ` +
      `longest pause of this thread's loop during the worker's reads ${ms(longestPause)}`,
  );
}

const evaluator = new FieldPathEvaluator();
let started = performance.now();
await evaluator.read(FIELDS, small);
console.log(
  `field paths: the worker's first start and read ${ms(performance.now() - started)} (from source: tsx registers in it)`,
);
await measure('small', small, evaluator);
await measure('large', large, evaluator);
started = performance.now();
const { result, longestPause } = await watchingTheLoop(() =>
  evaluator.read([{ path: "$[?match(@, '(a+)+b')]", name: 'm' }], JSON.stringify([`${'a'.repeat(40)}c`])),
);
const stopped = performance.now() - started;
started = performance.now();
await evaluator.read(FIELDS, small);
console.log(
  `a backtracking path: ${result.status} after ${ms(stopped)} (budget ${FIELD_PATHS_BUDGET_MS} ms), longest pause of ` +
    `this thread's loop ${ms(longestPause)}; the next read, on a new worker, ${ms(performance.now() - started)}`,
);
await evaluator.close();
