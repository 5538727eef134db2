import { defineConfig } from 'vitest/config';

/** The files that replace a module with `vi.mock`: they need modules of their own (an isolated worker). */
const MOCKING = [
  'test/bounded-loops.test.ts',
  'test/server/replies-lists.test.ts',
  'test/server/tags.test.ts',
  'test/server/workflows.test.ts',
];

export default defineConfig({
  test: {
    // The migrated database templates, made once per run instead of once per test file.
    globalSetup: ['test/global-setup.ts'],
    // The mock test starts Prism and the generated-files test regenerates everything: allow time.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two test files at a time: Vitest's default (cores − 1) is one on the 2-core CI machine, and most files spend
    // their time waiting on PostgreSQL, child processes and sockets rather than on the CPU.
    maxWorkers: 2,
    reporters: ['default'],
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
