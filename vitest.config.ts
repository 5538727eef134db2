import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/** The files that replace a module with `vi.mock`: they need modules of their own (an isolated worker). */
const MOCKING = [
  'test/bounded-loops.test.ts',
  'test/server/replies-lists.test.ts',
  'test/server/tags.test.ts',
  'test/server/workflows.test.ts',
];

/**
 * The longest files (measured 2026-12-07 in a whole run with DATABASE_URL, both engines: 15 – 104 s each, most of it
 * real processes, browsers and waits), in that order. A clean clone has no timings cached, so Vitest would start
 * them wherever they fall: the last one started ran alone for up to a minute at the end while the other worker had
 * nothing left.
 */
const LONGEST_FIRST = [
  'test/server/fuzz.test.ts',
  'test/server/process.test.ts',
  'test/server/startup.test.ts',
  'test/server/console-view.test.ts',
  'test/server/engine-blocks.test.ts',
  'test/server/console-runs.test.ts',
  'test/server/console-webhooks.test.ts',
  'test/server/code-samples.test.ts',
  'test/server/rate-limit.test.ts',
  'test/generated.test.ts',
  'test/server/tenant-load.test.ts',
  'test/server/console-variables.test.ts',
  'test/server/console-page.test.ts',
  'test/server/deadline.test.ts',
  'test/server/readme.test.ts',
  'test/server/admin.test.ts',
  'test/server/console-flow.test.ts',
  'test/spec-lint.test.ts',
  'test/server/sandbox.test.ts',
  'test/server/idempotency.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const at = LONGEST_FIRST.indexOf(relative(this.ctx.config.root, spec.moduleId));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    // The migrated database templates, made once per run instead of once per test file.
    globalSetup: ['test/global-setup.ts'],
    // The mock test starts Prism and the generated-files test regenerates everything: allow time.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // What a test waits for with expect.poll comes within 1 s on an idle machine, and later on CI's 2 shared cores.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // Two test files at a time: Vitest's default (cores − 1) is one on the 2-core CI machine, and most files spend
    // their time waiting on PostgreSQL, child processes and sockets rather than on the CPU.
    maxWorkers: 2,
    reporters: ['default'],
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        // A worker runs its files on one module graph (loaded once, not once per file: a third of the suite's
        // CPU went to importing the server again), with the validators and PGlite's module warm.
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: MOCKING, isolate: false },
      },
      { extends: true, test: { name: 'isolated', include: MOCKING } },
    ],
  },
});
