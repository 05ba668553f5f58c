/**
 * Idempotency records: claimed before work starts, completed with the outcome. A claim in
 * progress has an owner and a lease; the owner's writes (steps, completion, release) are fenced
 * by it, so once a retry took over a claim whose owner was gone, the old owner can change nothing.
 */
import { numOrNull } from './rows.js';
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';
import { isUniqueViolation } from './rows.js';

export type IdempotencyRecord = DB['idempotency_keys'];
export type IdempotencyId = { tenant_id: string; route: string; key: string };
/** A new claim: without an owner and lease it is one that nothing takes over (the CRM's). */
export type NewClaim = Omit<IdempotencyRecord, 'owner' | 'lease_until' | 'message_ids'> & Partial<Pick<IdempotencyRecord, 'owner' | 'lease_until'>>;

const toRecord = (r: DB['idempotency_keys']): IdempotencyRecord => ({
  ...r,
  http_status: numOrNull(r.http_status),
  created_at: Number(r.created_at),
  expires_at: Number(r.expires_at),
  lease_until: numOrNull(r.lease_until),
});

export function idempotencyRepo(db: Kysely<DB>) {
  const where = (r: IdempotencyId) =>
    db.selectFrom('idempotency_keys').selectAll().where('tenant_id', '=', r.tenant_id).where('route', '=', r.route).where('key', '=', r.key);
  const update = (r: IdempotencyId) => db.updateTable('idempotency_keys').where('tenant_id', '=', r.tenant_id).where('route', '=', r.route).where('key', '=', r.key);
  const changed = (res: { numUpdatedRows?: bigint; numDeletedRows?: bigint }) => Number(res.numUpdatedRows ?? res.numDeletedRows ?? 0n) > 0;

  return {
    async get(tenantId: string, route: string, key: string): Promise<IdempotencyRecord | undefined> {
      const r = await where({ tenant_id: tenantId, route, key }).executeTakeFirst();
      return r && toRecord(r);
    },

    /** Claims the key; returns the record that already holds it when it is taken and live. */
    async claim(rec: NewClaim, nowMs: number): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRecord }> {
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          await db.insertInto('idempotency_keys').values({ owner: null, lease_until: null, ...rec, message_ids: null }).execute();
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

    /**
     * Takes over a claim in progress whose lease is past (its owner is gone): of several retries
     * doing so at once, one gets it. `previousOwner` is the owner the caller saw.
     */
    async takeOver(r: IdempotencyId, previousOwner: string | null, owner: string, nowMs: number, leaseMs: number): Promise<boolean> {
      let q = update(r).set({ owner, lease_until: nowMs + leaseMs }).where('state', '=', 'in_progress');
      q = previousOwner === null ? q.where('owner', 'is', null) : q.where('owner', '=', previousOwner);
      // Records from before leases (null) count from their creation.
      q = q.where((eb) => eb.or([eb('lease_until', '<=', nowMs), eb.and([eb('lease_until', 'is', null), eb('created_at', '<=', nowMs - leaseMs)])]));
      return changed(await q.executeTakeFirst());
    },

    /** The owner keeps its claim; false once it lost it (taken over, or settled by a sweep). */
    async renew(r: IdempotencyId, owner: string, leaseUntil: number): Promise<boolean> {
      return changed(await update(r).set({ lease_until: leaseUntil }).where('state', '=', 'in_progress').where('owner', '=', owner).executeTakeFirst());
    },

    /**
     * The owner records the messages of its request so far (run it in the transaction that
     * inserts the new one); false once it lost the claim, and then nothing may be recorded.
     */
    async recordSteps(r: IdempotencyId, owner: string, messageIds: readonly string[], leaseUntil: number): Promise<boolean> {
      return changed(
        await update(r).set({ message_ids: JSON.stringify(messageIds), lease_until: leaseUntil }).where('state', '=', 'in_progress').where('owner', '=', owner).executeTakeFirst(),
      );
    },

    /** Records the outcome (JSON written by the domain); with `owner`, only while that owner holds the claim. `http_status` is legacy and left null. */
    async complete(r: IdempotencyId, response: string, owner?: string): Promise<boolean> {
      let q = update(r).set({ state: 'done', http_status: null, response });
      if (owner !== undefined) q = q.where('owner', '=', owner).where('state', '=', 'in_progress');
      return changed(await q.executeTakeFirst());
    },

    /** Records the outcome of work another process left in progress (a sweep settling it); a done record stays as it is. */
    async settle(r: IdempotencyId, response: string): Promise<void> {
      await update(r).set({ state: 'done', http_status: null, response }).where('state', '=', 'in_progress').execute();
    },

    /** The owner lets its claim go in progress with its lease past: the next retry takes it over at once (and sees the messages recorded). */
    async lapse(r: IdempotencyId, owner: string, nowMs: number): Promise<void> {
      await update(r).set({ lease_until: nowMs }).where('state', '=', 'in_progress').where('owner', '=', owner).execute();
    },

    /** Frees a claim whose work died before it had an answer, so a retry can run; with `owner`, only that owner's. */
    async release(r: IdempotencyId, owner?: string): Promise<void> {
      let q = db
        .deleteFrom('idempotency_keys')
        .where('tenant_id', '=', r.tenant_id)
        .where('route', '=', r.route)
        .where('key', '=', r.key)
        .where('state', '=', 'in_progress');
      if (owner !== undefined) q = q.where('owner', '=', owner);
      await q.execute();
    },
  };
}

export type IdempotencyRepo = ReturnType<typeof idempotencyRepo>;
