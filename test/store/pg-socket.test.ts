import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/index.js';
import { createPgDatabase } from '../support/stores.js';

/**
 * PostgreSQL on the same host, reached through its Unix socket (README, "Running on
 * PostgreSQL"): `DATABASE_URL=postgres://user:…@/db?host=/var/run/postgresql`. Everything the
 * store opens (the pool, the pipelined connections, the LISTEN connection) goes that way.
 */
const socketUrl = inject('pgSocketUrl');

describe.skipIf(!socketUrl)('PostgreSQL through its Unix socket', () => {
  let db: Awaited<ReturnType<typeof createPgDatabase>>;
  let store: Store;

  beforeAll(async () => {
    db = await createPgDatabase();
    const name = new URL(db.url).pathname.slice(1);
    store = await openStore({ databaseUrl: socketUrl!.replace('@/postgres?', `@/${name}?`), masterKey: randomBytes(32) });
  });
  afterAll(async () => {
    await store?.close();
    await db.drop();
  });

  it('migrates, writes and reads through the pool and the pipelined connections, and hears notifications', async () => {
    const migrated = await sql<{ n: string }>`select count(*) as n from kysely_migration`.execute(store.database.db);
    expect(Number(migrated.rows[0]!.n)).toBeGreaterThan(20);
    // A socket connection has no client address (TCP would show 127.0.0.1).
    const { rows } = await sql<{ client_addr: string | null }>`select client_addr from pg_stat_activity where pid = pg_backend_pid()`.execute(store.database.db);
    expect(rows[0]!.client_addr).toBeNull();
    // A transaction (pool) and pipelined statements outside one.
    await store.accounts.insert({ id: 'acct_s', name: 'S', multi_tenant: false, email_verified: true, created_at: 1 }, { id: 'sec_s', plain: 'secret-s' });
    await store.tenants.insert({
      id: 'ten_s', account_id: 'acct_s', slug: 's', name: 'S', timezone: 'UTC', sending_window: { start: '00:00', end: '23:59' },
      daily_first_touch_cap: 10, rate_limit: { per_second: 1, burst: 1 }, status: 'active', created_at: 1,
    });
    const leads = await Promise.all(
      Array.from({ length: 10 }, (_, i) => store.chats.createLead({ id: `lead_s${i}`, tenant_id: 'ten_s', handle: `+1415555010${i}`, created_at: i })),
    );
    expect(leads.every((l) => l.created)).toBe(true);
    expect((await store.chats.findLead('ten_s', '+14155550107'))?.id).toBe('lead_s7');

    const heard = new Promise<string>((resolve) => {
      void store.database.notifier!.listen('socket_test', resolve).then(() => store.database.notifier!.notify('socket_test', 'hello'));
    });
    expect(await heard).toBe('hello');
  });
});
