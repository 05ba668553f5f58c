/**
 * SQLite with group commit.
 *
 * On SQLite a commit costs far more than the statements in it: every commit
 * writes each page it touched to the WAL again, and every ~1000 WAL pages a
 * checkpoint fsyncs. Concurrent requests that each commit alone spend most of
 * their time there (a send's four small writes cost ~250 µs autocommitted and
 * ~25 µs when fifty sends share one commit).
 *
 * So statements outside an explicit transaction join one open batch
 * transaction, explicit transactions run as a savepoint inside it, and the
 * batch commits on the next turn of the event loop. No caller learns the
 * outcome of a write, or the result of a read that may have seen an
 * uncommitted write, before that commit succeeded: what a client is told is
 * exactly as durable as with autocommit. A statement that fails is undone
 * alone (SQLite's statement journal); a commit that fails fails everyone in
 * the batch.
 *
 * better-sqlite3 is synchronous, so the only thing to serialize is an explicit
 * transaction, which spans awaits: while one is open, every other statement
 * waits for it to end.
 */
import type SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';
import type { DirectRunner } from './prepared.js';
import { changesSchema, type SqliteHandle } from './sqlite-handles.js';

/** What a statement needs to run: kysely's compiled query, or a prepared query's SQL and parameters. */
type Statement = Pick<CompiledQuery, 'sql' | 'parameters'>;

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

const SAVEPOINT = 'blueline_tx';
/** The caller of a statement that no explicit transaction owns. */
const OUTSIDE = {} as Handle;

class Batcher {
  /** Callers waiting for the open batch to commit. */
  private waiters: Waiter[] = [];
  private scheduled = false;
  /** The connection handle whose explicit transaction is open, if any. */
  private owner: Handle | undefined;
  /** Handles waiting for the explicit transaction to end. */
  private queue: (() => void)[] = [];
  /** The commit came due while an explicit transaction was open. */
  private commitDue = false;

  readonly sqlite: SqliteDatabase.Database;

  constructor(
    private readonly sqliteHandle: SqliteHandle,
    private readonly afterCommit: () => void,
  ) {
    this.sqlite = sqliteHandle.db;
  }

  /**
   * kysely prepares every query anew; better-sqlite3 statements are reusable,
   * and preparing dominates a simple indexed lookup. Kept by SQL text, never
   * dropped (sqlite-handles.ts says why).
   */
  private prepare(sql: string): SqliteDatabase.Statement {
    return this.sqliteHandle.statement(sql);
  }

  /**
   * A prepared statement outside any explicit transaction, without kysely's
   * executor: the same semantics as a Handle's executeQuery, a few promises fewer.
   */
  execute(query: Statement): Promise<QueryResult<unknown>> | QueryResult<unknown> {
    if (this.owner) return this.transactionEnded().then(() => this.execute(query));
    return this.run(OUTSIDE, query);
  }

  /** Runs statements inside the explicit transaction open now, for as long as it stays open. */
  inOpenTransaction(): DirectRunner {
    const owner = this.owner;
    if (!owner) throw new Error('no explicit transaction is open');
    return (query) => (this.owner === owner ? this.run(owner, query) : Promise.reject(new Error('the transaction has ended')));
  }

  /** Whether `handle` may use the connection now: no other handle's explicit transaction is open. */
  mayRun(handle: Handle): boolean {
    return !this.owner || this.owner === handle;
  }

  /** Resolves when the open explicit transaction ends; check mayRun() again, synchronously, after it. */
  transactionEnded(): Promise<void> {
    return new Promise<void>((r) => this.queue.push(r));
  }

  /** Runs one statement inside the batch; resolves once what it saw or did is committed. */
  run(handle: Handle, query: Statement): Promise<QueryResult<unknown>> | QueryResult<unknown> {
    const stmt = this.prepare(query.sql);
    const params = query.parameters as unknown[];
    if (!stmt.readonly && !this.sqlite.inTransaction) this.prepare('begin').run();
    let result: QueryResult<unknown>;
    try {
      if (stmt.reader) {
        result = { rows: this.sqliteHandle.rows(query.sql, params) };
      } else {
        const { changes, lastInsertRowid } = stmt.run(params);
        if (changesSchema(query.sql)) this.sqliteHandle.schemaChanged();
        result = { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
      }
    } catch (err) {
      this.afterFailure(err);
      throw err;
    }
    // Inside an explicit transaction the owner awaits its own commit instead.
    if (this.owner === handle || !this.sqlite.inTransaction) return result;
    return this.committed().then(() => result);
  }

  /** Resolves when the open batch (if any) has committed. */
  committed(): Promise<void> {
    if (!this.sqlite.inTransaction) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.commit());
    }
    return done;
  }

  async begin(handle: Handle): Promise<void> {
    while (!this.mayRun(handle)) await this.transactionEnded();
    this.owner = handle;
    try {
      if (!this.sqlite.inTransaction) this.prepare('begin').run();
      this.prepare(`savepoint ${SAVEPOINT}`).run();
    } catch (err) {
      this.end();
      throw err;
    }
  }

  async commitTransaction(): Promise<void> {
    try {
      this.prepare(`release ${SAVEPOINT}`).run();
    } catch (err) {
      this.afterFailure(err);
      this.end();
      throw err;
    }
    this.end();
    await this.committed();
  }

  async rollbackTransaction(): Promise<void> {
    try {
      if (this.sqlite.inTransaction) {
        this.prepare(`rollback to ${SAVEPOINT}`).run();
        this.prepare(`release ${SAVEPOINT}`).run();
      }
    } finally {
      this.end();
    }
    // The batch stays open after the savepoint's rollback, holding the write lock and the WAL's
    // snapshot: with nothing else in it, nobody would commit it until the next statement.
    if (this.sqlite.inTransaction) this.committed().catch(() => {});
  }

  /** Ends the explicit transaction; a commit that came due meanwhile goes first, so a stream of transactions cannot starve it. */
  private end(): void {
    this.owner = undefined;
    if (this.commitDue) this.commit();
    const queue = this.queue;
    this.queue = [];
    for (const wake of queue) wake();
  }

  private commit(): void {
    this.scheduled = false;
    if (this.owner) {
      this.commitDue = true;
      return;
    }
    this.commitDue = false;
    const waiters = this.waiters;
    this.waiters = [];
    if (!this.sqlite.inTransaction) {
      for (const w of waiters) w.resolve();
      return;
    }
    try {
      this.prepare('commit').run();
    } catch (err) {
      if (this.sqlite.inTransaction) this.prepare('rollback').run();
      for (const w of waiters) w.reject(err);
      return;
    }
    for (const w of waiters) w.resolve();
    this.afterCommit();
  }

  /**
   * Some errors (I/O, disk full, busy) make SQLite roll back the whole
   * transaction, not just the statement: everything waiting on it is lost.
   */
  private afterFailure(err: unknown): void {
    if (this.sqlite.inTransaction || this.waiters.length === 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(err);
  }
}

/** One per acquisition: it identifies which caller owns an explicit transaction. */
class Handle implements DatabaseConnection {
  constructor(private readonly batcher: Batcher) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    while (!this.batcher.mayRun(this)) await this.batcher.transactionEnded();
    return (await this.batcher.run(this, query)) as QueryResult<R>;
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported on SQLite here');
  }
}

class GroupCommitDriver implements Driver {
  constructor(private readonly batcher: Batcher) {}

  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return new Handle(this.batcher);
  }
  async beginTransaction(conn: DatabaseConnection): Promise<void> {
    await this.batcher.begin(conn as Handle);
  }
  async commitTransaction(): Promise<void> {
    await this.batcher.commitTransaction();
  }
  async rollbackTransaction(): Promise<void> {
    await this.batcher.rollbackTransaction();
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {
    await this.batcher.committed().catch(() => {});
    this.batcher.sqlite.close();
  }
}

/**
 * SQLite's schema changes are transactional, as PostgreSQL's are; kysely's adapter says they are
 * not, and its migrator then runs each statement alone. Said so, the migrator runs the pending
 * migrations in one transaction: one that fails part-way (a statement refused, a crash) leaves the
 * database as it was, and the next start runs it again from its beginning.
 */
class TransactionalDdlAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

export class GroupCommitSqliteDialect implements Dialect {
  private readonly batcher: Batcher;

  /** `afterCommit` runs after each batch commit (the WAL checkpointer's hook). */
  constructor(sqlite: SqliteHandle, afterCommit: () => void = () => {}) {
    this.batcher = new Batcher(sqlite, afterCommit);
  }
  createDriver(): Driver {
    return new GroupCommitDriver(this.batcher);
  }

  /**
   * kysely's executor costs several promises and closures per statement,
   * more than the indexed statements of the hot paths take to run. Prepared
   * queries (prepared.ts) run through these instead: `outside` for the
   * database, `inOpenTransaction()` for the transaction open at the call.
   */
  direct(): { outside: DirectRunner; inOpenTransaction(): DirectRunner } {
    const batcher = this.batcher;
    return { outside: (q) => batcher.execute(q), inOpenTransaction: () => batcher.inOpenTransaction() };
  }
  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
  createAdapter() {
    return new TransactionalDdlAdapter();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new SqliteIntrospector(db);
  }
}
