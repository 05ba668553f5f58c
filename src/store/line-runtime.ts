/**
 * Runtime state kept for lines in the database (so every process agrees):
 * the service epoch, the per-tenant rate bucket, and the simulator's device log.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import type { Dialect } from './db.js';
import { columnsOf, prepared, preparedInsert } from './prepared.js';

const insertDeviceLogQ = preparedInsert('simulator_sent', columnsOf<DB['simulator_sent']>({ id: true, line_id: true, entry: true, created_at: true }));

type TakeToken = { tenantId: string; burst: number; perSecond: number; nowMs: number };
/** The common case in one statement: the bucket exists and holds a token after refilling. */
const takeTokenQ = (least: string, greatest: string) =>
  prepared<TakeToken>(['tenantId', 'burst', 'perSecond', 'nowMs'], (_db, p) => {
    const refilled = sql`${sql.raw(least)}(${p.burst}, tokens + ${sql.raw(greatest)}(0, ${p.nowMs} - updated_at) * ${p.perSecond} / 1000.0)`;
    return sql`update rate_buckets set tokens = ${refilled} - 1, updated_at = ${p.nowMs} where tenant_id = ${p.tenantId} and ${refilled} >= 1`;
  });
const takeTokenFast = { sqlite: takeTokenQ('min', 'max'), postgres: takeTokenQ('least', 'greatest') };

export function lineRuntimeRepo(db: Kysely<DB>, dialect: Dialect) {
  return {
    async serviceEpoch(lineId: string): Promise<string | undefined> {
      const r = await db.selectFrom('line_state').select('service_epoch').where('line_id', '=', lineId).executeTakeFirst();
      return r?.service_epoch;
    },

    async setServiceEpoch(lineId: string, epoch: string, nowMs: number): Promise<void> {
      await db
        .insertInto('line_state')
        .values({ line_id: lineId, service_epoch: epoch, last_first_touch_at: null, updated_at: nowMs })
        .onConflict((oc) => oc.column('line_id').doUpdateSet({ service_epoch: epoch, updated_at: nowMs }))
        .execute();
    },

    async lastFirstTouch(lineId: string): Promise<number | null> {
      const r = await db.selectFrom('line_state').select('last_first_touch_at').where('line_id', '=', lineId).executeTakeFirst();
      return r?.last_first_touch_at == null ? null : Number(r.last_first_touch_at);
    },

    /**
     * Reserves the line for a first touch at `nowMs` if its last one is at least
     * `gapMs` ago. Atomic in both dialects, so two processes can't both win.
     */
    async reserveFirstTouch(lineId: string, nowMs: number, gapMs: number): Promise<boolean> {
      await db
        .insertInto('line_state')
        .values({ line_id: lineId, service_epoch: 'initial', last_first_touch_at: null, updated_at: nowMs })
        .onConflict((oc) => oc.column('line_id').doNothing())
        .execute();
      const r = await db
        .updateTable('line_state')
        .set({ last_first_touch_at: nowMs, updated_at: nowMs })
        .where('line_id', '=', lineId)
        .where((eb) => eb.or([eb('last_first_touch_at', 'is', null), eb('last_first_touch_at', '<=', nowMs - gapMs)]))
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    /** Gives back a reservation made at `reservedAtMs` that sent nothing: the line's last first touch is `previousMs` again. */
    async releaseFirstTouch(lineId: string, reservedAtMs: number, previousMs: number | null): Promise<void> {
      await db
        .updateTable('line_state')
        .set({ last_first_touch_at: previousMs })
        .where('line_id', '=', lineId)
        .where('last_first_touch_at', '=', reservedAtMs)
        .execute();
    },

    /**
     * Token bucket per tenant: refills at `perSecond`, holds at most `burst`.
     * Returns 0 when a token was taken, else the seconds until one is free.
     */
    async takeToken(tenantId: string, perSecond: number, burst: number, nowMs: number): Promise<number> {
      const fast = await takeTokenFast[dialect](db, { tenantId, burst, perSecond, nowMs });
      if (Number(fast.numAffectedRows ?? 0) === 1) return 0;
      return db.transaction().execute(async (tx) => {
        let q = tx.selectFrom('rate_buckets').selectAll().where('tenant_id', '=', tenantId);
        if (dialect === 'postgres') q = q.forUpdate();
        const row = await q.executeTakeFirst();
        const elapsed = row ? Math.max(0, nowMs - Number(row.updated_at)) / 1000 : 0;
        const tokens = row ? Math.min(burst, Number(row.tokens) + elapsed * perSecond) : burst;
        if (tokens < 1) {
          if (row) await tx.updateTable('rate_buckets').set({ tokens, updated_at: nowMs }).where('tenant_id', '=', tenantId).execute();
          return (1 - tokens) / perSecond;
        }
        await tx
          .insertInto('rate_buckets')
          .values({ tenant_id: tenantId, tokens: tokens - 1, updated_at: nowMs })
          .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ tokens: tokens - 1, updated_at: nowMs }))
          .execute();
        return 0;
      });
    },

    async appendDeviceLog(id: string, lineId: string, entry: unknown, nowMs: number): Promise<void> {
      await insertDeviceLogQ(db, { id, line_id: lineId, entry: JSON.stringify(entry), created_at: nowMs });
    },

    async deviceLog(lineId: string, limit = 200): Promise<{ id: string; entry: unknown; created_at: number }[]> {
      const rows = await db.selectFrom('simulator_sent').selectAll().where('line_id', '=', lineId).orderBy('id', 'desc').limit(limit).execute();
      return rows.map((r) => ({ id: r.id, entry: JSON.parse(r.entry), created_at: Number(r.created_at) }));
    },
  };
}

export type LineRuntimeRepo = ReturnType<typeof lineRuntimeRepo>;
