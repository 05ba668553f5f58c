/**
 * Opens the store: SQLite (WAL) under DATA_DIR by default, PostgreSQL when a
 * postgres:// URL is given. Migrations run on open; on PostgreSQL kysely's
 * migrator takes an advisory lock, so several processes can start together.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import { GroupCommitSqliteDialect } from './sqlite-group-commit.js';
import { startCheckpointer, type Checkpointer } from './sqlite-checkpointer.js';
import { openSqlite } from './sqlite-handles.js';
import { UNICODE_LOWER, unicodeLower } from './unicode-lower.js';
import { migrations } from './migrations/index.js';
import { preparedStatementName, runPreparedDirectly } from './prepared.js';
import { pgPipeline } from './pg-pipeline.js';
import type { DB } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

/** PostgreSQL LISTEN/NOTIFY between processes (absent on SQLite, where one host polls). */
export interface Notifier {
  notify(channel: string, payload: string): Promise<void>;
  listen(channel: string, fn: (payload: string) => void): Promise<() => Promise<void>>;
}

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  notifier?: Notifier;
  /** Called at the start of each transaction the store opens, with the transaction. */
  transactionOpened(tx: Kysely<DB>): void;
  ping(): Promise<void>;
  close(): Promise<void>;
}

// int8 (bigint) columns hold millisecond times and counts that fit in a double.
pg.types.setTypeParser(20, (v) => Number(v));

export interface OpenOptions {
  databaseUrl?: string;
  /** Told when PostgreSQL ends an idle pooled or a pipelined connection (logged by main; it is replaced). */
  onIdleConnectionError?: (err: Error) => void;
  /** Told when a LISTEN connection is lost (with the reason) and when it is back (logged by main). */
  onListenChange?: (channel: string, state: 'lost' | 'restored', err?: Error) => void;
  /** Waits before each try to open a lost LISTEN connection again; the last repeats. Default LISTEN_RETRY_MS. */
  listenRetryMs?: readonly number[];
  /** PostgreSQL: connections for pipelined prepared statements (pg-pipeline.ts); 0 sends them through the pool. Default: pipelineConnectionsFor(the server's synchronous_commit). */
  pgPipelineConnections?: number;
  /** SQLite file; ':memory:' for throwaway stores */
  sqlitePath?: string;
}

/** Connection settings for every PostgreSQL connection the store opens (pool and pipeline). */
export const PG_CONNECTION_LIMITS = { connectionTimeoutMillis: 10_000, keepAlive: true } as const;
/** A lost LISTEN connection is tried again after 1 s, then less often, every 30 s at most. */
export const LISTEN_RETRY_MS = [1_000, 2_000, 5_000, 10_000, 30_000] as const;

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  let db: Kysely<DB>;
  let dialect: Dialect;
  let notifier: Notifier | undefined;
  let checkpointer: Checkpointer | undefined;
  let transactionOpened: (tx: Kysely<DB>) => void = () => {};
  let closePipeline = async (): Promise<void> => {};
  if (opts.databaseUrl) {
    dialect = 'postgres';
    // A connect that gets no answer (a partition, a stopped server) fails instead of waiting for
    // ever, and TCP keepalive finds a peer that went away under an idle connection.
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10, ...PG_CONNECTION_LIMITS });
    // An idle connection the server ended (restart, failover, admin): the pool drops it and
    // opens a new one when needed. Without a listener this 'error' would crash the process.
    pool.on('error', (err) => opts.onIdleConnectionError?.(err));
    pool.on('connect', (client) => {
      // The pool listens only while a connection is idle. One the server ends while a request
      // holds it between two statements would emit 'error' unheard: an uncaught exception that
      // ends the process. Heard here, the request's next statement fails with it, and the pool
      // drops the connection when it comes back (not queryable).
      client.on('error', () => {});
      nameStatements(client);
    });
    db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    notifier = pgNotifier(opts.databaseUrl, pool, opts);
    // Prepared queries outside a transaction share a few pipelined connections (pg-pipeline.ts says why).
    const connections = opts.pgPipelineConnections ?? pipelineConnectionsFor(await synchronousCommit(pool));
    if (connections > 0) {
      const pipeline = pgPipeline({
        connectionString: opts.databaseUrl,
        limits: PG_CONNECTION_LIMITS,
        connections,
        configure: nameStatements,
        onConnectionError: (err) => opts.onIdleConnectionError?.(err),
      });
      runPreparedDirectly(db, pipeline.run);
      closePipeline = pipeline.close;
    }
  } else {
    dialect = 'sqlite';
    const file = opts.sqlitePath ?? ':memory:';
    if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
    const sqlite = openSqlite(file);
    // exec, not pragma(): pragma() makes a Statement per call (sqlite-handles.ts says why that matters).
    sqlite.db.exec('pragma journal_mode = WAL; pragma synchronous = NORMAL; pragma busy_timeout = 5000; pragma foreign_keys = ON');
    sqlite.db.function(UNICODE_LOWER, { deterministic: true }, unicodeLower);
    checkpointer = file === ':memory:' ? undefined : startCheckpointer(file, sqlite);
    const groupCommit = new GroupCommitSqliteDialect(sqlite, checkpointer?.afterCommit);
    db = new Kysely<DB>({ dialect: groupCommit });
    const direct = groupCommit.direct();
    runPreparedDirectly(db, direct.outside);
    transactionOpened = (tx) => runPreparedDirectly(tx, direct.inOpenTransaction());
  }
  const close = async () => {
    // The worker's connection closes first, so the writer's close is the last and folds the WAL into the file.
    await checkpointer?.stop();
    await closePipeline();
    await db.destroy();
  };
  try {
    await migrate(db);
  } catch (err) {
    // What the failed start opened (connections, the checkpointer's worker) goes with it.
    await close().catch(() => {});
    throw err;
  }
  return {
    db,
    dialect,
    notifier,
    transactionOpened,
    async ping() {
      await sql`select 1`.execute(db);
    },
    close,
  };
}

/**
 * How many pipelined connections suit the server. A connection's statements run one after
 * another, and with synchronous_commit on (PostgreSQL's default) each write's commit waits for
 * its WAL flush before the next statement starts: more connections let more commits share a
 * flush (bench/README.md, "Fifteenth session": 2 → 8 connections, +25–35 % sends on a durable
 * server). When commits do not wait (off), fewer and fuller writes win, and 2 is fastest.
 */
export function pipelineConnectionsFor(synchronousCommit: string | undefined): number {
  return synchronousCommit === 'off' ? 2 : 8;
}

/** The setting as this service's sessions see it (it may be set per database or per role). */
async function synchronousCommit(pool: pg.Pool): Promise<string | undefined> {
  const { rows } = await pool.query<{ synchronous_commit: string }>('show synchronous_commit');
  return rows[0]?.synchronous_commit;
}

/**
 * Prepared queries (prepared.ts) run as named statements on PostgreSQL: each
 * connection parses and plans them once instead of on every call, which is
 * most of the server's work for the small indexed statements of the hot paths.
 *
 * A kept statement whose result columns changed (another process migrated the
 * table, as in a rolling upgrade) fails with 0A000 "cached plan must not change
 * result type". That connection then stops naming statements and the query is
 * tried once more unnamed (which fails as before if it was inside a transaction,
 * since PostgreSQL has aborted it).
 */
function nameStatements(client: pg.ClientBase): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  let naming = true;
  client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
    // kysely calls with (sql, parameters) and awaits; anything else passes through as it came.
    const name = naming && callback === undefined && typeof text === 'string' ? preparedStatementName(text) : undefined;
    if (!name) return query(text, values, callback);
    return (query({ name, text, values }) as Promise<unknown>).catch((err: { code?: string }) => {
      if (err?.code !== '0A000') throw err;
      naming = false;
      return (query(text, values) as Promise<unknown>).catch(() => {
        throw err;
      });
    });
  }) as typeof client.query;
}

/**
 * NOTIFY through the pool; LISTEN on one dedicated connection that reconnects.
 * The notifications asked for during one turn of the event loop go in one statement, each
 * (channel, payload) once: under load every recorded event asks to wake the other processes,
 * and one wake-up per tenant and turn says as much (PostgreSQL folds duplicates within a
 * transaction the same way).
 */
function pgNotifier(url: string, pool: pg.Pool, opts: Pick<OpenOptions, 'onListenChange' | 'listenRetryMs'>): Notifier {
  let pending: Map<string, { channel: string; payload: string }> | undefined;
  let sent: Promise<void> | undefined;
  const flush = async (batch: Map<string, { channel: string; payload: string }>) => {
    const all = [...batch.values()];
    await pool.query('select pg_notify(c, p) from unnest($1::text[], $2::text[]) as n(c, p)', [all.map((n) => n.channel), all.map((n) => n.payload)]);
  };
  return {
    notify(channel, payload) {
      if (!pending) {
        const batch = (pending = new Map());
        sent = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
          pending = undefined;
          return flush(batch);
        });
      }
      pending.set(`${channel}\u0000${payload}`, { channel, payload });
      return sent!;
    },
    async listen(channel, fn) {
      let client: pg.Client | undefined;
      let closed = false;
      let failures = 0;
      let retry: NodeJS.Timeout | undefined;
      const open = async (): Promise<pg.Client> => {
        const c = new pg.Client({ connectionString: url, ...PG_CONNECTION_LIMITS });
        c.on('notification', (m) => m.channel === channel && fn(m.payload ?? ''));
        c.on('error', (err) => {
          if (client !== c) return;
          // Lost connection: polling covers the gap while it is opened again.
          client = undefined;
          c.end().catch(() => {});
          opts.onListenChange?.(channel, 'lost', err);
          reconnectLater();
        });
        try {
          await c.connect();
          await c.query(`listen ${pg.escapeIdentifier(channel)}`);
          return c;
        } catch (err) {
          await c.end().catch(() => {});
          throw err;
        }
      };
      // Until it is back, however long the database is away: one try failing must not end it.
      const reconnectLater = () => {
        if (closed) return;
        const delays = opts.listenRetryMs ?? LISTEN_RETRY_MS;
        const delay = delays[Math.min(failures, delays.length - 1)]!;
        retry = setTimeout(() => {
          retry = undefined;
          open().then(
            (c) => {
              if (closed) return void c.end().catch(() => {});
              client = c;
              failures = 0;
              opts.onListenChange?.(channel, 'restored');
            },
            () => {
              failures++;
              reconnectLater();
            },
          );
        }, delay);
        retry.unref();
      };
      client = await open();
      return async () => {
        closed = true;
        clearTimeout(retry);
        await client?.end().catch(() => {});
      };
    },
  };
}

async function migrate(db: Kysely<DB>): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    const message = (error as Error).message;
    // No migration ran: the migrator's own tables (or its lock) could not be made, e.g. a role
    // that does not own the database's schema.
    if (!failed) throw new Error(`migrations could not start (the migrations table and its lock): ${message}`);
    throw new Error(`migration ${failed.migrationName} failed: ${message}`);
  }
}
