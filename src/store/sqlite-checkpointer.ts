/**
 * WAL checkpoints off the event loop.
 *
 * SQLite's automatic checkpoint runs inside the commit that crosses 1,000 WAL
 * pages: it copies the pages into the database file and fsyncs, ~20 ms during
 * which the whole service (one thread) stands still, and which every request
 * in flight then carries in its latency. Here the serving connection never
 * checkpoints; a worker thread with its own connection copies committed pages
 * in the background (PASSIVE: it never waits for, nor blocks, the writer).
 *
 * A WAL only starts over from its beginning when a write begins after every
 * frame was copied, and under steady writes that moment keeps slipping. So when
 * the WAL file grows past `walLimitBytes`, the writer restarts it after a
 * commit (a RESTART checkpoint): the worker has copied nearly everything by
 * then, so that costs a few ms instead of a checkpoint's tens, and the file
 * stays bounded.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { SqliteHandle } from './sqlite-handles.js';

/** Shared words: [0] set to stop the worker; [1] set while the writer wants to restart the WAL, so the worker holds off. */
const STOP = 0;
const HOLD = 1;
/** Commits between two looks at the WAL file's size (a stat costs a few µs). */
const SIZE_CHECK_EVERY = 16;

// Plain CommonJS, evaluated as the worker's script so it runs the same from src/ (tests) and dist/.
// Its database and one statement stay reachable until the worker ends, and it never calls
// pragma() (which makes a throwaway Statement): see sqlite-handles.ts.
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const flags = new Int32Array(workerData.flags);
const db = new Database(workerData.file, { fileMustExist: true });
db.exec('pragma busy_timeout = 0');
parentPort.postMessage('ready');
const checkpoint = db.prepare('pragma wal_checkpoint(PASSIVE)');
while (Atomics.load(flags, ${STOP}) === 0) {
  if (Atomics.load(flags, ${HOLD}) === 1) {
    Atomics.wait(flags, ${HOLD}, 1, 50);
    continue;
  }
  let row;
  try { row = checkpoint.get(); } catch { row = undefined; }
  const behind = row && row.log > row.checkpointed;
  // Still behind: go again soon, so the copy catches up during a pause in writes and the WAL can restart.
  Atomics.wait(flags, ${STOP}, 0, behind ? 2 : workerData.idleMs);
}
db.close();
`;

export interface Checkpointer {
  /** Called by the writer after each commit: restarts a WAL that grew long. Cheap when there is nothing to do. */
  afterCommit(): void;
  /** Resolves once the worker has opened its connection (tests wait for it; the service need not). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

export interface CheckpointerOptions {
  /** WAL length past which the writer restarts it after a commit. */
  walLimitBytes?: number;
  /** How long the worker rests when everything is copied. */
  idleMs?: number;
}

export function startCheckpointer(
  file: string,
  writer: SqliteHandle,
  opts: CheckpointerOptions = {},
): Checkpointer {
  writer.db.exec('pragma wal_autocheckpoint = 0');
  const walLimit = opts.walLimitBytes ?? 32 * 1024 * 1024;
  // A WAL that starts over keeps its file, cut back to this size: so a file longer than it
  // means the WAL itself grew past it since it last started over.
  writer.db.exec(`pragma journal_size_limit = ${walLimit}`);
  const walFile = `${file}-wal`;
  const flags = new Int32Array(new SharedArrayBuffer(8));
  let commits = 0;
  let restartDue = false;
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      file,
      flags: flags.buffer,
      idleMs: opts.idleMs ?? 100,
    },
  });
  worker.unref();
  // A failed worker must not take the service down: the writer checkpoints itself from then on.
  let failed = false;
  worker.on('error', () => {
    failed = true;
  });
  const exited = new Promise<void>((r) => worker.once('exit', () => r()));
  const ready = new Promise<void>((r) => worker.once('message', () => r()));
  return {
    ready,
    afterCommit() {
      if (failed) {
        failed = false;
        writer.db.exec('pragma wal_autocheckpoint = 1000');
      }
      if (!restartDue && ++commits % SIZE_CHECK_EVERY !== 0) return;
      if (!restartDue && (fs.statSync(walFile, { throwIfNoEntry: false })?.size ?? 0) <= walLimit) return;
      // SQLite does not wait for the checkpoint lock: while the worker is mid-copy this is
      // busy, so the worker holds off after its current pass and the next commit tries again.
      Atomics.store(flags, HOLD, 1);
      try {
        restartDue = (writer.statement('pragma wal_checkpoint(RESTART)').get() as { busy: number } | undefined)?.busy !== 0;
      } catch {
        restartDue = true;
      }
      if (!restartDue) {
        Atomics.store(flags, HOLD, 0);
        Atomics.notify(flags, HOLD);
      }
    },
    async stop() {
      // Held by nothing else at shutdown: unreferenced, the process would end (exit code 0) while
      // this waits, before the writer's close and whatever the caller does after it.
      worker.ref();
      Atomics.store(flags, STOP, 1);
      Atomics.notify(flags, STOP);
      Atomics.store(flags, HOLD, 0);
      Atomics.notify(flags, HOLD);
      await exited;
    },
  };
}
