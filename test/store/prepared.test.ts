import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { first, inserted, prepared, preparedInsert, columnsOf } from '../../src/store/prepared.js';
import type { DB } from '../../src/store/schema.js';
import { sql } from 'kysely';
import pg from 'pg';
import { STORE_KINDS, createTestStore, type TestStore } from '../support/stores.js';

const leadsOfTenant = prepared<{ tenantId: string; limit: number }, DB['leads']>(['tenantId', 'limit'], (db, p) =>
  db.selectFrom('leads').selectAll().where('tenant_id', '=', p.tenantId).where('handle', '<>', 'constant-kept').orderBy('handle').limit(p.limit),
);
const insertLead = preparedInsert('leads', columnsOf<DB['leads']>({ id: true, tenant_id: true, handle: true, created_at: true }), ['tenant_id', 'handle']);

// One prepared query serves both databases at once, each with its own SQL (placeholders differ).
describe.each(STORE_KINDS)('prepared queries on %s', (kind) => {
  let ts: TestStore;
  beforeAll(async () => {
    ts = await createTestStore(kind);
    await ts.store.accounts.insert({ id: 'acct_p', name: 'P', multi_tenant: false, email_verified: true, created_at: 1 }, { id: 'sec_p', plain: 'secret-p' });
    await ts.store.tenants.insert({
      id: 'ten_p', account_id: 'acct_p', slug: 'p', name: 'P', timezone: 'UTC', sending_window: { start: '00:00', end: '23:59' },
      daily_first_touch_cap: 10, rate_limit: { per_second: 1, burst: 1 }, status: 'active', created_at: 1,
    });
  });
  afterAll(async () => ts.cleanup());

  it('binds new parameters on every call, keeps constants, and reports whether a conflicting insert inserted', async () => {
    const db = ts.store.database.db;
    for (const h of ['+14155550102', '+14155550101', 'constant-kept']) {
      expect(inserted(await insertLead(db, { id: `lead_${h}`, tenant_id: 'ten_p', handle: h, created_at: 5 }))).toBe(true);
    }
    expect(inserted(await insertLead(db, { id: 'lead_dup', tenant_id: 'ten_p', handle: '+14155550101', created_at: 6 }))).toBe(false);
    expect((await leadsOfTenant(db, { tenantId: 'ten_p', limit: 5 })).rows.map((r) => r.handle)).toEqual(['+14155550101', '+14155550102']);
    expect((await leadsOfTenant(db, { tenantId: 'ten_p', limit: 1 })).rows.map((r) => r.handle)).toEqual(['+14155550101']);
    expect(await first(leadsOfTenant, db, { tenantId: 'ten_other', limit: 5 })).toBeUndefined();
  });

  it('works inside a transaction and sees its uncommitted rows', async () => {
    await ts.store.database.db.transaction().execute(async (tx) => {
      await insertLead(tx, { id: 'lead_tx', tenant_id: 'ten_p', handle: '+14155550100', created_at: 7 });
      expect((await first(leadsOfTenant, tx, { tenantId: 'ten_p', limit: 1 }))?.id).toBe('lead_tx');
    });
  });

  // store.transaction is where SQLite runs prepared queries without kysely's executor.
  it("in the store's transactions: writes are the transaction's own, undone with it, unseen outside until it commits", async () => {
    const { store } = ts;
    const handles = async (db = store.database.db) => (await leadsOfTenant(db, { tenantId: 'ten_p', limit: 50 })).rows.map((r) => r.handle);
    const before = await handles();
    await expect(
      store.transaction(async (tx) => {
        await tx.chats.createLead({ id: 'lead_undone', tenant_id: 'ten_p', handle: '+14155550190', created_at: 8 });
        expect(await tx.chats.findLead('ten_p', '+14155550190')).toMatchObject({ id: 'lead_undone' });
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await handles()).toEqual(before);

    let outsideSaw: string[] | undefined;
    let leaked: (() => Promise<unknown>) | undefined;
    await store.transaction(async (tx) => {
      await tx.chats.createLead({ id: 'lead_kept', tenant_id: 'ten_p', handle: '+14155550192', created_at: 9 });
      // A read outside never sees the uncommitted row: PostgreSQL answers from before the
      // transaction, SQLite (one connection) answers once the transaction is over.
      const outside = handles().then((h) => (outsideSaw = h));
      if (kind === 'sqlite') {
        await new Promise((r) => setTimeout(r, 20));
        expect(outsideSaw).toBeUndefined();
      } else {
        await outside;
        expect(outsideSaw).not.toContain('+14155550192');
      }
      expect(await tx.chats.findLead('ten_p', '+14155550192')).toMatchObject({ id: 'lead_kept' });
      leaked = () => tx.chats.findLead('ten_p', '+14155550192');
    });
    expect(await handles()).toContain('+14155550192');
    if (kind === 'sqlite') {
      for (let i = 0; i < 50 && !outsideSaw; i++) await new Promise((r) => setTimeout(r, 5));
      expect(outsideSaw).toContain('+14155550192');
    }
    // A transaction's repositories are not a way around its end.
    await expect(leaked!()).rejects.toThrow();
  });
});

describe('prepared queries on postgres', () => {
  it('are kept by the server as named statements, parsed once per connection', async () => {
    const ts = await createTestStore('postgres');
    try {
      const names = await ts.store.database.db.transaction().execute(async (tx) => {
        for (let i = 0; i < 3; i++) await leadsOfTenant(tx, { tenantId: `ten_${i}`, limit: 1 });
        return (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(tx)).rows;
      });
      const leads = names.filter((n) => n.statement.includes('from "leads"'));
      expect(leads).toEqual([expect.objectContaining({ name: expect.stringMatching(/^blueline_\d+$/) })]);
    } finally {
      await ts.cleanup();
    }
  });

  it("keep working on a connection after another process adds a column to their table (a rolling upgrade's migration)", async () => {
    const ts = await createTestStore('postgres');
    try {
      await ts.store.accounts.insert({ id: 'acct_r', name: 'R', multi_tenant: false, email_verified: true, created_at: 1 }, { id: 'sec_r', plain: 'secret-r' });
      await ts.store.tenants.insert({
        id: 'ten_r', account_id: 'acct_r', slug: 'r', name: 'R', timezone: 'UTC', sending_window: { start: '00:00', end: '23:59' },
        daily_first_touch_cap: 10, rate_limit: { per_second: 1, burst: 1 }, status: 'active', created_at: 1,
      });
      const db = ts.store.database.db;
      const seen = await db.connection().execute(async (conn) => {
        await insertLead(conn, { id: 'lead_r', tenant_id: 'ten_r', handle: '+14155550170', created_at: 1 });
        expect((await first(leadsOfTenant, conn, { tenantId: 'ten_r', limit: 1 }))?.id).toBe('lead_r');
        // "Another process": a separate connection, as a newer version's migration would be.
        const other = new pg.Client({ connectionString: ts.location });
        await other.connect();
        await other.query('alter table leads add column nickname text');
        await other.end();
        // The kept `select *` now has a different result type; the call must still answer.
        const again = await first(leadsOfTenant, conn, { tenantId: 'ten_r', limit: 1 });
        const third = await first(leadsOfTenant, conn, { tenantId: 'ten_r', limit: 1 });
        return [again, third];
      });
      expect(seen).toEqual([expect.objectContaining({ id: 'lead_r', nickname: null }), expect.objectContaining({ id: 'lead_r', nickname: null })]);
    } finally {
      await ts.cleanup();
    }
  });
});

describe('prepared query building', () => {
  it('refuses a build that transforms a parameter instead of passing it through', async () => {
    const ts = await createTestStore('sqlite');
    try {
      const bad = prepared<{ handle: string }>(['handle'], (db, p) => db.selectFrom('leads').selectAll().where('handle', '=', p.handle.toLowerCase()));
      await expect(bad(ts.store.database.db, { handle: 'X' })).rejects.toThrow(/does not use handle/);
    } finally {
      await ts.cleanup();
    }
  });
});
