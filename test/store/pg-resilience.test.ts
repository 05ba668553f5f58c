import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
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

  // A restart or failover can end a connection while a request holds it between two statements
  // (a transaction's await, say). pg emits 'error' on that client, and the pool listens only to
  // idle ones: unheard, it was an uncaught exception that ended the whole process.
  it('survives the server ending a connection that is checked out between two statements', async () => {
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      const failed = await store.database.db
        .transaction()
        .execute(async (tx) => {
          const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx)).rows[0]!.pid;
          await admin.query('select pg_terminate_backend($1)', [pid]);
          // The server's FATAL message arrives while no statement of ours is in flight.
          await new Promise((r) => setTimeout(r, 200));
          await sql`select 1`.execute(tx);
        })
        .then(
          () => undefined,
          (err: Error) => err,
        );
      expect(failed?.message).toMatch(/terminat|not queryable|Connection terminated/i);
    } finally {
      await admin.end();
    }
    expect(await store.accounts.count()).toBe(0); // the pool dropped that connection and opened another
  });
});

// A LISTEN connection carries other processes' wake-ups (new events for SSE, inbound to claim).
// One lost while the database stays away longer than a single retry used to be gone for good:
// the process fell back to polling until it restarted, and said nothing.
describe('PostgreSQL LISTEN through an outage', () => {
  let db: Awaited<ReturnType<typeof createPgDatabase>>;
  let store: Store;
  let admin: pg.Client;
  const changes: string[] = [];
  beforeAll(async () => {
    db = await createPgDatabase();
    store = await openStore({
      databaseUrl: db.url,
      masterKey: randomBytes(32),
      listenRetryMs: [20, 40],
      onListenChange: (channel, state) => changes.push(`${channel} ${state}`),
    });
    const adminUrl = new URL(db.url);
    adminUrl.pathname = '/postgres';
    admin = new pg.Client({ connectionString: adminUrl.toString() });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.query(`alter database ${name()} allow_connections true`).catch(() => {});
    await admin.end();
    await store.close();
    await db.drop();
  });
  const name = () => new URL(db.url).pathname.slice(1);
  const until = async (what: () => boolean, ms = 10_000) => {
    for (const end = Date.now() + ms; !what(); ) {
      if (Date.now() > end) throw new Error(`still waiting; changes so far: ${changes.join(', ')}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const listeners = async () =>
    (await admin.query(`select count(*)::int as n from pg_stat_activity where datname = $1 and query ilike 'listen%'`, [name()])).rows[0].n as number;

  it('opens it again once the database is back, however many tries fail meanwhile, and says so', async () => {
    const heard: string[] = [];
    const unlisten = await store.database.notifier!.listen('wake_test', (p) => heard.push(p));
    expect(await listeners()).toBe(1);

    // The database refuses every new connection, then its sessions end: an outage.
    await admin.query(`alter database ${name()} allow_connections false`);
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name()]);
    await until(() => changes.includes('wake_test lost'));
    // Several tries fail while it is away (after 20 ms, then every 40 ms).
    await new Promise((r) => setTimeout(r, 300));
    expect(changes).not.toContain('wake_test restored');

    await admin.query(`alter database ${name()} allow_connections true`);
    await until(() => changes.includes('wake_test restored'));
    expect(await listeners()).toBe(1);
    await store.database.notifier!.notify('wake_test', 'after the outage');
    await until(() => heard.includes('after the outage'));

    await unlisten();
    expect(await listeners()).toBe(0);
  });
});
