import { defineConfig } from 'vitest/config';

// Two cores: run test files on two forks; PostgreSQL is one shared embedded
// server started once by the global setup, each test file gets its own database.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'sdk/test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
