/** The event log: list newest first, one record with its attempts, replay, dev inbox. */
import { DomainError } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { Store, DeliveryJob, EventRow, Subscription, Tenant } from '../../store/index.js';
import { isRetryable, isSuccess, recordAttempt, refreshEventStatus, type AttemptDelivery } from './attempts.js';
import { timeSortableId } from '../ids.js';
import { DEV_INBOX_URL, type EventStatus } from './vocabulary.js';
import type { MessageReceivedEnvelope } from './envelope.js';

export interface DeliveryAttemptRecord {
  at: number;
  /** null when no HTTP answer arrived (timeout, refused, reset): see error */
  status: number | null;
  durationMs: number;
  subscriptionId: string;
  error: string | null;
}

/** An event as the log holds it: the envelope delivered (as recorded) and its delivery. */
export interface EventRecord {
  id: string;
  type: string;
  eventId: string;
  leadId: string | null;
  /** The chat's compatibility id (the wire's convo_id). */
  convoId: string | null;
  /** The envelope as recorded: every attempt and replay sends its bytes. */
  payload: MessageReceivedEnvelope;
  delivery: { status: EventStatus; url: string | null; attempts: DeliveryAttemptRecord[]; deliveredAt: number | null };
  createdAt: number;
}

export interface EventQuery {
  type?: string;
  status?: EventStatus;
  leadId?: string;
  /** created_at strictly after this (epoch ms) */
  sinceMs?: number;
  /** events strictly older than this event id (the page cursor) */
  beforeId?: string;
  limit: number;
}

/** What a replay did: delivered when any destination answered 2xx. */
export type ReplayResult =
  | { kind: 'delivered'; downstreamStatus: number; message: string }
  | { kind: 'failed'; downstreamStatus: number; message: string; retryable: boolean };

export function eventsService(deps: { store: Store; clock: Clock; attempt: AttemptDelivery }) {
  const { store, clock } = deps;

  async function record(e: EventRow): Promise<EventRecord> {
    const [attempts, jobs] = await Promise.all([store.events.attemptsOf(e.id), store.events.jobsOf(e.id)]);
    // The destination that has it when one does; else the first. Its job keeps the url its latest
    // attempt went to (the worker's or a replay's); before any attempt, the url the job was made
    // for, which a change of the subscription's url (PATCH) since makes stale: the first attempt
    // goes where the subscription points now, so that is shown.
    const job = jobs.find((j) => j.state === 'delivered') ?? jobs[0];
    const attempted = job !== undefined && attempts.some((a) => a.subscription_id === job.subscription_id);
    const pointsNow = job && !attempted ? (await store.events.subscription(e.tenant_id, job.subscription_id))?.url : undefined;
    return {
      id: e.id,
      type: e.type,
      eventId: e.event_id,
      leadId: e.lead_id,
      convoId: e.convo_id,
      // Recorded by line-events from messageReceivedEnvelope, the one event type there is.
      payload: JSON.parse(e.payload) as MessageReceivedEnvelope,
      delivery: {
        status: e.status,
        url: pointsNow ?? job?.url ?? (e.dev_inbox ? DEV_INBOX_URL : null),
        attempts: attempts.map((a) => ({ at: a.at, status: a.status, durationMs: a.duration_ms, subscriptionId: a.subscription_id, error: a.error })),
        deliveredAt: e.delivered_at,
      },
      createdAt: e.created_at,
    };
  }

  /** A destination's delivery after a replay attempt that went to `url` (see replay). */
  async function settleJob(job: DeliveryJob, succeeded: boolean, url: string) {
    if (succeeded) return store.events.endJob(job.id, 'delivered', undefined, url);
    // Automatic attempts still due go on; the worker's own result decides after them.
    if (job.state === 'pending') return store.events.setJobUrl(job.id, url);
    await store.events.endJob(job.id, 'failed', undefined, url);
  }

  async function owned(tenant: Tenant, id: string) {
    const e = await store.events.event(tenant.id, id);
    if (!e) throw new DomainError(2011, `event ${id} not found`);
    return e;
  }

  return {
    /** A page, newest first; `nextBeforeId` continues after it (null at the end). */
    async list(tenant: Tenant, q: EventQuery): Promise<{ events: EventRecord[]; nextBeforeId: string | null }> {
      const filter = { type: q.type, status: q.status, lead_id: q.leadId, sinceMs: q.sinceMs, beforeId: q.beforeId };
      const rows = await store.events.listEvents(tenant.id, filter, q.limit + 1);
      const page = rows.slice(0, q.limit);
      const events = await Promise.all(page.map(record));
      const last = page[page.length - 1];
      return { events, nextBeforeId: rows.length > q.limit && last ? last.id : null };
    },

    async get(tenant: Tenant, id: string): Promise<EventRecord> {
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
     * answer was a 4xx (the receiver's final word) or a URL the service refused to send to. A
     * disabled subscription is no destination, named or not: it receives nothing until it is
     * enabled (400 / 1002 when only disabled ones are left).
     */
    async replay(tenant: Tenant, id: string, subscriptionId?: string): Promise<ReplayResult> {
      const event = await owned(tenant, id);
      let candidates: Subscription[];
      if (subscriptionId) {
        const sub = await store.events.subscription(tenant.id, subscriptionId);
        if (!sub) throw new DomainError(2011, `webhook subscription ${subscriptionId} not found`);
        candidates = [sub];
      } else {
        candidates = (await store.events.subscriptions(tenant.id)).filter((s) => s.events.includes(event.type));
      }
      candidates = candidates.filter((s) => s.url !== DEV_INBOX_URL);
      // A disabled subscription receives nothing, a replay included (the worker's attempt told the
      // caller to enable it and replay).
      const targets = candidates.filter((s) => s.enabled);
      if (targets.length === 0) {
        const disabled = candidates.map((s) => s.id);
        if (disabled.length === 1) throw new DomainError(1002, `webhook subscription ${disabled[0]} is disabled: nothing is sent to it; enable it (PATCH enabled: true), then replay`);
        if (disabled.length > 1) throw new DomainError(1002, `webhook subscriptions ${disabled.join(', ')} are disabled: nothing is sent to them; enable one (PATCH enabled: true), then replay`);
        throw new DomainError(1002, event.dev_inbox ? 'dev-inbox events are not delivered; pull them from /api/v1/dev-inbox' : 'no delivery destination is configured for this event');
      }
      const jobs = await store.events.jobsOf(event.id);
      const failures: { subscriptionId: string; status: number | null; retryable: boolean }[] = [];
      let deliveredStatus: number | undefined;
      for (const sub of targets) {
        const r = await deps.attempt(event, sub, clock.now());
        await recordAttempt(store, event.id, sub.id, r);
        const job = jobs.find((j) => j.subscription_id === sub.id);
        if (job) await settleJob(job, isSuccess(r), sub.url);
        else {
          const state = isSuccess(r) ? 'delivered' : 'failed';
          await store.events.insertJobs([{ id: `job_${timeSortableId(Date.now())}`, event_ref: event.id, subscription_id: sub.id, tenant_id: tenant.id, url: sub.url, state, attempts: 1, next_attempt_at: Date.now(), lease_until: null, created_at: clock.now() }]);
        }
        if (isSuccess(r)) deliveredStatus ??= r.status!;
        else failures.push({ subscriptionId: sub.id, status: r.status, retryable: isRetryable(r) });
      }
      await refreshEventStatus(store, clock, event.id);
      const answer = (f: (typeof failures)[number]) =>
        f.status ? `subscription ${f.subscriptionId} answered ${f.status}` : `subscription ${f.subscriptionId} ${f.retryable ? 'could not be reached' : 'has a URL this service may not send to (see the attempt\'s error)'}`;
      if (deliveredStatus !== undefined) {
        await store.events.restampDelivered(event.id, clock.now());
        const delivered = `delivered to ${targets.length - failures.length} of ${targets.length} destination(s)`;
        return { kind: 'delivered', downstreamStatus: deliveredStatus, message: failures.length ? `${delivered}; ${failures.map(answer).join('; ')}` : delivered };
      }
      const first = failures[0]!;
      return {
        kind: 'failed',
        downstreamStatus: first.status ?? 0,
        message: failures.map(answer).join('; '),
        retryable: failures.some((f) => f.retryable),
      };
    },

    /**
     * Dev-inbox events after `sinceMs`, oldest first. The next page takes what came strictly
     * after the last one's created_at (`lastCreatedAt`); so a page cut by `limit` inside a
     * millisecond also carries the rest of that millisecond's events (it may exceed `limit` by
     * them), or they would be skipped.
     */
    async devInbox(tenant: Tenant, q: { sinceMs?: number; limit: number }): Promise<{ events: EventRecord[]; lastCreatedAt: number | null }> {
      const rows = await store.events.devInboxAfter(tenant.id, q.sinceMs, q.limit);
      const last = rows[rows.length - 1];
      if (last && rows.length === q.limit) rows.push(...(await store.events.devInboxAt(tenant.id, last.created_at, last.id)));
      const events = await Promise.all(rows.map(record));
      return { events, lastCreatedAt: last ? last.created_at : null };
    },
  };
}

export type EventsService = ReturnType<typeof eventsService>;
