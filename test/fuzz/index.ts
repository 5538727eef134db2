// One fuzz run on one engine: start the real server, seed it, plan the cases of the bundled spec, run them one
// after another under the watchdog and the time limit, stop everything (also on failure), and report.
// Shared by `npm run fuzz` (scripts/fuzz.ts, the long run) and test/server/fuzz.test.ts (the short one).
import { resolve } from 'node:path';
import { planCases, type FuzzCase } from './cases.js';
import { Prng } from './prng.js';
import { CLASSES, Runner, Watchdog, type FuzzClass, type Violation } from './runner.js';
import { World } from './seed.js';
import { startReceiver, startServer, type Engine, type MigratedDatabase } from './server.js';
import { loadSpec, type Operation } from './spec.js';

export type { Engine, FuzzClass, Violation };
export { CLASSES };
export { fuzzEngines } from './server.js';

export const ROOT = resolve(import.meta.dirname, '../..');
/** The classes a run fuzzes (watchdog and run are the harness's own findings). */
export const FUZZ_CLASSES: FuzzClass[] = ['methods', 'numeric', 'nesting', 'schema', 'ids'];

export interface FuzzOptions {
  engine: Engine;
  seed: string;
  /** About how many fuzz requests: the schema class's random mutations fill what the others leave. */
  requests?: number;
  /** Random mutations per operation (overrides `requests`). */
  mutationsPerOperation?: number;
  /** The ids class's spellings per id (default all nine; `spellingsOf` in cases.ts). */
  spellingsPerId?: number;
  classes?: FuzzClass[];
  /** Only the operations whose key (`GET /v1/contacts/{contactId}`) matches. */
  only?: RegExp;
  /** Not the operations whose key matches. */
  skip?: RegExp;
  /** The whole run, server start and seeding included. */
  timeLimitMs: number;
  log?: (line: string) => void;
  /** Logs every case as it starts. */
  verbose?: boolean;
  /** Logs every request and its answer. */
  trace?: boolean;
  /** Asked between cases: true stops the run (an interrupt). */
  shouldStop?: () => boolean;
  /** An answer later than this is a violation (default 2 s). */
  answerWithinMs?: number;
  /** A /healthz poll not answered within this is a violation (default 1 s). */
  healthWithinMs?: number;
  /** A migrated database to start the server on (the test suite's copies), else an empty one it migrates. */
  from?: MigratedDatabase;
}

export interface FuzzResult {
  engine: Engine;
  seed: string;
  requests: number;
  supportRequests: number;
  /** Operations of the spec that got at least one fuzz request, of how many it has. */
  operations: number;
  totalOperations: number;
  requestsByClass: Record<string, number>;
  violations: Violation[];
  rateLimited: number;
  clockAdvances: number;
  cases: number;
  casesRun: number;
  /** Why the run stopped early, if it did. */
  stopped: string | undefined;
  seedFailures: string[];
  /** Watchdog polls of /healthz, and the slowest answered one. */
  healthPolls: number;
  slowestHealthMs: number;
  slowestHealthContext: string;
  /** The server's stderr (kept to print on failure). */
  stderr: string;
  durationMs: number;
}

const MAX_VIOLATIONS = 5000;

export async function runFuzz(options: FuzzOptions): Promise<FuzzResult> {
  const started = Date.now();
  const deadlineAt = started + options.timeLimitMs;
  const log = options.log ?? (() => {});
  const spec = loadSpec(ROOT);
  const prng = new Prng(options.seed);
  const filter = (op: Operation) =>
    (options.only ? options.only.test(op.key) : true) && (options.skip ? !options.skip.test(op.key) : true);
  const classes = (options.classes ?? FUZZ_CLASSES).filter((c) => FUZZ_CLASSES.includes(c));
  const ops = spec.operations.filter(filter);

  const receiver = await startReceiver();
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let runner: Runner | undefined;
  let watchdog: Watchdog | undefined;
  let world: World | undefined;
  let cases: FuzzCase[] = [];
  let casesRun = 0;
  const violations: Violation[] = [];
  try {
    log(`[${options.engine}] starting the server (seed ${options.seed})`);
    server = await startServer(options.engine, { root: ROOT, ...(options.from ? { from: options.from } : {}) });
    runner = new Runner({
      baseUrl: server.baseUrl,
      apiKey: server.apiKey,
      adminToken: server.adminToken,
      deadlineAt,
      log: (line) => log(`[${options.engine}] ${line}`),
      trace: options.trace,
      ...(options.answerWithinMs !== undefined ? { requestTimeoutMs: options.answerWithinMs } : {}),
    });
    watchdog = new Watchdog(runner, server.baseUrl, undefined, options.healthWithinMs);
    watchdog.start();
    world = new World(runner, spec, prng.fork('world'), receiver.url, server.demoAccountId);
    log(`[${options.engine}] seeding at ${server.baseUrl} (started in ${Math.round((Date.now() - started) / 1000)} s)`);
    await world.seed();
    log(`[${options.engine}] seeded in ${Math.round((Date.now() - started) / 1000)} s`);

    // The deterministic classes first, then the schema class's mutations sized to fill the request budget.
    const fixed = planCases(spec, { classes: classes.filter((c) => c !== 'schema'), mutationsPerOperation: 1, filter });
    const fixedRequests = fixed.reduce((n, c) => n + c.estimate, 0);
    const mutations =
      options.mutationsPerOperation ??
      Math.max(1, Math.floor(((options.requests ?? 6000) - fixedRequests) / Math.max(ops.length, 1)) - 1);
    cases = planCases(spec, {
      classes,
      mutationsPerOperation: mutations,
      filter,
      ...(options.spellingsPerId !== undefined ? { spellingsPerId: options.spellingsPerId } : {}),
    });
    const estimate = cases.reduce((n, c) => n + c.estimate, 0);
    log(`[${options.engine}] ${cases.length} cases over ${ops.length} operations, about ${estimate} requests`);

    const ctx = { runner, world, spec };
    let lastClass: FuzzClass | undefined;
    for (const fuzzCase of cases) {
      if (options.shouldStop?.()) runner.stop('interrupted');
      if (runner.stopped !== undefined) break;
      if (Date.now() > deadlineAt) {
        runner.stop('the run reached its time limit');
        runner.record({
          cls: 'run',
          method: '-',
          path: '-',
          op: '-',
          label: 'time limit',
          rule: `the run did not finish within ${Math.round(options.timeLimitMs / 1000)} s (${cases.length - casesRun} cases left)`,
          kind: 'time limit',
          status: null,
          excerpt: '',
        });
        break;
      }
      if (fuzzCase.cls !== lastClass) {
        lastClass = fuzzCase.cls;
        log(
          `[${options.engine}] class ${fuzzCase.cls} (after ${runner.stats.requests} requests, ` +
            `${runner.violations.length} violations, ${Math.round((Date.now() - started) / 1000)} s)`,
        );
      }
      if (options.verbose) log(`[${options.engine}] case ${fuzzCase.cls} ${fuzzCase.op}: ${fuzzCase.label}`);
      try {
        await fuzzCase.run(ctx);
      } catch (error) {
        runner.record({
          cls: 'run',
          method: '-',
          path: '-',
          op: fuzzCase.op,
          label: fuzzCase.label,
          rule: `the harness failed in this case: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
          kind: 'harness error',
          status: null,
          excerpt: '',
        });
      }
      casesRun += 1;
      if (runner.violations.length > MAX_VIOLATIONS) runner.stop(`more than ${MAX_VIOLATIONS} violations`);
    }
    const code = server.exitCode();
    if (code !== null)
      runner.record({
        cls: 'run',
        method: '-',
        path: '-',
        op: '-',
        label: 'server process',
        rule: `the server process exited during the run (code ${code})`,
        kind: 'server exited',
        status: null,
        excerpt: server.stderr().slice(-300),
      });
  } finally {
    await watchdog?.stop();
    if (runner) violations.push(...runner.violations);
    const stderr = server?.stderr() ?? '';
    await server?.stop();
    await receiver.close();
    log(`[${options.engine}] server stopped${stderr ? ` (stderr ${stderr.length} characters)` : ''}`);
  }
  if (!runner || !server) throw new Error('the run ended without a server');
  const stats = runner.stats;
  const specKeys = new Set(spec.operations.map((o) => o.key));
  return {
    engine: options.engine,
    seed: options.seed,
    requests: stats.requests,
    supportRequests: stats.supportRequests,
    operations: [...stats.operations].filter((k) => specKeys.has(k)).length,
    totalOperations: ops.length,
    requestsByClass: stats.byClass,
    violations,
    rateLimited: stats.rateLimited,
    clockAdvances: stats.clockAdvances,
    cases: cases.length,
    casesRun,
    stopped: runner.stopped,
    seedFailures: world?.seedFailures ?? [],
    healthPolls: watchdog?.polls ?? 0,
    slowestHealthMs: watchdog?.slowest.ms ?? 0,
    slowestHealthContext: watchdog?.slowest.context ?? '',
    stderr: server.stderr(),
    durationMs: Date.now() - started,
  };
}

/** One line per violation. */
export function formatViolation(v: Violation): string {
  const excerpt = v.excerpt ? ` | ${v.excerpt.replace(/\s+/g, ' ').slice(0, 160)}` : '';
  return `[${v.cls}] ${v.method} ${v.path} → ${v.status ?? 'no answer'}: ${v.rule} (${v.label})${excerpt}`;
}

export interface DistinctViolation {
  cls: FuzzClass;
  op: string;
  status: number | null;
  kind: string;
  count: number;
  /** The cases that met it (`limit=Infinity`, `contactId upper`…), each once. */
  labels: string[];
  example: Violation;
}

/** Violations grouped by class, operation, status and kind of rule. */
export function distinctViolations(violations: Violation[]): DistinctViolation[] {
  const groups = new Map<string, DistinctViolation>();
  for (const v of violations) {
    const key = [v.cls, v.op, v.status, v.kind].join('|');
    const group = groups.get(key) ?? {
      cls: v.cls,
      op: v.op,
      status: v.status,
      kind: v.kind,
      count: 0,
      labels: [],
      example: v,
    };
    group.count += 1;
    if (!group.labels.includes(v.label)) group.labels.push(v.label);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** One line per distinct violation. */
export function formatDistinct(d: DistinctViolation): string {
  const labels = d.labels.length > 6 ? [...d.labels.slice(0, 6), `… ${d.labels.length - 6} more`] : d.labels;
  return `${d.count}× [${d.cls}] ${d.op} → ${d.status ?? 'no answer'} ${d.kind}: ${d.example.rule.slice(0, 160)} (cases: ${labels.join('; ')})`;
}

/** The report of a run: the figures, the first 20 violations and the distinct ones. */
export function formatResult(r: FuzzResult, options: { stderrOnFailure?: boolean } = {}): string {
  const byClass = CLASSES.map((c) => [c, r.violations.filter((v) => v.cls === c).length] as const)
    .filter(([, n]) => n > 0)
    .map(([c, n]) => `${c} ${n}`)
    .join(', ');
  const requestsByClass = Object.entries(r.requestsByClass)
    .map(([c, n]) => `${c} ${n}`)
    .join(', ');
  const lines = [
    `${r.engine}: requests ${r.requests} · operations ${r.operations}/${r.totalOperations} · violations ${r.violations.length}` +
      ` (by class ${byClass || 'none'})`,
    `  requests by class: ${requestsByClass}; cases ${r.casesRun}/${r.cases}; 429s ${r.rateLimited} ` +
      `(sandbox clock advanced ${r.clockAdvances} times); harness requests ${r.supportRequests}; ` +
      `${Math.round(r.durationMs / 1000)} s; seed ${r.seed}`,
    `  watchdog: ${r.healthPolls} polls of /healthz, slowest answer ${r.slowestHealthMs} ms` +
      (r.slowestHealthContext ? ` (${r.slowestHealthContext.slice(0, 160)})` : ''),
  ];
  if (r.stopped) lines.push(`  STOPPED EARLY: ${r.stopped}`);
  for (const failure of r.seedFailures) lines.push(`  ${failure}`);
  if (r.violations.length) {
    lines.push(`  first ${Math.min(20, r.violations.length)} violations:`);
    for (const v of r.violations.slice(0, 20)) lines.push(`    ${formatViolation(v)}`);
    const distinct = distinctViolations(r.violations);
    lines.push(`  distinct violations (${distinct.length}):`);
    for (const d of distinct) lines.push(`    ${formatDistinct(d)}`);
    if (options.stderrOnFailure && r.stderr.trim()) lines.push('  server stderr (tail):', r.stderr.slice(-4000));
  }
  return lines.join('\n');
}
