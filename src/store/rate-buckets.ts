/**
 * The per-tenant rate-limit buckets, kept in the database so every process draws from one
 * bucket (a token bucket: refills at the tenant's per_second, holds at most its burst).
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import type { Dialect } from './db.js';
import { prepared } from './prepared.js';

type TakeToken = { tenantId: string; burst: number; perSecond: number; nowMs: number };
/** The common case in one statement: the bucket exists and holds a token after refilling. */
const takeTokenQ = (least: string, greatest: string) =>
  prepared<TakeToken>(['tenantId', 'burst', 'perSecond', 'nowMs'], (_db, p) => {
    const refilled = sql`${sql.raw(least)}(${p.burst}, tokens + ${sql.raw(greatest)}(0, ${p.nowMs} - updated_at) * ${p.perSecond} / 1000.0)`;
    return sql`update rate_buckets set tokens = ${refilled} - 1, updated_at = ${p.nowMs} where tenant_id = ${p.tenantId} and ${refilled} >= 1`;
  });
const takeTokenFast = { sqlite: takeTokenQ('min', 'max'), postgres: takeTokenQ('least', 'greatest') };

export function rateBucketsRepo(db: Kysely<DB>, dialect: Dialect) {
  return {
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
  };
}

export type RateBucketsRepo = ReturnType<typeof rateBucketsRepo>;
