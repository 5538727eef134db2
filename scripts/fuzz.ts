// `npm run fuzz`: the long spec-driven fuzz run against the real server (npm start), on PGlite and, when
// DATABASE_URL is set, on a fresh PostgreSQL database of that server. About 6,000 requests per engine over every
// operation of generated/openapi.yaml and generated/admin-openapi.yaml, in five classes (methods, numeric,
// nesting, schema, ids); exits 1 when any violation is found. The machinery is test/fuzz/ (shared with test/server/fuzz.test.ts).
//
//   npm run fuzz -- [--requests N] [--seed S] [--engine pglite|postgres] [--classes ids,numeric,…]
//                   [--only REGEX] [--skip REGEX] [--time-limit SECONDS] [--quiet | --verbose | --trace]
//
// --only / --skip filter operations by their key (`DELETE /v1/contacts/{contactId}/tags/{tagId}`); the same
// --seed gives the same cases.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import {
  FUZZ_CLASSES,
  formatResult,
  fuzzEngines,
  runFuzz,
  type Engine,
  type FuzzClass,
  type FuzzResult,
} from '../test/fuzz/index.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '6000' },
    seed: { type: 'string' },
    engine: { type: 'string' },
    classes: { type: 'string' },
    only: { type: 'string' },
    skip: { type: 'string' },
    'time-limit': { type: 'string', default: '1200' },
    quiet: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    trace: { type: 'boolean', default: false },
  },
});

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const requests = Number(values.requests);
if (!Number.isInteger(requests) || requests < 1) fail(`--requests: a positive integer, not ${values.requests}`);
const timeLimit = Number(values['time-limit']);
if (!Number.isFinite(timeLimit) || timeLimit <= 0) fail(`--time-limit: seconds, not ${values['time-limit']}`);
const seed = values.seed ?? randomBytes(4).toString('hex');
const available = fuzzEngines();
const engines: Engine[] = values.engine ? (values.engine.split(',') as Engine[]) : available;
for (const engine of engines)
  if (!available.includes(engine))
    fail(`--engine ${engine}: not available (${available.join(', ')}; postgres needs DATABASE_URL)`);
const classes = values.classes ? (values.classes.split(',') as FuzzClass[]) : FUZZ_CLASSES;
for (const c of classes)
  if (!FUZZ_CLASSES.includes(c)) fail(`--classes: ${c} is not one of ${FUZZ_CLASSES.join(', ')}`);

// An interrupt ends the run after the case in flight: the server is stopped and its database dropped.
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error(`${signal}: stopping the run (again to exit at once)`);
  });

const results: FuzzResult[] = [];
for (const engine of engines) {
  if (interrupted) break;
  const result = await runFuzz({
    engine,
    seed,
    requests,
    classes,
    only: values.only ? new RegExp(values.only) : undefined,
    skip: values.skip ? new RegExp(values.skip) : undefined,
    timeLimitMs: timeLimit * 1000,
    log: values.quiet ? undefined : (line) => console.log(line),
    verbose: values.verbose || values.trace,
    trace: values.trace,
    shouldStop: () => interrupted,
  });
  results.push(result);
  console.log(`\n${formatResult(result, { stderrOnFailure: true })}\n`);
}
console.log(`seed ${seed} (npm run fuzz -- --seed ${seed} repeats these cases)`);
for (const r of results)
  console.log(
    `${r.engine}: requests ${r.requests} · operations ${r.operations} · violations ${r.violations.length}` +
      ` · 429s ${r.rateLimited}${r.stopped ? ` · stopped: ${r.stopped}` : ''}`,
  );
process.exit(results.some((r) => r.violations.length > 0) || interrupted ? 1 : 0);
