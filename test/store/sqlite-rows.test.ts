import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { changesSchema, openSqlite } from '../../src/store/sqlite-handles.js';

// The store reads rows through raw arrays and a compiled row maker (sqlite-handles.ts): the rows
// must be exactly what better-sqlite3's own object rows would be.
it('reads rows as objects keyed by column, as better-sqlite3 makes them', () => {
  const h = openSqlite(':memory:');
  h.db.exec("create table t (id integer primary key, name text, note text); insert into t values (1, 'a', null), (2, 'b', 'x')");
  const queries: [string, unknown[]][] = [
    ['select * from t order by id', []],
    ['select id, name from t where id = ?', [2]],
    ['select * from t where id = ?', [99]],
    // Two columns of one name: the later one wins, as in better-sqlite3's rows.
    ['select 1 as a, 2 as a, name from t where id = 1', []],
    ['select name as "constructor", id as "toString" from t where id = 2', []],
  ];
  for (const [sql, params] of queries) {
    const expected = h.statement(sql).all(params);
    const rows = h.rows(sql, params);
    expect(rows, sql).toEqual(expected);
    for (const row of rows) expect(Object.getPrototypeOf(row), sql).toBe(Object.prototype);
  }
  // A column named __proto__ is an own property and the row stays a plain object, as better-sqlite3
  // makes it from Node 22 on (on Node 20 its rows drop the column into the prototype setter).
  const [odd] = h.rows('select name as "__proto__", id from t where id = 1', []) as Record<string, unknown>[];
  expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
  expect(Object.getOwnPropertyNames(odd)).toEqual(['__proto__', 'id']);
  expect(Object.getOwnPropertyDescriptor(odd, '__proto__')?.value).toBe('a');
  expect(h.rows('select * from t order by id', [])).toEqual([
    { id: 1, name: 'a', note: null },
    { id: 2, name: 'b', note: 'x' },
  ]);
  // Statements are prepared once per SQL text, however often they run.
  const before = h.size;
  h.rows('select * from t order by id', []);
  expect(h.size).toBe(before);
});

it('follows the schema when a migration or another connection changes a table under a kept query', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-rows-'));
  try {
    const file = path.join(dir, 'rows.sqlite');
    const h = openSqlite(file);
    h.db.exec("create table t (id integer primary key, name text); insert into t values (1, 'a')");
    const all = 'select * from t';
    expect(h.rows(all, [])).toEqual([{ id: 1, name: 'a' }]);

    // Another connection adds a column: the kept query's rows get it.
    const other = openSqlite(file);
    other.db.exec("alter table t add column note text default 'n'");
    expect(h.rows(all, [])).toEqual([{ id: 1, name: 'a', note: 'n' }]);

    // A migration on this connection renames one (same width): the store says the schema changed.
    const rename = 'alter table t rename column name to title';
    expect(changesSchema(rename)).toBe(true);
    h.db.exec(rename);
    h.schemaChanged();
    expect(h.rows(all, [])).toEqual([{ id: 1, title: 'a', note: 'n' }]);
    other.db.close();
    h.db.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('counts as schema changes exactly the statements that create, alter or drop', () => {
  for (const sql of ['create table x (a)', '  ALTER TABLE x ADD COLUMN b', 'drop index y', 'create unique index z on x (a)']) expect(changesSchema(sql), sql).toBe(true);
  for (const sql of ['select * from created', 'update alter_log set a = 1', "insert into x values ('drop table x')", 'delete from dropped']) expect(changesSchema(sql), sql).toBe(false);
});
