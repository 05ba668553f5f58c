/**
 * For the store benches that run in process: `measure` on a fresh SQLite file, then on a
 * throwaway PostgreSQL server, each store closed after.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { openStore, type Store } from '../../src/store/index.js';
import { systemClock } from '../../src/clock.js';
import { accountsService } from '../../src/domain/accounts-tenants/service.js';
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

/** A project `bench` with a simulator line `line-1`, written straight to the store. */
export async function benchTenant(store: Store): Promise<{ id: string }> {
  const accounts = accountsService({ store, clock: systemClock(), secretOverlapMs: 0, onChange: () => {} });
  const { account } = await accounts.createAccount({ name: 'Bench' });
  const tenant = await accounts.createTenant({ account_id: account.id, slug: 'bench' });
  await store.database.db
    .insertInto('phone_lines')
    .values({ id: 'line-1', tenant_id: tenant.id, phone_number: '+14155550000', service: 'imessage', driver: 'simulator', driver_config_enc: '', capabilities: '[]', is_active: 1, created_at: 0 })
    .execute();
  return { id: tenant.id };
}
