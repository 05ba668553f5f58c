import { defineConfig } from 'vitest/config';

/**
 * Test files that measure this process's memory while they run: each gets a fresh process, where
 * a full collection is quick and nothing left by an earlier file counts.
 */
const MEASURES_MEMORY = [
  'sdk/test/upload.test.ts',
  'test/drivers/bluebubbles/attachment-streaming.test.ts',
  'test/drivers/bluebubbles/inbound-streaming.test.ts',
  'test/media/blobs-s3.test.ts',
];

// Two cores: run test files on two forks; PostgreSQL is one shared embedded
// server started once by the global setup, each test file gets its own database.
// Every other file shares its fork's modules with the files run before it (isolate: false): the
// service's module graph is loaded once per fork, not once per file (a third of the run's time).
// So a file must leave nothing behind that another could trip on: stop what it starts, restore
// what it mocks (vi.restoreAllMocks, useRealTimers).
export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts', 'sdk/test/**/*.test.ts'], exclude: MEASURES_MEMORY, isolate: false } },
      { extends: true, test: { name: 'isolated', include: MEASURES_MEMORY } },
    ],
  },
});
