import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
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
  },
});
