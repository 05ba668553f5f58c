import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kysely, sql } from 'kysely';
import { GroupCommitSqliteDialect } from '../../src/store/sqlite-group-commit.js';
import { openSqlite, type SqliteHandle } from '../../src/store/sqlite-handles.js';

interface T {
  items: { id: string; n: number };
}

describe('SQLite group commit', () => {
  let dir: string;
  let file: string;
  let sqlite: SqliteHandle;
  let db: Kysely<T>;
  let commits: number;
  /** A second, independent connection: what a restart after a crash would find. */
  let outside: SqliteHandle;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-gc-'));
    file = path.join(dir, 'db.sqlite');
    sqlite = openSqlite(file);
    sqlite.db.exec('pragma journal_mode = WAL');
    // Count real commits without changing what they do.
    const prepare = sqlite.db.prepare.bind(sqlite.db);
    commits = 0;
    sqlite.db.prepare = ((q: string) => {
      const stmt = prepare(q);
      if (q !== 'commit') return stmt;
      const run = stmt.run.bind(stmt);
      return Object.assign(stmt, { run: () => (commits++, run()) });
    }) as typeof sqlite.db.prepare;
    db = new Kysely<T>({ dialect: new GroupCommitSqliteDialect(sqlite) });
    await sql`create table items (id text primary key, n integer not null)`.execute(db);
    await sql`create table children (id text primary key, item_id text not null references items(id) deferrable initially deferred)`.execute(db);
    outside = openSqlite(file, { readonly: true });
    commits = 0;
  });
  afterEach(async () => {
    outside.db.close();
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const committedIds = () => (outside.statement('select id from items order by id').all() as { id: string }[]).map((r) => r.id);
  const insert = (id: string, n = 0) =>
    db.insertInto('items').values({ id, n }).execute().then(() => {
      // Nobody hears of a write before it is committed.
      expect(committedIds()).toContain(id);
    });

  it('a transaction rolled back alone leaves no batch open: another connection can write after the turn', async () => {
    await expect(
      db.transaction().execute(async (tx) => {
        await tx.insertInto('items').values({ id: 'undone', n: 1 }).execute();
        throw new Error('changed its mind');
      }),
    ).rejects.toThrow('changed its mind');
    await new Promise((r) => setImmediate(r));
    const writer = openSqlite(file);
    try {
      writer.db.exec('pragma busy_timeout = 0');
      // An open batch would still hold the write lock (SQLITE_BUSY) and the WAL's snapshot.
      writer.db.exec("insert into items (id, n) values ('other', 2)");
    } finally {
      writer.db.close();
    }
    expect(committedIds()).toEqual(['other']);
  });

  it('reads the columns a migration leaves: a kept `select *` follows a renamed column', async () => {
    await insert('a', 1);
    expect((await sql`select * from items`.execute(db)).rows).toEqual([{ id: 'a', n: 1 }]);
    await sql`alter table items rename column n to count`.execute(db);
    expect((await sql`select * from items`.execute(db)).rows).toEqual([{ id: 'a', count: 1 }]);
  });

  it('commits concurrent writes together, and none is answered before its commit', async () => {
    await Promise.all(Array.from({ length: 50 }, (_, i) => insert(`i${String(i).padStart(2, '0')}`)));
    expect(committedIds()).toHaveLength(50);
    expect(commits).toBe(1);
  });

  it('fails only the statement that failed; the rest of its batch commits', async () => {
    await insert('taken');
    const results = await Promise.allSettled([insert('a'), db.insertInto('items').values({ id: 'taken', n: 1 }).execute(), insert('b')]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    expect(committedIds()).toEqual(['a', 'b', 'taken']);
  });

  it('rolls back a failed explicit transaction alone, and keeps its writes from other callers while it runs', async () => {
    let release!: () => void;
    const paused = new Promise<void>((r) => (release = r));
    let seenFromOutsideTx: string[] | undefined;
    const tx = db.transaction().execute(async (trx) => {
      await trx.insertInto('items').values({ id: 'in-tx', n: 1 }).execute();
      await paused;
      throw new Error('changed my mind');
    });
    // Issued while the transaction is open: it waits, and never sees the uncommitted row.
    const read = db.selectFrom('items').select('id').execute().then((rows) => (seenFromOutsideTx = rows.map((r) => r.id)));
    const other = insert('outside');
    await new Promise((r) => setTimeout(r, 20));
    expect(seenFromOutsideTx).toBeUndefined();
    release();
    await expect(tx).rejects.toThrow('changed my mind');
    await Promise.all([read, other]);
    expect(seenFromOutsideTx).toEqual([]);
    expect(committedIds()).toEqual(['outside']);
  });

  it('answers a read that may have seen uncommitted writes only after they are committed', async () => {
    const write = db.insertInto('items').values({ id: 'w', n: 7 }).execute();
    const rows = await db.selectFrom('items').selectAll().execute();
    expect(rows).toEqual([{ id: 'w', n: 7 }]);
    expect(committedIds()).toEqual(['w']);
    await write;
  });

  it('fails every caller of a batch whose commit fails, and keeps working afterwards', async () => {
    // A deferred foreign key is checked at commit: this batch cannot commit.
    const results = await Promise.allSettled([
      insert('lost'),
      db.insertInto('children' as never).values({ id: 'orphan', item_id: 'nowhere' } as never).execute(),
    ]);
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(committedIds()).toEqual([]);
    await insert('next');
    expect(committedIds()).toEqual(['next']);
  });

  it('commits a successful explicit transaction before answering', async () => {
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('items').values({ id: 'x', n: 1 }).execute();
      await trx.updateTable('items').set({ n: 2 }).where('id', '=', 'x').execute();
    });
    expect(outside.statement('select n from items where id = ?').get('x')).toEqual({ n: 2 });
  });
});
