/**
 * For the store benches that run in process: `measure` on a fresh SQLite file, then on a
 * throwaway PostgreSQL server, each store closed after.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { openStore, type Store } from '../../src/store/index.js';
import { startPostgres } from '../../test/support/postgres-server.js';
import { freePort } from '../../test/support/ports.js';

export async function onSqliteThenPostgres(measure: (label: 'sqlite' | 'postgres', store: Store) => Promise<void>): Promise<void> {
  const masterKey = randomBytes(32);
  // Closing SQLite waits for its checkpointer thread, which holds no process open: without a
  // timer, Node ends the run there (exit 13) before PostgreSQL's half.
  const keepAlive = setInterval(() => {}, 1000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-store-bench-'));
  try {
    const sqlite = await openStore({ sqlitePath: path.join(dir, 'bench.db'), masterKey });
    await measure('sqlite', sqlite);
    await sqlite.close();
    const pg = await startPostgres(await freePort());
    try {
      const store = await openStore({ databaseUrl: pg.url, masterKey });
      await measure('postgres', store);
      await store.close();
    } finally {
      await pg.stop();
    }
  } finally {
    clearInterval(keepAlive);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
