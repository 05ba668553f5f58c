/**
 * Workflow actions held for time: one row per portal and callbackId (HubSpot's retries find it
 * taken), claimed with an owner and a lease (so two processes never work one at once), settled
 * only by the owner holding it. Every time here is the business clock's.
 */
import { sql, type Kysely } from 'kysely';
import type { DB, HubSpotHeldActionsTable } from './schema.js';
import type { Dialect } from './db.js';
import { numOrNull } from './rows.js';

export type HeldAction = HubSpotHeldActionsTable;
export type NewHeldAction = Omit<HeldAction, 'state' | 'outcome' | 'message_id' | 'attempts' | 'owner' | 'lease_until' | 'last_error' | 'completed_at'>;
/** What the owner may change when it lets a row go. */
export type HeldActionPatch = Partial<Pick<HeldAction, 'state' | 'outcome' | 'message_id' | 'next_attempt_at' | 'last_error' | 'reason' | 'completed_at' | 'attempts'>>;

const toHeld = (r: HubSpotHeldActionsTable): HeldAction => ({
  ...r,
  attempts: Number(r.attempts),
  links_contact: Number(r.links_contact),
  next_attempt_at: Number(r.next_attempt_at),
  send_by: Number(r.send_by),
  expires_at: Number(r.expires_at),
  lease_until: numOrNull(r.lease_until),
  created_at: Number(r.created_at),
  updated_at: Number(r.updated_at),
  completed_at: numOrNull(r.completed_at),
});

export function hubspotHeldRepo(db: Kysely<DB>, dialect: Dialect) {
  return {
    /** Holds the action; a row already there for the callbackId (a retry) is kept as it is. Returns the row. */
    async hold(a: NewHeldAction): Promise<HeldAction> {
      await db
        .insertInto('hubspot_held_actions')
        .values({ ...a, state: 'held', outcome: null, message_id: null, attempts: 0, owner: null, lease_until: null, last_error: null, completed_at: null })
        .onConflict((oc) => oc.columns(['portal_id', 'callback_id']).doNothing())
        .execute();
      return (await this.get(a.portal_id, a.callback_id))!;
    },

    async get(portalId: string, callbackId: string): Promise<HeldAction | undefined> {
      const r = await db.selectFrom('hubspot_held_actions').selectAll().where('portal_id', '=', portalId).where('callback_id', '=', callbackId).executeTakeFirst();
      return r && toHeld(r);
    },

    /** A project's held actions of a portal, newest first; the cursor is the last row's id. */
    async list(tenantId: string, portalId: string, opts: { state?: HeldAction['state']; before?: string; limit: number }): Promise<HeldAction[]> {
      let q = db.selectFrom('hubspot_held_actions').selectAll().where('portal_id', '=', portalId).where('tenant_id', '=', tenantId);
      if (opts.state) q = q.where('state', '=', opts.state);
      if (opts.before) q = q.where('id', '<', opts.before);
      return (await q.orderBy('id', 'desc').limit(opts.limit).execute()).map(toHeld);
    },

    /** Rows due now (to send, or to tell HubSpot), oldest first, taken by `owner` until `leaseUntil`. */
    async claimDue(now: number, owner: string, leaseUntil: number, limit: number): Promise<HeldAction[]> {
      const lock = dialect === 'postgres' ? sql.raw('for update skip locked') : sql.raw('');
      const r = await sql<HubSpotHeldActionsTable>`
        update hubspot_held_actions set owner = ${owner}, lease_until = ${leaseUntil}
        where id in (
          select id from hubspot_held_actions
          where state in ('held', 'completing') and next_attempt_at <= ${now} and (lease_until is null or lease_until < ${now})
          order by created_at limit ${limit} ${lock})
        returning *`.execute(db);
      return r.rows.map(toHeld).sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id));
    },

    /** The owner keeps the row until `leaseUntil`; false when it is no longer the owner. */
    async renew(id: string, owner: string, leaseUntil: number): Promise<boolean> {
      const r = await db.updateTable('hubspot_held_actions').set({ lease_until: leaseUntil }).where('id', '=', id).where('owner', '=', owner).executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    /** The owner records `patch` and keeps the row; false when it is no longer the owner. */
    async record(id: string, owner: string, patch: HeldActionPatch, now: number): Promise<boolean> {
      const r = await db.updateTable('hubspot_held_actions').set({ ...patch, updated_at: now }).where('id', '=', id).where('owner', '=', owner).executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async counts(tenantId: string, portalId: string): Promise<HeldActionCounts> {
      const rows = await db
        .selectFrom('hubspot_held_actions')
        .select(['state', sql<number>`count(*)`.as('n'), sql<number | null>`min(case when state = 'held' then next_attempt_at end)`.as('next')])
        .where('portal_id', '=', portalId)
        .where('tenant_id', '=', tenantId)
        .groupBy('state')
        .execute();
      const byState = { held: 0, completing: 0, completed: 0, abandoned: 0 };
      let next: number | null = null;
      for (const r of rows) {
        byState[r.state] = Number(r.n);
        if (r.next != null) next = Number(r.next);
      }
      return { byState, nextAttemptAt: next };
    },

    /** The owner lets the row go with `patch`; false when it is no longer the owner (its lease ran out and another took it). */
    async settle(id: string, owner: string, patch: HeldActionPatch, now: number): Promise<boolean> {
      const r = await db
        .updateTable('hubspot_held_actions')
        .set({ ...patch, owner: null, lease_until: null, updated_at: now })
        .where('id', '=', id)
        .where('owner', '=', owner)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
  };
}

/** A portal's held actions as its project sees them: how many in each state, and the next attempt of those still held. */
export interface HeldActionCounts {
  byState: Record<HeldAction['state'], number>;
  nextAttemptAt: number | null;
}

export type HubSpotHeldRepo = ReturnType<typeof hubspotHeldRepo>;
