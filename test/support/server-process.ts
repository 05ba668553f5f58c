/** The service in a process of its own (`src/main.ts`, as `npm start` runs it), on a fresh data directory. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './ports.js';

export const projectRoot = path.resolve(import.meta.dirname, '..', '..');

const tree = process.env.VITEST ? (await import('vitest')).inject('serviceTree') : undefined;

/**
 * Node's arguments that run `src/<entry>.ts` (`main`, `cli/main`): its transpiled copy from the
 * run's global setup (service-tree.ts), or through tsx where there is none.
 */
export function entryArgs(entry: string): string[] {
  return tree ? [path.join(tree, `${entry}.js`)] : ['--import', 'tsx', path.join(projectRoot, 'src', `${entry}.ts`)];
}

/**
 * How long a service process may take to answer /readyz. A start (loading the modules,
 * migrations, the demo sandbox) takes 1–3 s on a quiet machine and over 15 s on a loaded 2-core
 * one; the deadline only bounds a start that never comes, so it is generous.
 */
export const SERVICE_START_MS = 120_000;
/** How much of a process's output a failed start shows. */
const OUTPUT_KEPT = 16_384;
/** The time budget of a test that starts service processes: a few starts at the deadline above. */
export const SERVICE_TEST_MS = 3 * SERVICE_START_MS;

// A test that times out while a start is under way never gets the process to clean up, and it
// would outlive the test run: every process started here is killed after the test file
// (vitest kills a worker that does not exit, so an exit handler would not run).
const spawned = new Set<ChildProcess>();
if (process.env.VITEST) {
  const { afterAll } = await import('vitest');
  afterAll(() => {
    for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
}

/** The service (`src/main.ts`) in a child process, on `port`; not waited for (see untilReady). */
export function spawnService(env: Record<string, string>, stdio: ('ignore' | 'pipe' | 'inherit')[]): ChildProcess {
  const child = spawn(process.execPath, entryArgs('main'), {
    cwd: projectRoot,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio,
  });
  spawned.add(child);
  child.once('exit', () => spawned.delete(child));
  return child;
}

/**
 * Resolves once the service at `url` answers /readyz 200; throws when it exits first or never
 * does, with the end of what it wrote (`output`), which tells how far its start got.
 */
export async function untilReady(child: ChildProcess, url: string, output?: () => string): Promise<void> {
  const deadline = Date.now() + SERVICE_START_MS;
  for (;;) {
    // A process killed by a signal (an abort, SIGSEGV) has no exit code, only a signal.
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited (${child.signalCode ?? `code ${child.exitCode}`})`);
    if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) return;
    if (Date.now() > deadline) {
      const tail = output?.().slice(-OUTPUT_KEPT);
      throw new Error(`server did not answer /readyz within ${SERVICE_START_MS / 1000} s${tail ? `; its output ended with:\n${tail}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  dataDir: string;
  /** Everything the process wrote to stdout so far (when started with `captureStdout`). */
  stdout(): string;
  /** SIGKILL if still running, and the data directory removed. */
  cleanup(): void;
}

/** Starts the service and resolves once /readyz answers 200. */
export async function startServerProcess(opts: {
  env?: Record<string, string>;
  captureStdout?: boolean;
  prefix: string;
  /** Start on an existing data directory and port (a restart), instead of fresh ones. */
  dataDir?: string;
  port?: number;
}): Promise<ServerProcess> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), opts.prefix));
  const port = opts.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const child = spawnService({ PORT: String(port), DATA_DIR: dataDir, ...opts.env }, ['ignore', 'pipe', 'inherit']);
  let stdout = '';
  // Kept whole when asked for; else its end only, for a start that never comes (untilReady).
  child.stdout?.on('data', (d: Buffer) => (stdout = opts.captureStdout ? stdout + d.toString() : (stdout + d.toString()).slice(-OUTPUT_KEPT)));
  const cleanup = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await untilReady(child, url, () => stdout);
  } catch (err) {
    cleanup();
    throw err;
  }
  return { child, url, dataDir, stdout: () => stdout, cleanup };
}
