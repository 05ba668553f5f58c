/** Webhook subscriptions, the event log, delivery jobs (claimed with a lease) and attempts. */
import { numOrNull } from './rows.js';
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import { columnsOf, first, inserted, prepared, preparedInsert } from './prepared.js';
import type { Dialect } from './db.js';
import type { SecretBox } from './secret-box.js';
import { settleEventStatus as settleFromJobs } from './event-status.js';

export interface Subscription {
  id: string;
  tenant_id: string;
  url: string;
  events: string[];
  /** the current secret (no expiry) then earlier ones, each signing until its overlap ends */
  secrets: { secret: string; expires_at: number | null }[];
  created_at: number;
  /** false while disabled: nothing is sent to it, not even a delivery already due (migration 009) */
  enabled: boolean;
}

export type EventRow = Omit<DB['events'], 'dev_inbox'> & { dev_inbox: boolean };
/** A delivery job; `locked_by` names the worker holding its claim (absent on a new job). */
export type DeliveryJob = Omit<DB['delivery_jobs'], 'locked_by'> & { locked_by?: string | null };
/** The part of an event a delivery sends. */
export type DeliveredEvent = Pick<EventRow, 'id' | 'type' | 'event_id' | 'payload'>;
export type DeliveryAttempt = DB['delivery_attempts'];

const toEvent = (r: DB['events']): EventRow => ({ ...r, dev_inbox: r.dev_inbox === 1, delivered_at: numOrNull(r.delivered_at), created_at: Number(r.created_at) });
export const toJob = (r: DB['delivery_jobs']): DeliveryJob => ({
  ...r, attempts: Number(r.attempts), next_attempt_at: Number(r.next_attempt_at), lease_until: numOrNull(r.lease_until), created_at: Number(r.created_at),
});

// The statements of recording and delivering an event, built once (prepared.ts).
const subscriptionsQ = prepared<{ tenantId: string }, DB['webhook_subscriptions']>(['tenantId'], (db, p) =>
  db.selectFrom('webhook_subscriptions').selectAll().where('tenant_id', '=', p.tenantId).orderBy('created_at').orderBy('id'),
);
/** What one delivery needs, in one read: the event's payload and its subscription. */
const deliveryTargetQ = prepared<
  { eventRef: string; subscriptionId: string },
  DB['webhook_subscriptions'] & { event_type: string; event_event_id: string; event_payload: string }
>(['eventRef', 'subscriptionId'], (db, p) =>
  db
    .selectFrom('events as e')
    .innerJoin('webhook_subscriptions as s', (j) => j.on('s.id', '=', p.subscriptionId))
    .selectAll('s')
    .select(['e.type as event_type', 'e.event_id as event_event_id', 'e.payload as event_payload'])
    .where('e.id', '=', p.eventRef),
);
const insertEventQ = preparedInsert(
  'events',
  columnsOf<DB['events']>({
    id: true, tenant_id: true, type: true, event_id: true, lead_id: true, convo_id: true, payload: true, status: true, dev_inbox: true,
    delivered_at: true, created_at: true,
  }),
  ['tenant_id', 'event_id'],
);
const insertJobQ = preparedInsert(
  'delivery_jobs',
  columnsOf<Omit<DB['delivery_jobs'], 'locked_by'>>({
    id: true, event_ref: true, subscription_id: true, tenant_id: true, url: true, state: true, attempts: true, next_attempt_at: true,
    lease_until: true, created_at: true,
  }),
);
const insertAttemptQ = preparedInsert(
  'delivery_attempts',
  columnsOf<DB['delivery_attempts']>({ id: true, event_ref: true, subscription_id: true, at: true, status: true, duration_ms: true, error: true }),
);
/**
 * Only a still-pending job its caller still holds (graphile-worker's `locked_by`): a replay that
 * delivered it meanwhile keeps its result, and so does a worker that re-claimed it after this
 * caller's lease ran out.
 */
const releaseJobQ = prepared<Pick<DeliveryJob, 'id' | 'state' | 'attempts' | 'next_attempt_at'> & { owner: string; url: string | null }>(
  ['id', 'state', 'attempts', 'next_attempt_at', 'owner', 'url'],
  (db, p) =>
    db
      .updateTable('delivery_jobs')
      .set({ state: p.state, attempts: p.attempts, next_attempt_at: p.next_attempt_at, lease_until: null, locked_by: null, url: sql<string>`coalesce(${p.url}, url)` })
      .where('id', '=', p.id)
      .where('state', '=', 'pending')
      .where('locked_by', '=', p.owner),
);
/** One statement claims atomically; on PostgreSQL, rows another worker holds are skipped, not waited for. */
const claimDueJobsQ = (lock: string) =>
  prepared<{ nowMs: number; leaseUntil: number; limit: number; owner: string }, DB['delivery_jobs']>(['nowMs', 'leaseUntil', 'limit', 'owner'], (_db, p) =>
    sql`
      update delivery_jobs set lease_until = ${p.leaseUntil}, locked_by = ${p.owner}
      where id in (
        select id from delivery_jobs
        where state = 'pending' and next_attempt_at <= ${p.nowMs} and (lease_until is null or lease_until < ${p.nowMs})
        order by next_attempt_at limit ${p.limit} ${sql.raw(lock)})
      returning *`,
  );
const claimDueJobs = { sqlite: claimDueJobsQ(''), postgres: claimDueJobsQ('for update skip locked') };

export interface EventFilter {
  type?: string;
  status?: string;
  lead_id?: string;
  sinceMs?: number;
  /** keyset: ids below this one (newest first) */
  beforeId?: string;
}

type SubscriptionSecret = Subscription['secrets'][number];

/** A subscription row with its secrets opened. */
export function openSubscription(box: SecretBox, r: DB['webhook_subscriptions']): Subscription {
  return {
    id: r.id,
    tenant_id: r.tenant_id,
    url: r.url,
    events: JSON.parse(r.events) as string[],
    secrets: [{ secret: box.open(r.secret_enc), expires_at: null }, ...previousSecrets(box, r)],
    created_at: Number(r.created_at),
    enabled: r.disabled_at == null,
  };
}

/**
 * Earlier secrets still in their overlap, sealed together as JSON. A row written before
 * several could overlap holds one sealed secret, whose expiry is previous_expires_at.
 */
function previousSecrets(box: SecretBox, r: DB['webhook_subscriptions']): SubscriptionSecret[] {
  if (!r.previous_secret_enc) return [];
  const opened = box.open(r.previous_secret_enc);
  if (opened.startsWith('[')) return JSON.parse(opened) as SubscriptionSecret[];
  return [{ secret: opened, expires_at: numOrNull(r.previous_expires_at) }];
}

export function eventsRepo(db: Kysely<DB>, dialect: Dialect, box: SecretBox) {
  const toSub = (r: DB['webhook_subscriptions']) => openSubscription(box, r);
  // The dev inbox's events, through events_dev_inbox: its condition is the literal
  // `dev_inbox = 1`, as neither store's planner uses a partial index for a bound 1.
  const devInbox = (tenantId: string) => db.selectFrom('events').selectAll().where('tenant_id', '=', tenantId).where(sql<boolean>`dev_inbox = 1`);

  return {
    async insertSubscription(s: { id: string; tenant_id: string; url: string; events: string[]; secret: string; created_at: number }) {
      await db
        .insertInto('webhook_subscriptions')
        .values({ id: s.id, tenant_id: s.tenant_id, url: s.url, events: JSON.stringify(s.events), secret_enc: box.seal(s.secret), previous_secret_enc: null, previous_expires_at: null, created_at: s.created_at })
        .execute();
    },
    async subscriptions(tenantId: string): Promise<Subscription[]> {
      return (await subscriptionsQ(db, { tenantId })).rows.map(toSub);
    },
    async subscription(tenantId: string, id: string): Promise<Subscription | undefined> {
      const r = await db.selectFrom('webhook_subscriptions').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return r && toSub(r);
    },
    /** The event and subscription of a delivery job; undefined when either is gone. */
    async deliveryTarget(eventRef: string, subscriptionId: string): Promise<{ event: DeliveredEvent; sub: Subscription } | undefined> {
      const r = await first(deliveryTargetQ, db, { eventRef, subscriptionId });
      if (!r) return undefined;
      const { event_type, event_event_id, event_payload, ...sub } = r;
      return { event: { id: eventRef, type: event_type, event_id: event_event_id, payload: event_payload }, sub: toSub(sub) };
    },
    /** Changes url, events and/or the disabled mark (null: enabled); false when it is not the tenant's. */
    async updateSubscription(tenantId: string, id: string, set: { url?: string; events?: string[]; disabled_at?: number | null }): Promise<boolean> {
      const r = await db
        .updateTable('webhook_subscriptions')
        .set({ ...(set.url !== undefined && { url: set.url }), ...(set.events && { events: JSON.stringify(set.events) }), ...(set.disabled_at !== undefined && { disabled_at: set.disabled_at }) })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    async deleteSubscription(tenantId: string, id: string): Promise<boolean> {
      const r = await db.deleteFrom('webhook_subscriptions').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    /**
     * Replaces the tenant's subscription's secrets with what `rotate` makes of them as they are
     * (undefined when it is not the tenant's): `next` becomes the current secret and `previous` are
     * the earlier ones that still sign, each until its expiry. The read and the write are one
     * transaction that holds the row (PostgreSQL: `for update`; SQLite runs one explicit
     * transaction at a time), so a concurrent rotation starts from this one's result: without it,
     * both would replace the same secret and the first one's new secret would be lost while its
     * caller was told it signs. `rotate` may throw to change nothing.
     */
    async rotateSubscriptionSecret<T>(
      tenantId: string,
      id: string,
      rotate: (sub: Subscription) => { next: string; previous: { secret: string; expires_at: number }[]; result: T },
    ): Promise<T | undefined> {
      return db.transaction().execute(async (tx) => {
        let q = tx.selectFrom('webhook_subscriptions').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
        if (dialect === 'postgres') q = q.forUpdate();
        const row = await q.executeTakeFirst();
        if (!row) return undefined;
        const { next, previous, result } = rotate(toSub(row));
        await tx
          .updateTable('webhook_subscriptions')
          .set({
            secret_enc: box.seal(next),
            previous_secret_enc: previous.length > 0 ? box.seal(JSON.stringify(previous)) : null,
            previous_expires_at: previous.length > 0 ? Math.max(...previous.map((p) => p.expires_at)) : null,
          })
          .where('id', '=', id)
          .execute();
        return result;
      });
    },

    /** false when the tenant already has an event with this dedup key */
    async insertEvent(e: EventRow): Promise<boolean> {
      return inserted(await insertEventQ(db, { ...e, dev_inbox: e.dev_inbox ? 1 : 0 }));
    },
    async event(tenantId: string, id: string): Promise<EventRow | undefined> {
      const r = await db.selectFrom('events').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return r && toEvent(r);
    },
    async eventById(id: string): Promise<EventRow | undefined> {
      const r = await db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
      return r && toEvent(r);
    },
    /** Newest first. */
    async listEvents(tenantId: string, f: EventFilter, limit: number): Promise<EventRow[]> {
      let q = db.selectFrom('events').selectAll().where('tenant_id', '=', tenantId);
      if (f.type) q = q.where('type', '=', f.type);
      if (f.status) q = q.where('status', '=', f.status as EventRow['status']);
      if (f.lead_id) q = q.where('lead_id', '=', f.lead_id);
      if (f.sinceMs !== undefined) q = q.where('created_at', '>', f.sinceMs);
      if (f.beforeId) q = q.where('id', '<', f.beforeId);
      return (await q.orderBy('id', 'desc').limit(limit).execute()).map(toEvent);
    },
    /** Oldest first, after a point: for streams. */
    async eventsAfter(tenantId: string, after: { createdAtMs?: number; id?: string }, limit: number): Promise<EventRow[]> {
      let q = db.selectFrom('events').selectAll().where('tenant_id', '=', tenantId);
      if (after.id) q = q.where('id', '>', after.id);
      if (after.createdAtMs !== undefined) q = q.where('created_at', '>', after.createdAtMs);
      return (await q.orderBy('id', 'asc').limit(limit).execute()).map(toEvent);
    },
    /**
     * The dev inbox's events recorded after `sinceMs`, oldest first. Walking the project's events
     * instead read every event since `sinceMs`: a project whose dev inbox went quiet long ago had
     * all its later events read on every poll.
     */
    async devInboxAfter(tenantId: string, sinceMs: number | undefined, limit: number): Promise<EventRow[]> {
      let q = devInbox(tenantId);
      if (sinceMs !== undefined) q = q.where('created_at', '>', sinceMs);
      return (await q.orderBy('created_at', 'asc').orderBy('id', 'asc').limit(limit).execute()).map(toEvent);
    },
    /** The dev inbox's events of one millisecond after `afterId`, oldest first: the rest of a page `limit` cut inside it. */
    async devInboxAt(tenantId: string, createdAtMs: number, afterId: string): Promise<EventRow[]> {
      const q = devInbox(tenantId).where('created_at', '=', createdAtMs).where('id', '>', afterId);
      return (await q.orderBy('id', 'asc').execute()).map(toEvent);
    },
    /**
     * Whether an event can become visible after a newer one (by id): on PostgreSQL events are
     * written by concurrent transactions (other requests, other processes), which commit in any
     * order. On SQLite one transaction writes at a time and ids are made in it (line-events.ts).
     */
    lateCommits: dialect === 'postgres',
    /** The ids of a tenant's events in (afterId, throughId], oldest first: what a stream can check it sent. */
    async eventIdsBetween(tenantId: string, afterId: string, throughId: string, createdAfterMs?: number): Promise<string[]> {
      let q = db.selectFrom('events').select('id').where('tenant_id', '=', tenantId).where('id', '>', afterId).where('id', '<=', throughId);
      if (createdAfterMs !== undefined) q = q.where('created_at', '>', createdAfterMs);
      return (await q.orderBy('id', 'asc').execute()).map((r) => r.id);
    },
    /** Lists the event in the dev inbox too (its subscription was moved there while a delivery was due). */
    async addToDevInbox(id: string): Promise<void> {
      await db.updateTable('events').set({ dev_inbox: 1 }).where('id', '=', id).execute();
    },
    /** A tenant's events among `ids`, oldest first. */
    async eventsByIds(tenantId: string, ids: string[]): Promise<EventRow[]> {
      if (ids.length === 0) return [];
      return (await db.selectFrom('events').selectAll().where('tenant_id', '=', tenantId).where('id', 'in', ids).orderBy('id', 'asc').execute()).map(toEvent);
    },
    /**
     * The event's status from its delivery jobs (event-status.ts): one statement, and on
     * PostgreSQL a locked second try when another transaction wrote the event meanwhile.
     */
    async settleEventStatus(id: string, nowMs: number) {
      await settleFromJobs(db, dialect, id, nowMs);
    },

    /** A replay delivered the event again: delivered_at says when (settleEventStatus keeps the first). */
    async restampDelivered(id: string, nowMs: number) {
      await db.updateTable('events').set({ delivered_at: nowMs }).where('id', '=', id).where('status', '=', 'delivered').execute();
    },

    async insertJobs(jobs: DeliveryJob[]) {
      for (const job of jobs) await insertJobQ(db, { ...job, locked_by: null });
    },
    /** Where a destination's delivery went last (an attempt whose job goes on, or was ended separately: a replay's). */
    async setJobUrl(id: string, url: string): Promise<void> {
      await db.updateTable('delivery_jobs').set({ url }).where('id', '=', id).execute();
    },
    async jobsOf(eventRef: string): Promise<DeliveryJob[]> {
      return (await db.selectFrom('delivery_jobs').selectAll().where('event_ref', '=', eventRef).orderBy('id').execute()).map(toJob);
    },
    /**
     * Claims up to `limit` due jobs for `leaseMs` in the name of `owner` (a crashed worker's lease
     * simply runs out). PostgreSQL skips rows another worker has locked.
     */
    async claimDueJobs(owner: string, nowMs: number, leaseMs: number, limit: number): Promise<DeliveryJob[]> {
      return (await claimDueJobs[dialect](db, { nowMs, leaseUntil: nowMs + leaseMs, limit, owner })).rows.map(toJob);
    },
    /**
     * Ends `owner`'s claim of a job: its new state, attempt count and next due time; the lease is
     * released. False (and nothing changed) when the job is no longer pending (a replay delivered
     * it meanwhile) or no longer `owner`'s (its lease ran out and another worker claimed it).
     */
    async releaseJob(id: string, owner: string, next: Pick<DeliveryJob, 'state' | 'attempts' | 'next_attempt_at'> & { url?: string }): Promise<boolean> {
      return Number((await releaseJobQ(db, { id, owner, ...next, url: next.url ?? null })).numAffectedRows ?? 0) > 0;
    },
    /**
     * A destination's delivery is over: a replay's result (whoever holds the job), or, with
     * `owner`, the worker found its subscription gone, disabled or moved to the dev inbox (only
     * while it still holds the job). `url`: where its last attempt went (the event's delivery.url).
     */
    async endJob(id: string, state: 'delivered' | 'failed', owner?: string, url?: string): Promise<boolean> {
      let q = db.updateTable('delivery_jobs').set({ state, lease_until: null, locked_by: null, ...(url !== undefined && { url }) }).where('id', '=', id);
      if (owner !== undefined) q = q.where('locked_by', '=', owner).where('state', '=', 'pending');
      return Number((await q.executeTakeFirst()).numUpdatedRows) > 0;
    },
    async insertAttempt(a: DeliveryAttempt) {
      await insertAttemptQ(db, a);
    },
    async attemptsOf(eventRef: string): Promise<DeliveryAttempt[]> {
      const rows = await db.selectFrom('delivery_attempts').selectAll().where('event_ref', '=', eventRef).orderBy('id').execute();
      return rows.map((r) => ({ ...r, at: Number(r.at), status: numOrNull(r.status), duration_ms: Number(r.duration_ms) }));
    },
    /**
     * When the next job not held by a worker falls due. A held job (in flight here or in another
     * process) is not due: counted as due, it kept every other process's loop claiming every 5 ms
     * until its attempt ended. One whose worker died is found by the poll once its lease ends.
     */
    async nextDueAt(): Promise<number | null> {
      const r = await db
        .selectFrom('delivery_jobs')
        .select(sql<number | null>`min(next_attempt_at)`.as('t'))
        .where('state', '=', 'pending')
        .where('lease_until', 'is', null)
        .executeTakeFirst();
      return r?.t == null ? null : Number(r.t);
    },
  };
}

export type EventsRepo = ReturnType<typeof eventsRepo>;
