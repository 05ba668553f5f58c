/**
 * Queries built and compiled once, then run with new parameters.
 *
 * kysely builds an immutable query tree and compiles it to SQL on every call.
 * For the small indexed statements on the hot paths (recording an inbound
 * message, delivering it) that costs more than SQLite takes to run them. A
 * prepared query is built once per database with a marker in place of each
 * named parameter; each call only fills the markers' slots.
 *
 * The build must not branch on its parameters, nor transform them: the same
 * SQL must fit every call, and each parameter must reach the query as given.
 * A parameter that never shows up in the compiled query is refused at once.
 */
import { createQueryId, type Compilable, type Kysely, type QueryResult, type RawBuilder, type RootOperationNode } from 'kysely';
import type { DB } from './schema.js';

// Mixed case, so that a build that changes a parameter's case is caught as well.
const MARK = '\u0000Blueline-Param:';

interface Template {
  sql: string;
  query: RootOperationNode;
  /** per placeholder: the parameter's name, or a constant the build put there */
  slots: (string | { value: unknown })[];
}

export type Prepared<P, R> = (db: Kysely<DB>, params: P) => Promise<QueryResult<R>>;

/** Runs compiled SQL on a database or transaction without kysely's executor. */
export type DirectRunner = (query: { sql: string; parameters: readonly unknown[] }) => Promise<QueryResult<unknown>> | QueryResult<unknown>;

const directRunners = new WeakMap<Kysely<DB>, DirectRunner>();

/** The SQL of every prepared query compiled so far, with a statement name of its own (PostgreSQL). */
const statementNames = new Map<string, string>();

/**
 * The name under which `sql` may be kept as a server-side prepared statement,
 * if it is the SQL of a prepared query: a fixed, small set, so a connection
 * keeps a bounded number of them.
 */
export const preparedStatementName = (sql: string): string | undefined => statementNames.get(sql);

/**
 * Lets prepared queries on `db` (a database or a transaction) skip kysely's
 * executor. Registered by a dialect that has a cheaper way (SQLite); where
 * none is registered, they go through kysely as any query does.
 */
export function runPreparedDirectly(db: Kysely<DB>, runner: DirectRunner): void {
  directRunners.set(db, runner);
}

export function prepared<P extends Record<string, unknown>, R = unknown>(
  names: readonly (keyof P & string)[],
  build: (db: Kysely<DB>, p: P) => Compilable<R> | RawBuilder<R>,
): Prepared<P, R> {
  // Keyed by the database's adapter: shared by a database and its transactions, distinct per database.
  const templates = new WeakMap<object, Template>();
  const compile = (db: Kysely<DB>): Template => {
    const markers = Object.fromEntries(names.map((n) => [n, MARK + n])) as P;
    // A query builder compiles itself; `sql` needs the database (the extra argument is ignored by the former).
    const c = (build(db, markers) as RawBuilder<R>).compile(db);
    const slots = c.parameters.map((v) => (typeof v === 'string' && v.startsWith(MARK) ? v.slice(MARK.length) : { value: v }));
    const missing = names.filter((n) => !slots.includes(n));
    if (missing.length) throw new Error(`prepared query does not use ${missing.join(', ')}: ${c.sql}`);
    if (!statementNames.has(c.sql)) statementNames.set(c.sql, `blueline_${statementNames.size + 1}`);
    return { sql: c.sql, query: c.query, slots };
  };
  return async (db, params) => {
    const key = db.getExecutor().adapter;
    let t = templates.get(key);
    if (!t) templates.set(key, (t = compile(db)));
    const parameters = t.slots.map((s) => (typeof s === 'string' ? params[s] : s.value));
    const direct = directRunners.get(db);
    if (direct) return (await direct({ sql: t.sql, parameters })) as QueryResult<R>;
    return db.executeQuery<R>({ sql: t.sql, query: t.query, queryId: createQueryId(), parameters });
  };
}

/** The first row of a prepared query's result. */
export async function first<P, R>(q: Prepared<P, R>, db: Kysely<DB>, params: P): Promise<R | undefined> {
  return (await q(db, params)).rows[0];
}

/** Every column of a row type, checked by the compiler: an insert of a whole row cannot miss one. */
export function columnsOf<T>(all: { [K in keyof Required<T>]: true }): (keyof T & string)[] {
  return Object.keys(all) as (keyof T & string)[];
}

/** `insert into <table> (<every column>) values (...)`, optionally ignoring a conflict on the given columns. */
export function preparedInsert<T extends keyof DB>(
  table: T,
  columns: (keyof DB[T] & string)[],
  ignoreConflictOn?: (keyof DB[T] & string)[],
): Prepared<DB[T], unknown> {
  return prepared<DB[T] & Record<string, unknown>>(columns, (db, p) => {
    // kysely's insert typing cannot follow a generic table; the row is typed at the call.
    const q = db.insertInto(table).values(p as never);
    return ignoreConflictOn ? q.onConflict((oc) => oc.columns(ignoreConflictOn as never).doNothing()) : q;
  }) as Prepared<DB[T], unknown>;
}

export const inserted = (r: QueryResult<unknown>): boolean => Number(r.numAffectedRows ?? 0) > 0;
