/**
 * Starts one real PostgreSQL server for the whole test run (see
 * postgres-server.ts), unless
 * BLUELINE_TEST_DATABASE_URL points at one already. Each test file creates its
 * own database on it (see stores.ts).
 */
import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres-server.js';
import { freePort } from './ports.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
    /** The run's own server through its Unix socket; absent with BLUELINE_TEST_DATABASE_URL. */
    pgSocketUrl?: string;
  }
}

export default async function setup(project: TestProject) {
  const external = process.env.BLUELINE_TEST_DATABASE_URL;
  if (external) {
    project.provide('pgUrl', external);
    return;
  }
  const server = await startPostgres(await freePort());
  project.provide('pgUrl', server.url);
  project.provide('pgSocketUrl', server.socketUrl);
  return () => server.stop();
}
