/**
 * HubSpot reply push: the push records (queued when a reply from a handle a
 * CRM send linked to a contact is recorded; claimed with a lease so two
 * processes never work one reply), which are due, and the per-tenant job state
 * (lease, schedule, breaker). Every time here is the business clock's.
 */
import { sql, type Kysely } from 'kysely';
import type { DB, HubSpotPushStateTable, HubSpotReplyPushesTable } from './schema.js';
import type { Dialect } from './db.js';
import type { MessagePart } from './messages.js';
import { numOrNull } from './rows.js';
import { prepared } from './prepared.js';

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

/** A push row's columns, in the order of `queuedRow`. */
const PUSH_COLUMNS = sql.raw(
  '(message_id, portal_id, tenant_id, contact_id, state, create_unknown, communication_id, attempts, lease_until, last_error, sent_at, created_at, updated_at, pushed_at)',
);
/**
 * A queued push row for the reply `messageId` and the contact link `l`: pending, never attempted.
 * Cast: PostgreSQL gives a parameter in a select list no type.
 */
const queuedRow = (messageId: unknown, sentAt: unknown, now: unknown) => sql`
  cast(${messageId} as text), l.portal_id, l.tenant_id, l.contact_id, 'pending', 0, cast(null as text), 0, cast(null as bigint),
  cast(null as text), cast(${sentAt} as bigint), cast(${now} as bigint), cast(${now} as bigint), cast(null as bigint)`;

/**
 * The push rows a reply gets when it is recorded: one per portal whose contact its sender was
 * linked to by the reply's time. `gate` starts the from list (PostgreSQL's one-statement
 * inbound write puts its event CTE there, so nothing is queued for a reply not recorded).
 */
export const queueReplySql = (r: { messageId: unknown; tenantId: unknown; handle: unknown; sentAt: unknown; now: unknown }, gate = sql``) => sql`
  insert into hubspot_reply_pushes ${PUSH_COLUMNS}
  select ${queuedRow(r.messageId, r.sentAt, r.now)}
  from ${gate} hubspot_contact_links l
  where l.tenant_id = cast(${r.tenantId} as text) and l.handle = cast(${r.handle} as text) and l.linked_at <= cast(${r.sentAt} as bigint)
  on conflict (message_id, portal_id) do nothing`;

type QueueReply = { messageId: string; tenantId: string; handle: string; sentAt: number; now: number };
const queueReplyQ = prepared<QueueReply>(['messageId', 'tenantId', 'handle', 'sentAt', 'now'], (_db, p) => queueReplySql(p));

/**
 * Push rows not finished (pending, or created and awaiting their association) over the active
 * installs, read from the installs: the portal index (portal_id, state, sent_at) then finds each
 * one's rows, and the rows of a portal no longer installed are never read. `where` adds
 * conditions (after `and`), `joins` more tables.
 */
export const waitingPushes = (where = sql``, joins = sql``) => sql`
  from hubspot_installs i
  join hubspot_reply_pushes p on p.portal_id = i.portal_id and p.tenant_id = i.tenant_id and p.state in ('pending', 'created')
  ${joins}
  where i.status = 'active' ${where}`;

export function hubspotPushRepo(db: Kysely<DB>, dialect: Dialect) {
  const byKey = (k: PushKey) => db.updateTable('hubspot_reply_pushes').where('message_id', '=', k.message_id).where('portal_id', '=', k.portal_id);
  return {
    /** Queues a reply just recorded (in its transaction) for the portals its sender is linked to. */
    async queueReply(m: { id: string; tenant_id: string; sender_handle: string | null; sent_at: number }, now: number): Promise<void> {
      if (m.sender_handle === null) return;
      await queueReplyQ(db, { messageId: m.id, tenantId: m.tenant_id, handle: m.sender_handle, sentAt: m.sent_at, now });
    },

    /**
     * Queues the replies of the tenant's unsettled links (those recorded before the link was
     * visible to them); links made before `settleBefore` are settled from now on (none if null).
     */
    async sweepLinks(tenantId: string, now: number, settleBefore: number | null): Promise<void> {
      // The literal direction and settled values let SQLite use the partial indexes.
      await sql`
        insert into hubspot_reply_pushes ${PUSH_COLUMNS}
        select ${queuedRow(sql`m.id`, sql`m.sent_at`, now)}
        from hubspot_contact_links l
        join messages m on m.tenant_id = l.tenant_id and m.sender_handle = l.handle and m.direction = 'inbound' and m.sent_at >= l.linked_at
        where l.tenant_id = ${tenantId} and l.settled = 0
        on conflict (message_id, portal_id) do nothing`.execute(db);
      if (settleBefore === null) return;
      await sql`update hubspot_contact_links set settled = 1 where tenant_id = ${tenantId} and settled = 0 and linked_at < ${settleBefore}`.execute(db);
    },

    /**
     * When this database began queueing replies (ms): when migration 027 ran, as the migrator
     * recorded it (wall-clock time, which is the business clock outside tests).
     */
    async queueSince(): Promise<number | null> {
      const r = await sql<{ timestamp: string }>`select timestamp from kysely_migration where name = '027_reply_push_queue'`.execute(db);
      const at = r.rows[0] ? Date.parse(r.rows[0].timestamp) : NaN;
      return Number.isNaN(at) ? null : at;
    },

    /** Replies due for `portalId`, oldest first (leased ones left out), to the contact the handle is linked to now. */
    async candidates(tenantId: string, portalId: string, now: number, limit: number): Promise<PushCandidate[]> {
      const r = await sql<{ message_id: string; portal_id: string; contact_id: string; handle: string; sent_at: number; parts: string }>`
        select p.message_id, p.portal_id, l.contact_id, l.handle, p.sent_at, m.parts ${waitingPushes(
          sql`and i.tenant_id = ${tenantId} and i.portal_id = ${portalId} and (p.lease_until is null or p.lease_until < ${now})`,
          sql`join messages m on m.id = p.message_id
            join hubspot_contact_links l on l.tenant_id = p.tenant_id and l.handle = m.sender_handle and l.portal_id = p.portal_id`,
        )}
        order by p.sent_at, p.message_id limit ${limit}`.execute(db);
      return r.rows.map((x) => ({ ...x, sent_at: Number(x.sent_at), parts: JSON.parse(x.parts) as MessagePart[] }));
    },

    /** Replies not pushed yet over the tenant's active installs (in flight included). */
    async backlog(tenantId: string): Promise<number> {
      const r = await sql<{ n: number }>`select count(*) as n ${waitingPushes(sql`and i.tenant_id = ${tenantId}`)}`.execute(db);
      return Number(r.rows[0]?.n ?? 0);
    },

    /**
     * Takes a queued reply for pushing until `leaseUntil`: its record (which says whether a create
     * may have happened, and the communication if one was made), or undefined when another
     * process holds it or it is finished.
     */
    async claim(k: PushKey, now: number, leaseUntil: number): Promise<ReplyPush | undefined> {
      const r = await byKey(k)
        .set({ lease_until: leaseUntil, attempts: sql`attempts + 1`, updated_at: now })
        .where('state', 'in', ['pending', 'created'])
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .returningAll()
        .executeTakeFirst();
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

    /** Gives a claimed reply back for a later attempt: at once, or once `heldUntil` has passed. */
    async release(k: PushKey, error: string, now: number, heldUntil: number | null = null): Promise<void> {
      await byKey(k).set({ lease_until: heldUntil, last_error: error, updated_at: now }).where('state', 'in', ['pending', 'created']).execute();
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
