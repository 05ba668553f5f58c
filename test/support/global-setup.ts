/**
 * Starts one real PostgreSQL server for the whole test run (see
 * postgres-server.ts), unless
 * BLUELINE_TEST_DATABASE_URL points at one already. Each test file creates its
 * own database on it (see stores.ts).
 */
import type { TestProject } from 'vitest/node';
import path from 'node:path';
import { startPostgres } from './postgres-server.js';
import { freePort } from './ports.js';
import { buildServiceTree } from './service-tree.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
    /** The run's own server through its Unix socket; absent with BLUELINE_TEST_DATABASE_URL. */
    pgSocketUrl?: string;
    /** The service transpiled for processes the tests start (service-tree.ts). */
    serviceTree: string;
  }
}

export default async function setup(project: TestProject) {
  const tree = await serviceTree();
  project.provide('serviceTree', tree.dir);
  project.onTestsRerun(() => tree.rebuild());
  const external = process.env.BLUELINE_TEST_DATABASE_URL;
  if (external) {
    project.provide('pgUrl', external);
    return () => tree.release();
  }
  // Vitest runs the global setup once per test project (vitest.config.ts has two, and the root),
  // each with its own copy of this module: they share one server through the main process's
  // globals, stopped when the last of them is done.
  const shared = ((globalThis as { [SHARED]?: { server: ReturnType<typeof startPostgres>; users: number } })[SHARED] ??= {
    server: freePort().then((port) => startPostgres(port)),
    users: 0,
  });
  shared.users++;
  const server = await shared.server;
  project.provide('pgUrl', server.url);
  project.provide('pgSocketUrl', server.socketUrl);
  return async () => {
    tree.release();
    if (--shared.users === 0) await server.stop();
  };
}

const SHARED = Symbol.for('blueline.test.postgres');
const TREE = Symbol.for('blueline.test.service-tree');

/** One tree for the run, shared by the projects' setups as the server is; removed after the last. */
async function serviceTree(): Promise<{ dir: string; rebuild: () => Promise<void>; release: () => void }> {
  const shared = ((globalThis as { [TREE]?: { tree: ReturnType<typeof buildServiceTree>; users: number } })[TREE] ??= {
    tree: buildServiceTree(path.resolve(import.meta.dirname, '..', '..')),
    users: 0,
  });
  shared.users++;
  const tree = await shared.tree;
  return {
    dir: tree.dir,
    rebuild: () => tree.rebuild(),
    release: () => {
      if (--shared.users === 0) tree.remove();
    },
  };
}
