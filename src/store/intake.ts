/**
 * Inbound that must not be lost: provider webhook bodies stored before they are answered (the
 * intake, claimed by workers with an owner and a lease, like delivery jobs), and per line the
 * catch-up cursor (how far the provider's messages have been walked, and who is walking them).
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import type { Dialect } from './db.js';
import { numOrNull } from './rows.js';

export type IntakeItem = Pick<DB['inbound_intake'], 'id' | 'line_id' | 'body' | 'attempts' | 'created_at'>;
export type InboundCursor = DB['inbound_cursors'];

const claimQ = (lock: string) => (db: Kysely<DB>, p: { owner: string; nowMs: number; leaseUntil: number; limit: number }) =>
  sql<DB['inbound_intake']>`
    update inbound_intake set lease_until = ${p.leaseUntil}, locked_by = ${p.owner}
    where id in (
      select id from inbound_intake
      where state = 'pending' and next_attempt_at <= ${p.nowMs} and (lease_until is null or lease_until < ${p.nowMs})
      order by id limit ${p.limit} ${sql.raw(lock)})
    returning *`.execute(db);
const claim = { sqlite: claimQ(''), postgres: claimQ('for update skip locked') };

const toCursor = (r: DB['inbound_cursors']): InboundCursor => ({
  ...r, high_water_ms: numOrNull(r.high_water_ms), floor_ms: numOrNull(r.floor_ms), lease_until: numOrNull(r.lease_until), checked_at: numOrNull(r.checked_at), updated_at: Number(r.updated_at),
});

export function intakeRepo(db: Kysely<DB>, dialect: Dialect) {
  const changed = (r: { numUpdatedRows?: bigint; numDeletedRows?: bigint }) => Number(r.numUpdatedRows ?? r.numDeletedRows ?? 0) > 0;
  return {
    /** Stores a webhook body; resolves once it is committed (the caller answers only then). */
    async record(item: { id: string; line_id: string; body: string; nowMs: number }): Promise<void> {
      await db
        .insertInto('inbound_intake')
        .values({ id: item.id, line_id: item.line_id, body: item.body, state: 'pending', attempts: 0, next_attempt_at: item.nowMs, lease_until: null, locked_by: null, last_error: null, created_at: item.nowMs })
        .execute();
    },
    /** Claims up to `limit` due items, oldest first, for `leaseMs` in `owner`'s name; PostgreSQL skips rows others lock. */
    async claim(owner: string, nowMs: number, leaseMs: number, limit: number): Promise<IntakeItem[]> {
      const rows = (await claim[dialect](db, { owner, nowMs, leaseUntil: nowMs + leaseMs, limit })).rows;
      return rows
        .map((r) => ({ id: r.id, line_id: r.line_id, body: r.body, attempts: Number(r.attempts), created_at: Number(r.created_at) }))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
    /** Processed: the item goes, if `owner` still holds it. */
    async finish(id: string, owner: string): Promise<boolean> {
      return changed(await db.deleteFrom('inbound_intake').where('id', '=', id).where('locked_by', '=', owner).executeTakeFirst());
    },
    /** Not processed this time: due again at `nextAtMs`, or kept as failed when `nextAtMs` is null. */
    async retry(id: string, owner: string, attempts: number, nextAtMs: number | null, error: string): Promise<boolean> {
      const r = await db
        .updateTable('inbound_intake')
        .set({ attempts, state: nextAtMs === null ? 'failed' : 'pending', next_attempt_at: nextAtMs ?? 0, lease_until: null, locked_by: null, last_error: error.slice(0, 500) })
        .where('id', '=', id)
        .where('locked_by', '=', owner)
        .executeTakeFirst();
      return changed(r);
    },
    async nextDueAt(): Promise<number | null> {
      const r = await db.selectFrom('inbound_intake').select(sql<number | null>`min(next_attempt_at)`.as('t')).where('state', '=', 'pending').executeTakeFirst();
      return r?.t == null ? null : Number(r.t);
    },
    /** What is waiting or failed, oldest first (operators and tests). */
    async list(limit = 100): Promise<(IntakeItem & { state: string; last_error: string | null })[]> {
      const rows = await db.selectFrom('inbound_intake').selectAll().orderBy('id').limit(limit).execute();
      return rows.map((r) => ({ id: r.id, line_id: r.line_id, body: r.body, attempts: Number(r.attempts), created_at: Number(r.created_at), state: r.state, last_error: r.last_error }));
    },

    async cursor(lineId: string): Promise<InboundCursor | undefined> {
      const r = await db.selectFrom('inbound_cursors').selectAll().where('line_id', '=', lineId).executeTakeFirst();
      return r && toCursor(r);
    },
    /**
     * Takes the line's catch-up for `leaseMs` in `owner`'s name, unless another holds it:
     * one process walks a line at a time. Returns the cursor, or undefined when taken.
     */
    async claimCursor(lineId: string, owner: string, nowMs: number, leaseMs: number): Promise<InboundCursor | undefined> {
      await db
        .insertInto('inbound_cursors')
        .values({ line_id: lineId, high_water_ms: null, floor_ms: null, lease_until: null, locked_by: null, checked_at: null, updated_at: nowMs })
        .onConflict((oc) => oc.column('line_id').doNothing())
        .execute();
      const r = await db
        .updateTable('inbound_cursors')
        .set({ lease_until: nowMs + leaseMs, locked_by: owner })
        .where('line_id', '=', lineId)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', nowMs), eb('locked_by', '=', owner)]))
        .returningAll()
        .executeTakeFirst();
      return r && toCursor(r);
    },
    /** A line's first catch-up: the provider's newest message marks where history ends (and the walk starts). */
    async startCursor(lineId: string, owner: string, newestMs: number, nowMs: number): Promise<boolean> {
      const r = await db
        .updateTable('inbound_cursors')
        .set({ high_water_ms: newestMs, floor_ms: newestMs, updated_at: nowMs })
        .where('line_id', '=', lineId)
        .where('locked_by', '=', owner)
        .where('high_water_ms', 'is', null)
        .executeTakeFirst();
      return changed(r);
    },
    /** Moves the mark forward (never back), while `owner` holds the line's catch-up; extends the lease. */
    async advanceCursor(lineId: string, owner: string, highWaterMs: number, nowMs: number, leaseMs: number): Promise<boolean> {
      const r = await db
        .updateTable('inbound_cursors')
        .set({ high_water_ms: sql<number>`case when high_water_ms is null or high_water_ms < ${highWaterMs} then ${highWaterMs} else high_water_ms end`, lease_until: nowMs + leaseMs, updated_at: nowMs })
        .where('line_id', '=', lineId)
        .where('locked_by', '=', owner)
        .executeTakeFirst();
      return changed(r);
    },
    /** Ends `owner`'s pass; `checkedAtMs` when it walked to the end. */
    async releaseCursor(lineId: string, owner: string, checkedAtMs: number | null): Promise<void> {
      await db
        .updateTable('inbound_cursors')
        .set({ lease_until: null, locked_by: null, ...(checkedAtMs !== null && { checked_at: checkedAtMs }) })
        .where('line_id', '=', lineId)
        .where('locked_by', '=', owner)
        .execute();
    },
  };
}

export type IntakeRepo = ReturnType<typeof intakeRepo>;
