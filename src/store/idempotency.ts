/** Idempotency records: claimed before work starts, completed with the outcome. */
import { numOrNull } from './rows.js';
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';
import { isUniqueViolation } from './rows.js';

export type IdempotencyRecord = DB['idempotency_keys'];

const toRecord = (r: DB['idempotency_keys']): IdempotencyRecord => ({
  ...r,
  http_status: numOrNull(r.http_status),
  created_at: Number(r.created_at),
  expires_at: Number(r.expires_at),
});

export function idempotencyRepo(db: Kysely<DB>) {
  const where = (r: { tenant_id: string; route: string; key: string }) =>
    db.selectFrom('idempotency_keys').selectAll().where('tenant_id', '=', r.tenant_id).where('route', '=', r.route).where('key', '=', r.key);

  return {
    async get(tenantId: string, route: string, key: string): Promise<IdempotencyRecord | undefined> {
      const r = await where({ tenant_id: tenantId, route, key }).executeTakeFirst();
      return r && toRecord(r);
    },

    /** Claims the key; returns the record that already holds it when it is taken and live. */
    async claim(rec: IdempotencyRecord, nowMs: number): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRecord }> {
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          await db.insertInto('idempotency_keys').values(rec).execute();
          return { claimed: true };
        } catch (err) {
          if (!isUniqueViolation(err)) throw err;
        }
        const existing = await this.get(rec.tenant_id, rec.route, rec.key);
        if (existing && existing.expires_at > nowMs) return { claimed: false, existing };
        // Expired (past six hours): the key is free again.
        await db
          .deleteFrom('idempotency_keys')
          .where('tenant_id', '=', rec.tenant_id)
          .where('route', '=', rec.route)
          .where('key', '=', rec.key)
          .where('expires_at', '<=', nowMs)
          .execute();
      }
      throw new Error('idempotency key could not be claimed');
    },

    /** Records the outcome (JSON written by the domain). `http_status` is legacy and left null. */
    async complete(r: { tenant_id: string; route: string; key: string }, response: string): Promise<void> {
      await db
        .updateTable('idempotency_keys')
        .set({ state: 'done', http_status: null, response })
        .where('tenant_id', '=', r.tenant_id)
        .where('route', '=', r.route)
        .where('key', '=', r.key)
        .execute();
    },

    /** Records the outcome of work another process left in progress (a sweep settling it); a done record stays as it is. */
    async settle(r: { tenant_id: string; route: string; key: string }, response: string): Promise<void> {
      await db
        .updateTable('idempotency_keys')
        .set({ state: 'done', http_status: null, response })
        .where('tenant_id', '=', r.tenant_id)
        .where('route', '=', r.route)
        .where('key', '=', r.key)
        .where('state', '=', 'in_progress')
        .execute();
    },

    /** Frees a claim whose work died before it had an answer, so a retry can run. */
    async release(r: { tenant_id: string; route: string; key: string }): Promise<void> {
      await db
        .deleteFrom('idempotency_keys')
        .where('tenant_id', '=', r.tenant_id)
        .where('route', '=', r.route)
        .where('key', '=', r.key)
        .where('state', '=', 'in_progress')
        .execute();
    },
  };
}

export type IdempotencyRepo = ReturnType<typeof idempotencyRepo>;
