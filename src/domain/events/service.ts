/** The events API: list with an opaque cursor, one record with its attempts, replay, dev inbox. */
import { isoOrNull } from '../../clock.js';
import { ApiError } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { Store, EventRow, Subscription, Tenant } from '../../store/index.js';
import { attemptDelivery, isSuccess, recordAttempt, refreshEventStatus, type AttemptSettings } from '../../delivery/attempt.js';
import { timeSortableId } from '../ids.js';
import { DEV_INBOX_URL } from './subscriptions.js';


export function eventsService(deps: { store: Store; clock: Clock; attempt: AttemptSettings }) {
  const { store, clock } = deps;

  async function record(e: EventRow) {
    const [attempts, jobs] = await Promise.all([store.events.attemptsOf(e.id), store.events.jobsOf(e.id)]);
    return {
      id: e.id,
      type: e.type,
      event_id: e.event_id,
      lead_id: e.lead_id,
      convo_id: e.convo_id,
      payload: JSON.parse(e.payload) as Record<string, unknown>,
      delivery: {
        status: e.status,
        url: jobs[0]?.url ?? (e.dev_inbox ? DEV_INBOX_URL : null),
        attempts: attempts.map((a) => ({
          at: isoOrNull(a.at)!,
          // 0 when no HTTP answer arrived (timeout, refused, reset): see error
          status: a.status ?? 0,
          duration_ms: a.duration_ms,
          subscription_id: a.subscription_id,
          ...(a.error !== null && { error: a.error }),
        })),
        delivered_at: isoOrNull(e.delivered_at),
      },
      created_at: isoOrNull(e.created_at)!,
    };
  }

  async function owned(tenant: Tenant, id: string) {
    const e = await store.events.event(tenant.id, id);
    if (!e) throw new ApiError(2011, `event ${id} not found`);
    return e;
  }

  return {
    record,

    async list(tenant: Tenant, q: { type?: string; status?: string; lead_id?: string; since?: string; limit?: number; cursor?: string }) {
      const limit = q.limit ?? 50;
      let beforeId: string | undefined;
      if (q.cursor) {
        beforeId = Buffer.from(q.cursor, 'base64url').toString('utf8');
        if (!/^evt_[0-9A-Z]{26}$/.test(beforeId)) throw new ApiError(1002, 'cursor is not a value returned as next_cursor');
      }
      const sinceMs = q.since === undefined ? undefined : Date.parse(q.since);
      if (sinceMs !== undefined && Number.isNaN(sinceMs)) throw new ApiError(1002, 'since must be an ISO 8601 time');
      const rows = await store.events.listEvents(tenant.id, { type: q.type, status: q.status, lead_id: q.lead_id, sinceMs, beforeId }, limit + 1);
      const page = rows.slice(0, limit);
      const events = await Promise.all(page.map(record));
      const last = page[page.length - 1];
      return { events, next_cursor: rows.length > limit && last ? Buffer.from(last.id).toString('base64url') : null, count: events.length };
    },

    async get(tenant: Tenant, id: string) {
      return record(await owned(tenant, id));
    },

    /** Re-delivers now to every destination (or one), appending fresh attempts. */
    async replay(tenant: Tenant, id: string, subscriptionId?: string) {
      const event = await owned(tenant, id);
      let targets: Subscription[];
      if (subscriptionId) {
        const sub = await store.events.subscription(tenant.id, subscriptionId);
        if (!sub) throw new ApiError(2011, `webhook subscription ${subscriptionId} not found`);
        targets = [sub];
      } else {
        targets = (await store.events.subscriptions(tenant.id)).filter((s) => s.events.includes(event.type));
      }
      targets = targets.filter((s) => s.url !== DEV_INBOX_URL);
      if (targets.length === 0) {
        throw new ApiError(1002, event.dev_inbox ? 'dev-inbox events are not delivered; pull them from /api/v1/dev-inbox' : 'no delivery destination is configured for this event');
      }
      const jobs = await store.events.jobsOf(event.id);
      let firstFailure: number | null | undefined;
      let lastStatus: number | null = null;
      for (const sub of targets) {
        const r = await attemptDelivery(event, sub, deps.attempt, clock.now());
        await recordAttempt(store, clock, event.id, sub.id, r);
        const state = isSuccess(r) ? 'delivered' : 'failed';
        const job = jobs.find((j) => j.subscription_id === sub.id);
        // A replay ends the destination's delivery with its own result (a 2xx is never undone).
        if (job && job.state !== 'delivered') await store.events.finishJob(job.id, { state, lease_until: null });
        if (!job) {
          await store.events.insertJobs([{ id: `job_${timeSortableId(Date.now())}`, event_ref: event.id, subscription_id: sub.id, tenant_id: tenant.id, url: sub.url, state, attempts: 1, next_attempt_at: Date.now(), lease_until: null, created_at: clock.now() }]);
        }
        lastStatus = r.status;
        if (!isSuccess(r) && firstFailure === undefined) firstFailure = r.status ?? null;
        if (!isSuccess(r)) lastStatus = r.status;
      }
      await refreshEventStatus(store, clock, event.id);
      if (firstFailure === undefined) return { ok: true as const, downstream_status: lastStatus ?? 0, message: `delivered to ${targets.length} destination(s)` };
      return { ok: false as const, downstream_status: firstFailure ?? 0, failed: true };
    },

    /** Dev-inbox events after `since`, oldest first. */
    async devInbox(tenant: Tenant, q: { since?: string; limit?: number }) {
      const sinceMs = q.since === undefined ? undefined : Date.parse(q.since);
      if (sinceMs !== undefined && Number.isNaN(sinceMs)) throw new ApiError(1002, 'since must be an ISO 8601 time');
      const rows = await store.events.eventsAfter(tenant.id, { createdAtMs: sinceMs }, q.limit ?? 50, true);
      const events = await Promise.all(rows.map(record));
      return { events, count: events.length, next_since: rows.length ? isoOrNull(rows[rows.length - 1]!.created_at) : (q.since ?? null) };
    },
  };
}

export type EventsService = ReturnType<typeof eventsService>;
