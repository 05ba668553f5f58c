/** The service in a process of its own (`src/main.ts`, as `npm start` runs it), on a fresh data directory. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './ports.js';

export const projectRoot = path.resolve(import.meta.dirname, '..', '..');

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
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src/main.ts')], {
    cwd: projectRoot,
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...opts.env },
    stdio: ['ignore', opts.captureStdout ? 'pipe' : 'ignore', 'inherit'],
  });
  let stdout = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  const cleanup = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  for (let i = 0; i < 300; i++) {
    // A process killed by a signal (an abort, SIGSEGV) has no exit code, only a signal.
    if (child.exitCode !== null || child.signalCode !== null) {
      cleanup();
      throw new Error(`server exited (${child.signalCode ?? `code ${child.exitCode}`})`);
    }
    if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) return { child, url, dataDir, stdout: () => stdout, cleanup };
    await new Promise((r) => setTimeout(r, 100));
  }
  cleanup();
  throw new Error('server did not start');
}
