import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openStore, type Store } from '../../src/store/index.js';
import { pipelineConnectionsFor } from '../../src/store/db.js';
import { createPgDatabase } from '../support/stores.js';
import type { Lead } from '../../src/store/index.js';

/**
 * Prepared statements outside a transaction share pipelined connections on PostgreSQL
 * (src/store/pg-pipeline.ts): many callers' statements leave in one write, yet each must
 * stay its own transaction, as through the pool.
 */
describe('pipelined statements on PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof createPgDatabase>>;
  let store: Store;
  const told: Error[] = [];
  const tenantId = 'ten_p';
  const lead = (n: number): Lead => ({ id: `lead_${n}`, tenant_id: tenantId, handle: `+1415555${String(n).padStart(4, '0')}`, created_at: n });

  beforeAll(async () => {
    db = await createPgDatabase();
    store = await openStore({ databaseUrl: db.url, masterKey: randomBytes(32), onIdleConnectionError: (e) => told.push(e) });
    await store.accounts.insert({ id: 'acct_p', name: 'P', multi_tenant: false, email_verified: true, created_at: 1 }, { id: 'sec_p', plain: 'secret-p' });
    await store.tenants.insert({
      id: tenantId, account_id: 'acct_p', slug: 'p', name: 'P', timezone: 'UTC', sending_window: { start: '00:00', end: '23:59' },
      daily_first_touch_cap: 10, rate_limit: { per_second: 1, burst: 1 }, status: 'active', created_at: 1,
    });
  });
  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  it('keeps each statement its own transaction: one that fails in a crowded turn fails alone', async () => {
    // 40 concurrent lead inserts in one turn, one more reusing a lead's id (a primary-key
    // violation): the 40 must commit.
    const rows = Array.from({ length: 40 }, (_, i) => lead(1000 + i));
    const bad = { ...rows[0]!, handle: 'dup-id' }; // the same primary key as rows[0]
    const results = await Promise.allSettled([...rows.slice(0, 20).map((l) => store.chats.createLead(l)), store.chats.createLead(bad), ...rows.slice(20).map((l) => store.chats.createLead(l))]);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
    const count = await store.database.db.selectFrom('leads').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(40);
    // Whichever of the two same-id inserts reached the server first won (two connections share the load).
    const handles = (await store.database.db.selectFrom('leads').select('handle').execute()).map((r) => r.handle);
    for (const l of rows.slice(1)) expect(handles).toContain(l.handle);
  });

  it('replaces a pipelined connection the server ended, and keeps working', async () => {
    const tenant = tenantId;
    expect(await store.chats.findLead(tenant, 'nobody')).toBeUndefined(); // opens the pipelined connections
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    const name = new URL(db.url).pathname.slice(1);
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
    await admin.end();
    await new Promise((r) => setTimeout(r, 100));
    expect(told.some((e) => /terminat/.test(e.message))).toBe(true);
    expect(await store.chats.findLead(tenant, 'nobody')).toBeUndefined();
    expect((await store.chats.createLead(lead(5000))).created).toBe(true);
  });
});

/**
 * How many pipelined connections the store opens follows the server's synchronous_commit
 * (db.ts, pipelineConnectionsFor): with commits that wait for their WAL flush, more connections
 * let commits share a flush; with commits that do not wait, two fuller ones are faster.
 */
describe('pipelined connections by synchronous_commit', () => {
  it('chooses 2 when commits do not wait for the WAL flush and 8 when they do', () => {
    expect(pipelineConnectionsFor('off')).toBe(2);
    for (const waits of ['on', 'local', 'remote_write', 'remote_apply']) expect(pipelineConnectionsFor(waits)).toBe(8);
  });

  /** The backends of `url`'s database whose last statement was a lead lookup (only pipelined connections run it). */
  async function pipelinedBackends(setting: 'on' | 'off', explicit?: number): Promise<number> {
    const db = await createPgDatabase();
    const name = new URL(db.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    // Per database, as an operator may set it (new sessions see it).
    await admin.query(`alter database ${name} set synchronous_commit = ${setting}`);
    const store = await openStore({ databaseUrl: db.url, masterKey: randomBytes(32), pgPipelineConnections: explicit });
    try {
      // 40 lookups in one turn: each takes the least busy connection, opening new ones while they last.
      await Promise.all(Array.from({ length: 40 }, (_, i) => store.chats.findLead('ten_none', `+1415555${String(i).padStart(4, '0')}`)));
      const { rows } = await admin.query<{ n: string }>(
        `select count(*) as n from pg_stat_activity where datname = $1 and query like '%from "leads"%' and pid <> pg_backend_pid()`,
        [name],
      );
      return Number(rows[0]!.n);
    } finally {
      await store.close();
      await admin.end();
      await db.drop();
    }
  }

  it('opens 8 on a server whose commits wait, 2 on one whose commits do not, and what BLUELINE_PG_PIPELINE_CONNECTIONS says', async () => {
    expect(await pipelinedBackends('on')).toBe(8);
    expect(await pipelinedBackends('off')).toBe(2);
    expect(await pipelinedBackends('on', 3)).toBe(3);
  });
});
