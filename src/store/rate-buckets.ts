/**
 * The per-tenant rate-limit buckets, kept in the database so every process draws from one
 * bucket (a token bucket: refills at the tenant's per_second, holds at most its burst).
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import type { Dialect } from './db.js';
import { prepared } from './prepared.js';

type TakeTokens = { tenantId: string; burst: number; perSecond: number; nowMs: number; count: number };
/** The common case in one statement: the bucket exists and holds `count` tokens after refilling. */
const takeTokenQ = (least: string, greatest: string) =>
  prepared<TakeTokens>(['tenantId', 'burst', 'perSecond', 'nowMs', 'count'], (_db, p) => {
    const refilled = sql`${sql.raw(least)}(${p.burst}, tokens + ${sql.raw(greatest)}(0, ${p.nowMs} - updated_at) * ${p.perSecond} / 1000.0)`;
    return sql`update rate_buckets set tokens = ${refilled} - ${p.count}, updated_at = ${p.nowMs} where tenant_id = ${p.tenantId} and ${refilled} >= ${p.count}`;
  });
const takeTokenFast = { sqlite: takeTokenQ('min', 'max'), postgres: takeTokenQ('least', 'greatest') };

export function rateBucketsRepo(db: Kysely<DB>, dialect: Dialect) {
  return {
    /**
     * Token bucket per tenant: refills at `perSecond`, holds at most `burst`.
     * Takes `count` tokens when the bucket holds them, else one; `taken` 0 and `wait` the
     * seconds until a token is free when it holds none.
     */
    async takeTokens(tenantId: string, perSecond: number, burst: number, nowMs: number, count = 1): Promise<{ taken: number; wait: number }> {
      const fast = await takeTokenFast[dialect](db, { tenantId, burst, perSecond, nowMs, count });
      if (Number(fast.numAffectedRows ?? 0) === 1) return { taken: count, wait: 0 };
      const wait = await this.takeToken(tenantId, perSecond, burst, nowMs);
      return { taken: wait > 0 ? 0 : 1, wait };
    },

    /** One token; returns 0 when it was taken, else the seconds until one is free. */
    async takeToken(tenantId: string, perSecond: number, burst: number, nowMs: number): Promise<number> {
      const fast = await takeTokenFast[dialect](db, { tenantId, burst, perSecond, nowMs, count: 1 });
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
  };
}

export type RateBucketsRepo = ReturnType<typeof rateBucketsRepo>;
