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

/**
 * Due rows, oldest first, that no earlier pending row of their line holds back: one under another
 * worker's live lease (being processed elsewhere), or one due and free that the claim did not
 * take (PostgreSQL skipped it because another worker's claim has it locked right now). So a
 * line's rows are processed one after another, in arrival order, however many processes claim.
 * The candidates are materialized (computed once, not again for each row checked), and the
 * check reads a line's pending rows through their own index (migration 025).
 */
const claimQ = (lock: string) => (db: Kysely<DB>, p: { owner: string; nowMs: number; leaseUntil: number; limit: number }) =>
  sql<DB['inbound_intake']>`
    with candidates as materialized (
      select id, line_id from inbound_intake
      where state = 'pending' and next_attempt_at <= ${p.nowMs} and (lease_until is null or lease_until < ${p.nowMs})
      order by id limit ${p.limit} ${sql.raw(lock)})
    update inbound_intake set lease_until = ${p.leaseUntil}, locked_by = ${p.owner}
    where id in (
      select c.id from candidates c
      where not exists (
        select 1 from inbound_intake e
        where e.state = 'pending' and e.line_id = c.line_id and e.id < c.id
          and ((e.lease_until >= ${p.nowMs} and e.locked_by <> ${p.owner})
            or (e.next_attempt_at <= ${p.nowMs} and (e.lease_until is null or e.lease_until < ${p.nowMs}) and e.id not in (select id from candidates)))))
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
    /**
     * Claims up to `limit` due items, oldest first, for `leaseMs` in `owner`'s name; PostgreSQL skips rows
     * others lock. A row waits while an earlier row of its line is another worker's (see claimQ).
     */
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
    /**
     * When the next row a worker could claim falls due: not held by a worker, nor behind an earlier
     * row of its line that one holds (see claimQ). Counted as due, those kept every other process's
     * loop claiming every 5 ms while a slow row was processed. A row whose worker died is found by
     * the poll once its lease ends.
     */
    async nextDueAt(): Promise<number | null> {
      const r = await db
        .selectFrom('inbound_intake as i')
        .select(sql<number | null>`min(i.next_attempt_at)`.as('t'))
        .where('i.state', '=', 'pending')
        .where('i.lease_until', 'is', null)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('inbound_intake as e')
                .select(sql`1`.as('one'))
                .where('e.state', '=', 'pending')
                .whereRef('e.line_id', '=', 'i.line_id')
                .whereRef('e.id', '<', 'i.id')
                .where('e.lease_until', 'is not', null),
            ),
          ),
        )
        .executeTakeFirst();
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
