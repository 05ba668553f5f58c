/**
 * Prepared queries outside a transaction, pipelined on PostgreSQL.
 *
 * Through the pool, each statement takes a connection of its own, writes its
 * messages and waits for the answer before that connection serves anyone
 * else: one write, one server wake-up and one read per statement. Under load
 * the hot paths' small statements cost more in those than in executing.
 *
 * Here they go to a few connections shared by every caller, in pg's pipeline
 * mode: a statement is written without waiting for the ones before it, and
 * the statements issued during one turn of the event loop leave in one write
 * (the socket is corked until the turn ends). Each keeps its own Sync, so
 * each is still its own implicit transaction, exactly as through the pool:
 * a failing statement fails alone, and nobody learns of a write before it
 * committed.
 *
 * Statements on one connection run one after another on the server, so a
 * statement waiting for a lock delays those queued behind it. The lock's
 * holder is an explicit transaction, which runs on a pool connection and
 * never waits for a statement outside it (on SQLite that would deadlock too:
 * sqlite-group-commit.ts), so the wait ends when that transaction does. One
 * transaction may wait for a pipelined statement: event-status.ts's, which
 * locks an event row a pipelined settle may hold; that statement waits for
 * nothing more, so it ends, and the transaction goes on.
 */
import pg from 'pg';
import type { QueryResult } from 'kysely';
import type { DirectRunner } from './prepared.js';

export interface PgPipeline {
  run: DirectRunner;
  close(): Promise<void>;
}

interface Slot {
  client: pg.Client;
  ready: Promise<void>;
  inFlight: number;
  corked: boolean;
  dead: boolean;
}

/** Commands whose row count kysely reports as numAffectedRows (as its PostgreSQL driver does). */
const WRITES = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

export function pgPipeline(opts: {
  connectionString: string;
  /** Connect timeout and keepalive, as the pool's. */
  limits?: Pick<pg.ClientConfig, 'connectionTimeoutMillis' | 'keepAlive'>;
  connections: number;
  /** Runs on each new connection before its first statement (statement naming). */
  configure(client: pg.Client): void;
  /** A connection failed (server ended it, network): it is replaced on the next statement. */
  onConnectionError(err: Error): void;
}): PgPipeline {
  const slots: (Slot | undefined)[] = new Array(opts.connections).fill(undefined);
  let closed = false;

  const open = (i: number): Slot => {
    const client = new pg.Client({ connectionString: opts.connectionString, ...opts.limits, pipeline: true } as pg.ClientConfig);
    opts.configure(client);
    const slot: Slot = { client, ready: Promise.resolve(), inFlight: 0, corked: false, dead: false };
    const drop = () => {
      slot.dead = true;
      if (slots[i] === slot) slots[i] = undefined;
    };
    client.on('error', (err) => {
      drop();
      opts.onConnectionError(err);
    });
    client.on('end', drop);
    slot.ready = client.connect().then(
      () => {},
      (err: Error) => {
        drop();
        throw err;
      },
    );
    slots[i] = slot;
    return slot;
  };

  /** The least busy live connection, opening one where a slot is empty. */
  const pick = (): Slot => {
    let best: Slot | undefined;
    for (let i = 0; i < slots.length; i++) {
      const s = slots[i] ?? open(i);
      if (!best || s.inFlight < best.inFlight) best = s;
      if (s.inFlight === 0) break;
    }
    return best!;
  };

  const send = (slot: Slot, sql: string, parameters: readonly unknown[]): Promise<pg.QueryResult> => {
    // pg writes a statement's messages as they are submitted; held back until the turn ends, the
    // statements of one turn leave together.
    const stream = (slot.client as unknown as { connection: { stream: { cork?(): void; uncork?(): void } } }).connection.stream;
    if (!slot.corked && stream.cork) {
      slot.corked = true;
      stream.cork();
      setImmediate(() => {
        slot.corked = false;
        stream.uncork?.();
      });
    }
    return slot.client.query(sql, parameters as unknown[]);
  };

  return {
    async run({ sql, parameters }): Promise<QueryResult<unknown>> {
      if (closed) throw new Error('the database is closed');
      const slot = pick();
      slot.inFlight++;
      try {
        await slot.ready;
        const { command, rowCount, rows } = await send(slot, sql, parameters);
        return { numAffectedRows: WRITES.has(command) ? BigInt(rowCount ?? 0) : undefined, rows: rows ?? [] };
      } finally {
        slot.inFlight--;
      }
    },
    async close() {
      closed = true;
      await Promise.all(
        slots.map(async (s) => {
          if (!s || s.dead) return;
          await s.ready.catch(() => {});
          await s.client.end().catch(() => {});
        }),
      );
    },
  };
}
