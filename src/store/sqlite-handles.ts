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

export class SqliteHandle {
  private readonly statements = new Map<string, SqliteDatabase.Statement>();

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

  /** How many statements are kept (tests). */
  get size(): number {
    return this.statements.size;
  }
}

/** Every handle ever opened, open or closed: see above for why this list only grows. */
const opened: SqliteHandle[] = [];

export function openSqlite(file: string, options?: SqliteDatabase.Options): SqliteHandle {
  const handle = new SqliteHandle(new SqliteDatabase(file, options));
  opened.push(handle);
  return handle;
}
