import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openStore, type Store } from '../../src/store/index.js';
import { createPgDatabase } from '../support/stores.js';

describe('PostgreSQL connections ended by the server', () => {
  let db: Awaited<ReturnType<typeof createPgDatabase>>;
  let store: Store;
  const told: Error[] = [];
  beforeAll(async () => {
    db = await createPgDatabase();
    store = await openStore({ databaseUrl: db.url, masterKey: randomBytes(32), onIdleConnectionError: (e) => told.push(e) });
  });
  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  it('survives the server ending an idle pooled connection, and keeps working', async () => {
    await store.database.ping(); // leaves an idle connection in the pool
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    const name = new URL(db.url).pathname.slice(1);
    const killed = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
    await admin.end();
    expect(killed.rowCount).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 100));
    expect(told.length).toBeGreaterThan(0);
    expect(told[0]!.message).toMatch(/terminat/);
    await store.database.ping(); // a fresh connection
    expect(await store.accounts.count()).toBe(0);
  });
});
