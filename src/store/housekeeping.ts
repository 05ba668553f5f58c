/**
 * Deletes rows that are dead past their expiry, a bounded batch per call: each call is one short
 * statement (a brief SQLite write, PostgreSQL row locks held for one small delete), and the
 * condition is checked again in the statement itself, so two passes at once delete each row once
 * and never one that came alive meanwhile. Callers loop while a batch comes back full.
 */
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { DB } from './schema.js';

const deleted = (res: { numDeletedRows?: bigint }) => Number(res.numDeletedRows ?? 0n);

export function housekeepingRepo(db: Kysely<DB>) {
  return {
    /**
     * Idempotency records past `expires_at`, except a claim in progress whose lease is live (its
     * request still runs). Records kept for good (HubSpot workflows) expire at MAX_SAFE_INTEGER.
     */
    async deleteExpiredIdempotency(nowMs: number, limit: number): Promise<number> {
      const dead = db
        .selectFrom('idempotency_keys')
        .select(['tenant_id', 'route', 'key'])
        .where('expires_at', '<=', nowMs)
        .where((eb) => eb.or([eb('state', '=', 'done'), eb('lease_until', 'is', null), eb('lease_until', '<=', nowMs)]))
        .limit(limit);
      const res = await db
        .deleteFrom('idempotency_keys')
        .where(sql<SqlBool>`(tenant_id, route, key) in (${dead})`)
        .where('expires_at', '<=', nowMs)
        .where((eb) => eb.or([eb('state', '=', 'done'), eb('lease_until', 'is', null), eb('lease_until', '<=', nowMs)]))
        .executeTakeFirst();
      return deleted(res);
    },

    /** Upload slots never uploaded to whose expiry is at or before `beforeMs` (they hold no blob). */
    async deleteExpiredUploadSlots(beforeMs: number, limit: number): Promise<number> {
      const dead = db.selectFrom('attachments').select('id').where('state', '=', 'pending').where('expires_at', '<=', beforeMs).limit(limit);
      const res = await db.deleteFrom('attachments').where('id', 'in', dead).where('state', '=', 'pending').where('expires_at', '<=', beforeMs).executeTakeFirst();
      return deleted(res);
    },

    /** HubSpot install states (OAuth `state`) never consumed, past expiry. */
    async deleteExpiredOAuthStates(nowMs: number, limit: number): Promise<number> {
      const dead = db.selectFrom('hubspot_oauth_states').select('state_hash').where('expires_at', '<=', nowMs).limit(limit);
      const res = await db.deleteFrom('hubspot_oauth_states').where('state_hash', 'in', dead).where('expires_at', '<=', nowMs).executeTakeFirst();
      return deleted(res);
    },

    /** Console sessions past expiry (sign-in also deletes them, unbounded; this keeps a quiet console's table small too). */
    async deleteExpiredConsoleSessions(nowMs: number, limit: number): Promise<number> {
      const dead = db.selectFrom('console_sessions').select('id_hash').where('expires_at', '<=', nowMs).limit(limit);
      const res = await db.deleteFrom('console_sessions').where('id_hash', 'in', dead).where('expires_at', '<=', nowMs).executeTakeFirst();
      return deleted(res);
    },
  };
}

export type HousekeepingRepo = ReturnType<typeof housekeepingRepo>;
