/** The events API: list with an opaque cursor, one record with its attempts, replay, dev inbox. */
import { isoOrNull } from '../../clock.js';
import { ApiError } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { Store, DeliveryJob, EventRow, Subscription, Tenant } from '../../store/index.js';
import { attemptDelivery, isSuccess, recordAttempt, refreshEventStatus, type AttemptSettings } from '../../delivery/attempt.js';
import { timeSortableId } from '../ids.js';
import { DEV_INBOX_URL } from './subscriptions.js';

// A date, or a date-time with seconds optional, fraction optional and a zone required. An
// unencoded `+` in a query string arrives as a space, so a space stands for it before the offset.
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt]([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,9})?)?([Zz]|[+ -](?:[01]\d|2[0-3]):?[0-5]\d))?$/;

/**
 * `?since=` as epoch ms. Only ISO 8601 is accepted: Date.parse alone would also take `0`,
 * `March 7, 2020` or `2020-02-30`, each read some way the client may not have meant.
 */
export function parseSince(since: string | undefined): number | undefined {
  if (since === undefined) return undefined;
  const m = ISO_8601.exec(since);
  const ms = m ? Date.parse(since.replace(/ (?=\d{2}:?\d{2}$)/, '+')) : NaN;
  const [year, month, day] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0];
  // Date.parse rolls 2020-02-30 over to March; a day the month does not have is refused.
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (!m || Number.isNaN(ms) || month < 1 || month > 12 || day < 1 || day > daysInMonth) {
    throw new ApiError(1002, 'since must be an ISO 8601 date or date-time with a time zone, e.g. 2025-06-01T12:00:00Z');
  }
  return ms;
}

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
        // The destination that has it when one does; else the first.
        url: (jobs.find((j) => j.state === 'delivered') ?? jobs[0])?.url ?? (e.dev_inbox ? DEV_INBOX_URL : null),
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

  /** A destination's delivery after a replay attempt (see replay). */
  async function settleJob(job: DeliveryJob, succeeded: boolean) {
    if (succeeded) return store.events.endJob(job.id, 'delivered');
    // Automatic attempts still due go on; the worker's own result decides after them.
    if (job.state === 'pending') return;
    await store.events.endJob(job.id, 'failed');
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
      const sinceMs = parseSince(q.since);
      const rows = await store.events.listEvents(tenant.id, { type: q.type, status: q.status, lead_id: q.lead_id, sinceMs, beforeId }, limit + 1);
      const page = rows.slice(0, limit);
      const events = await Promise.all(page.map(record));
      const last = page[page.length - 1];
      return { events, next_cursor: rows.length > limit && last ? Buffer.from(last.id).toString('base64url') : null, count: events.length };
    },

    async get(tenant: Tenant, id: string) {
      return record(await owned(tenant, id));
    },

    /**
     * Re-delivers now to every destination (or one), appending fresh attempts. Each destination's
     * delivery then follows the replay's result, whatever it was before: a 2xx delivers it, a
     * failure fails it (a delivered event can become failed). The one exception is a delivery
     * whose automatic retries are still due: a failed replay leaves them running (the replay
     * does not use up the delivery's attempts), a successful one ends them as delivered. The
     * event's status is then settled from its destinations; a replay that delivered restamps
     * delivered_at. Like the event, the replay succeeded when any destination answered 2xx
     * (the message names those that did not); it failed when none did, retryable unless every
     * answer was a 4xx, the receiver's final word.
     */
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
      const failures: { subscriptionId: string; status: number | null }[] = [];
      let deliveredStatus: number | undefined;
      for (const sub of targets) {
        const r = await attemptDelivery(event, sub, deps.attempt, clock.now());
        await recordAttempt(store, event.id, sub.id, r);
        const job = jobs.find((j) => j.subscription_id === sub.id);
        if (job) await settleJob(job, isSuccess(r));
        else {
          const state = isSuccess(r) ? 'delivered' : 'failed';
          await store.events.insertJobs([{ id: `job_${timeSortableId(Date.now())}`, event_ref: event.id, subscription_id: sub.id, tenant_id: tenant.id, url: sub.url, state, attempts: 1, next_attempt_at: Date.now(), lease_until: null, created_at: clock.now() }]);
        }
        if (isSuccess(r)) deliveredStatus ??= r.status!;
        else failures.push({ subscriptionId: sub.id, status: r.status });
      }
      await refreshEventStatus(store, clock, event.id);
      const answer = (f: (typeof failures)[number]) => (f.status ? `subscription ${f.subscriptionId} answered ${f.status}` : `subscription ${f.subscriptionId} could not be reached`);
      if (deliveredStatus !== undefined) {
        await store.events.restampDelivered(event.id, clock.now());
        const delivered = `delivered to ${targets.length - failures.length} of ${targets.length} destination(s)`;
        return { ok: true as const, downstream_status: deliveredStatus, message: failures.length ? `${delivered}; ${failures.map(answer).join('; ')}` : delivered };
      }
      const first = failures[0]!;
      return {
        ok: false as const,
        downstream_status: first.status ?? 0,
        message: failures.map(answer).join('; '),
        retryable: failures.some((f) => f.status === null || f.status >= 500),
      };
    },

    /**
     * Dev-inbox events after `since`, oldest first. `next_since` is the last event's created_at,
     * and the next page takes what came strictly after it; so a page cut by `limit` inside a
     * millisecond also carries the rest of that millisecond's events (it may exceed `limit` by
     * them), or they would be skipped.
     */
    async devInbox(tenant: Tenant, q: { since?: string; limit?: number }) {
      const sinceMs = parseSince(q.since);
      const limit = q.limit ?? 50;
      const rows = await store.events.eventsAfter(tenant.id, { createdAtMs: sinceMs }, limit, true);
      const last = rows[rows.length - 1];
      if (last && rows.length === limit) rows.push(...(await store.events.eventsAt(tenant.id, last.created_at, last.id, true)));
      const events = await Promise.all(rows.map(record));
      return { events, count: events.length, next_since: last ? isoOrNull(last.created_at) : (q.since ?? null) };
    },
  };
}

export type EventsService = ReturnType<typeof eventsService>;
