/**
 * HubSpot reply push: which replies are due (inbound messages from a handle a
 * CRM send linked to a contact, after the link, not pushed yet), the push
 * records (reserved before HubSpot is called; claimed with a lease so two
 * processes never work one reply), and the per-tenant job state (lease,
 * schedule, breaker). Every time here is the business clock's.
 */
import { sql, type Kysely } from 'kysely';
import type { DB, HubSpotPushStateTable, HubSpotReplyPushesTable } from './schema.js';
import type { Dialect } from './db.js';
import type { MessagePart } from './messages.js';
import { numOrNull } from './rows.js';
import { isUniqueViolation } from './rows.js';

export interface PushCandidate {
  message_id: string;
  portal_id: string;
  contact_id: string;
  handle: string;
  sent_at: number;
  parts: MessagePart[];
}

export type ReplyPush = HubSpotReplyPushesTable;
export type PushState = HubSpotPushStateTable;
export type PushKey = { message_id: string; portal_id: string };

const toPush = (r: HubSpotReplyPushesTable): ReplyPush => ({
  ...r,
  create_unknown: Number(r.create_unknown),
  attempts: Number(r.attempts),
  lease_until: numOrNull(r.lease_until),
  sent_at: Number(r.sent_at),
  created_at: Number(r.created_at),
  updated_at: Number(r.updated_at),
  pushed_at: numOrNull(r.pushed_at),
});

const toState = (r: HubSpotPushStateTable): PushState => ({
  ...r,
  lease_until: numOrNull(r.lease_until),
  next_run_at: Number(r.next_run_at),
  consecutive_failures: Number(r.consecutive_failures),
  opened_at: numOrNull(r.opened_at),
  last_push_at: numOrNull(r.last_push_at),
});

export function hubspotPushRepo(db: Kysely<DB>, dialect: Dialect) {
  const byKey = (k: PushKey) => db.updateTable('hubspot_reply_pushes').where('message_id', '=', k.message_id).where('portal_id', '=', k.portal_id);
  // The literal direction lets SQLite use the partial index messages_inbound_sender.
  const due = (tenantId: string, now: number, portalId?: string, ignoreLeases = false) => sql`
    from hubspot_contact_links l
    join hubspot_installs i on i.portal_id = l.portal_id and i.tenant_id = l.tenant_id and i.status = 'active'
    join messages m on m.tenant_id = l.tenant_id and m.sender_handle = l.handle and m.direction = 'inbound' and m.sent_at >= l.linked_at
    left join hubspot_reply_pushes p on p.message_id = m.id and p.portal_id = l.portal_id
    where l.tenant_id = ${tenantId} ${portalId === undefined ? sql`` : sql`and l.portal_id = ${portalId}`}
      and (p.message_id is null or (p.state in ('pending', 'created') ${ignoreLeases ? sql`` : sql`and (p.lease_until is null or p.lease_until < ${now})`}))`;

  return {
    /** Replies due for `portalId`, oldest first (leased ones left out). */
    async candidates(tenantId: string, portalId: string, now: number, limit: number): Promise<PushCandidate[]> {
      const r = await sql<{ message_id: string; portal_id: string; contact_id: string; handle: string; sent_at: number; parts: string }>`
        select m.id as message_id, l.portal_id, l.contact_id, l.handle, m.sent_at, m.parts ${due(tenantId, now, portalId)}
        order by m.sent_at, m.id limit ${limit}`.execute(db);
      return r.rows.map((x) => ({ ...x, sent_at: Number(x.sent_at), parts: JSON.parse(x.parts) as MessagePart[] }));
    },

    /** Replies not pushed yet over the tenant's active installs (in flight included). */
    async backlog(tenantId: string, now: number): Promise<number> {
      const r = await sql<{ n: number }>`select count(*) as n ${due(tenantId, now, undefined, true)}`.execute(db);
      return Number(r.rows[0]?.n ?? 0);
    },

    /**
     * Takes a reply for pushing until `leaseUntil`: 'fresh' when this call reserved it (nothing was
     * sent to HubSpot for it before), 'claimed' when an earlier attempt's record was taken over,
     * 'taken' when another process holds it or it is finished.
     */
    async reserve(c: PushCandidate & { tenant_id: string }, now: number, leaseUntil: number): Promise<'fresh' | 'claimed' | 'taken'> {
      try {
        const ins = await db
          .insertInto('hubspot_reply_pushes')
          .values({
            message_id: c.message_id, portal_id: c.portal_id, tenant_id: c.tenant_id, contact_id: c.contact_id, state: 'pending',
            // Reserved before the create: until its answer is recorded, a create may have happened.
            create_unknown: 1, communication_id: null, attempts: 1, lease_until: leaseUntil, last_error: null,
            sent_at: c.sent_at, created_at: now, updated_at: now, pushed_at: null,
          })
          .onConflict((oc) => oc.columns(['message_id', 'portal_id']).doNothing())
          .executeTakeFirst();
        if (Number(ins.numInsertedOrUpdatedRows ?? 0) === 1) return 'fresh';
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
      const r = await byKey(c)
        .set({ lease_until: leaseUntil, attempts: sql`attempts + 1`, updated_at: now })
        .where('state', 'in', ['pending', 'created'])
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1 ? 'claimed' : 'taken';
    },

    async get(k: PushKey): Promise<ReplyPush | undefined> {
      const r = await db.selectFrom('hubspot_reply_pushes').selectAll().where('message_id', '=', k.message_id).where('portal_id', '=', k.portal_id).executeTakeFirst();
      return r && toPush(r);
    },

    /** About to create: until the answer is recorded, a communication may exist. */
    async createMayHappen(k: PushKey, now: number): Promise<void> {
      await byKey(k).set({ create_unknown: 1, updated_at: now }).execute();
    },

    /** HubSpot answered the create with a refusal: nothing was created. */
    async createRefused(k: PushKey, error: string, now: number): Promise<void> {
      await byKey(k).set({ create_unknown: 0, lease_until: null, last_error: error, updated_at: now }).where('state', '=', 'pending').execute();
    },

    async created(k: PushKey, communicationId: string, now: number): Promise<void> {
      await byKey(k).set({ state: 'created', communication_id: communicationId, create_unknown: 0, updated_at: now }).where('state', '=', 'pending').execute();
    },

    async pushed(k: PushKey, now: number): Promise<void> {
      await byKey(k).set({ state: 'pushed', lease_until: null, last_error: null, pushed_at: now, updated_at: now }).execute();
    },

    async failed(k: PushKey, error: string, now: number): Promise<void> {
      await byKey(k).set({ state: 'failed', lease_until: null, last_error: error, updated_at: now }).where('state', '!=', 'pushed').execute();
    },

    /** Gives a claimed reply back for a later attempt. */
    async release(k: PushKey, error: string, now: number): Promise<void> {
      await byKey(k).set({ lease_until: null, last_error: error, updated_at: now }).where('state', 'in', ['pending', 'created']).execute();
    },

    /** Every tenant with an active install gets a job row (due at once). */
    async ensureStates(): Promise<void> {
      await db
        .insertInto('hubspot_push_state')
        .columns(['tenant_id', 'next_run_at', 'breaker_state', 'consecutive_failures'])
        .expression(
          db
            .selectFrom('hubspot_installs')
            .where('status', '=', 'active')
            .select(['tenant_id', sql<number>`0`.as('next_run_at'), sql<string>`'closed'`.as('breaker_state'), sql<number>`0`.as('consecutive_failures')])
            .distinct(),
        )
        .onConflict((oc) => oc.column('tenant_id').doNothing())
        .execute();
    },

    /** Tenants whose run is due and free, leased to the caller until `leaseUntil`. */
    async claimDueTenants(now: number, leaseUntil: number, limit: number): Promise<PushState[]> {
      const lock = dialect === 'postgres' ? sql.raw('for update skip locked') : sql.raw('');
      const r = await sql<HubSpotPushStateTable>`
        update hubspot_push_state set lease_until = ${leaseUntil}
        where tenant_id in (
          select tenant_id from hubspot_push_state
          where next_run_at <= ${now} and (lease_until is null or lease_until < ${now})
          order by next_run_at limit ${limit} ${lock})
        returning *`.execute(db);
      return r.rows.map(toState);
    },

    async finishRun(tenantId: string, nextRunAt: number): Promise<void> {
      await db.updateTable('hubspot_push_state').set({ lease_until: null, next_run_at: nextRunAt }).where('tenant_id', '=', tenantId).execute();
    },

    async state(tenantId: string): Promise<PushState | undefined> {
      const r = await db.selectFrom('hubspot_push_state').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
      return r && toState(r);
    },

    async succeeded(tenantId: string, now: number): Promise<void> {
      await db.updateTable('hubspot_push_state').set({ consecutive_failures: 0, last_push_at: now }).where('tenant_id', '=', tenantId).execute();
    },

    /** Counts a failed push; true when this one opened the breaker (so it is logged once). */
    async failedPush(tenantId: string, error: string, threshold: number, now: number): Promise<boolean> {
      await db.updateTable('hubspot_push_state').set({ consecutive_failures: sql`consecutive_failures + 1`, last_error: error }).where('tenant_id', '=', tenantId).execute();
      const r = await db
        .updateTable('hubspot_push_state')
        .set({ breaker_state: 'open', opened_at: now })
        .where('tenant_id', '=', tenantId)
        .where('breaker_state', '=', 'closed')
        .where('consecutive_failures', '>=', threshold)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    /** A probe succeeded; true when this call closed the breaker. */
    async closeBreaker(tenantId: string): Promise<boolean> {
      const r = await db
        .updateTable('hubspot_push_state')
        .set({ breaker_state: 'closed', opened_at: null, consecutive_failures: 0 })
        .where('tenant_id', '=', tenantId)
        .where('breaker_state', '=', 'open')
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async pausePortal(portalId: string, until: number | null): Promise<void> {
      await db.updateTable('hubspot_installs').set({ push_paused_until: until }).where('portal_id', '=', portalId).execute();
    },

    async portalPause(portalId: string): Promise<number | null> {
      const r = await db.selectFrom('hubspot_installs').select('push_paused_until').where('portal_id', '=', portalId).executeTakeFirst();
      return numOrNull(r?.push_paused_until ?? null);
    },
  };
}

export type HubSpotPushRepo = ReturnType<typeof hubspotPushRepo>;
