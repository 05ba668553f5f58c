/**
 * A migration that fails part-way leaves the database as it was, on SQLite as on PostgreSQL: the
 * next start runs it again from the beginning, instead of failing for ever on what its first try
 * left behind. Here migration 032 (it rebuilds the simulator's device log, builds an index, then
 * drops the one it replaces) fails at its last statement, the old index gone missing; once it is
 * back, the migration applies whole, the device log intact.
 */
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import type { DB } from '../../src/store/schema.js';
import * as m032 from '../../src/store/migrations/032_send_path_btrees.js';
import { migrations } from '../../src/store/migrations/index.js';
import { STORE_KINDS, createTestStore, joinTestStore, type TestStore } from '../support/stores.js';

const LINE = 'line_migration';

/** The definitions of the guid lookup's indexes on messages and of the device log, read through `db` (another connection than the migrating one). */
async function schemaOf(kind: TestStore['kind'], db: Kysely<DB>): Promise<string[]> {
  const { rows } =
    kind === 'sqlite'
      ? await sql<{ def: string }>`select sql as def from sqlite_master where (name like 'messages%guid' or tbl_name = 'simulator_sent') and sql is not null order by name`.execute(db)
      : await sql<{ def: string }>`select indexdef as def from pg_indexes where indexname like 'messages%guid' or tablename = 'simulator_sent' order by indexname`.execute(db);
  return rows.map((r) => r.def);
}

describe.each(STORE_KINDS)('a migration that fails part-way (%s)', (kind) => {
  let ts: TestStore;
  let reopened: Store | undefined;
  afterEach(async () => {
    await reopened?.close();
    reopened = undefined;
    await ts?.cleanup();
  });

  it('leaves the database as it was, and applies whole once what stopped it is gone', async () => {
    ts = await createTestStore(kind);
    for (let i = 0; i < 3; i++) await ts.store.simulatorLog.append(`dev_${i}`, LINE, { kind: 'text', text: `entry ${i}` }, 1_000 + i);
    const entries = await ts.store.simulatorLog.recent(LINE);
    expect(entries).toHaveLength(3);

    // The database as the version before 032 left it, but for the index 032 drops last.
    const db = ts.store.database.db;
    // (the migrations after 032 undone first, newest first)
    for (const name of Object.keys(migrations).filter((n) => n > '032_send_path_btrees').reverse()) {
      await migrations[name]!.down!(db as never);
      await sql`delete from kysely_migration where name = ${name}`.execute(db);
    }
    await m032.down(db as never);
    await sql`delete from kysely_migration where name = '032_send_path_btrees'`.execute(db);
    await sql`drop index messages_guid`.execute(db);
    const before = await schemaOf(kind, db);

    // Opened as the next start would (this store stays open beside it, as another process would).
    await expect(joinTestStore(ts)).rejects.toThrow(/^migration 032_send_path_btrees failed: /);
    // Nothing of it stayed: neither the rebuilt device log nor the new index.
    expect(await schemaOf(kind, db)).toEqual(before);

    await sql`create index messages_guid on messages (line_id, provider_guid)`.execute(db);

    reopened = (await joinTestStore(ts)).store;
    expect(await reopened.simulatorLog.recent(LINE)).toEqual(entries);
    const after = await schemaOf(kind, db);
    expect(after.some((d) => /messages_line_guid/.test(d) && /provider_guid"? is not null/i.test(d))).toBe(true);
    expect(after.some((d) => /"?messages_guid"? on/i.test(d))).toBe(false);
  });
});
