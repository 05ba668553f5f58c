/**
 * better-sqlite3 objects that never become garbage.
 *
 * better-sqlite3 (12.x) wraps its Database and Statement in node::ObjectWrap.
 * In Node 24 (node_object_wrap.h changed within 24.x; reports start at 24.19)
 * ObjectWrap's destructor unregisters an environment cleanup hook, and Node
 * aborts the process (SIGABRT, "RemoveEnvironmentCleanupHook
 * … Assertion failed: (env) != nullptr") when that destructor runs inside a
 * garbage collection during which Node finds no current Environment. Which
 * collection that is cannot be predicted: so a Statement that becomes
 * unreachable (every pragma() call makes one) or a closed Database is a
 * crash waiting for a later collection. Measured on Node 24.21: the service
 * died at startup in 1 of 5 starts from the pragmas of openDatabase alone.
 *
 * better-sqlite3 13 moved to Node-API and is free of this, but needs Node 22+.
 * Until Node 20 support ends, everything opened here stays reachable for the
 * life of the process: a statement is prepared once per SQL text and kept
 * (the SQL texts are the code's query shapes, a bounded set: parameters are
 * bound, never spliced in); settings go through exec(), which makes no
 * Statement; and a closed database stays listed, with its statements (closing
 * finalizes them in SQLite, so what stays is a few hundred bytes each).
 * Never call pragma() or iterate() on these databases, nor drop a statement
 * you prepared yourself.
 */
import SqliteDatabase from 'better-sqlite3';

/** A query's rows: its statement in raw mode (arrays), and the function that makes an array a row. */
interface RowReader {
  stmt: SqliteDatabase.Statement;
  toRow: (values: unknown[]) => Record<string, unknown>;
  /** The columns it was made for. */
  width: number;
}

/** Statements that change the schema (what migrations run). */
export const changesSchema = (sql: string): boolean => /^\s*(?:create|alter|drop)\s/i.test(sql);

/**
 * better-sqlite3 builds each row object property by property through V8's API,
 * ~0.25 µs a column (a 21-column read: 6.7 µs). Arrays come back at a third of
 * that, and an object literal of the query's columns, compiled once, costs
 * next to nothing: the rows are the same objects, made cheaper.
 */
function rowMaker(columns: string[]): RowReader['toRow'] {
  // Later columns of the same name win. A column named "__proto__" is an own property, as
  // better-sqlite3 makes it on Node 22 and later (on Node 20 its rows send it to the prototype
  // setter, where a string is dropped); a literal's plain "__proto__" key would set the
  // prototype, a computed one does not.
  const key = (name: string) => (name === '__proto__' ? `["__proto__"]` : JSON.stringify(name));
  const body = `return {${columns.map((name, i) => `${key(name)}: v[${i}]`).join(', ')}};`;
  return new Function('v', body) as RowReader['toRow'];
}

/** A raw statement with the row maker of its current columns. */
function readerOf(stmt: SqliteDatabase.Statement): RowReader {
  const columns = stmt.columns().map((c) => c.name);
  return { stmt, toRow: rowMaker(columns), width: columns.length };
}

export class SqliteHandle {
  private readonly statements = new Map<string, SqliteDatabase.Statement>();
  private readonly readers = new Map<string, RowReader>();
  private readonly keep: SqliteDatabase.Statement[] = [];

  constructor(readonly db: SqliteDatabase.Database) {}

  /** The statement for `sql`, prepared on first use and kept. Run it with run/get/all only (no pluck/raw/expand). */
  statement(sql: string): SqliteDatabase.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  /** The rows of a query that returns rows (`statement(sql).reader`), as objects keyed by column. */
  rows(sql: string, params: unknown[]): unknown[] {
    let reader = this.readers.get(sql);
    if (reader === undefined) {
      // A statement of its own: raw mode is the statement's state, and statement() hands out object rows.
      reader = readerOf(this.db.prepare(sql).raw(true));
      // Kept even when unused (see above): it must never become garbage.
      this.keep.push(reader.stmt);
      this.readers.set(sql, reader);
    }
    const values = reader.stmt.all(params) as unknown[][];
    // A schema change made elsewhere (another connection) re-prepares the statement in SQLite:
    // the columns are read again, and the rows already read are made with them (never run twice).
    if (values.length > 0 && values[0]!.length !== reader.width) {
      reader = readerOf(reader.stmt);
      this.readers.set(sql, reader);
    }
    const rows = new Array<unknown>(values.length);
    for (let i = 0; i < values.length; i++) rows[i] = reader.toRow(values[i]!);
    return rows;
  }

  /**
   * A statement changed the schema (a migration): a query's columns (`select *`) may have
   * changed with it, so row makers are made anew. Their statements stay kept (see above).
   */
  schemaChanged(): void {
    this.readers.clear();
  }

  /** How many statements are kept (tests). */
  get size(): number {
    return this.statements.size + this.keep.length;
  }
}

/** Every handle ever opened, open or closed: see above for why this list only grows. */
const opened: SqliteHandle[] = [];

export function openSqlite(file: string, options?: SqliteDatabase.Options): SqliteHandle {
  const handle = new SqliteHandle(new SqliteDatabase(file, options));
  opened.push(handle);
  return handle;
}
