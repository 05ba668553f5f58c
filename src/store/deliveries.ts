/**
 * The delivery worker's statements, folded on PostgreSQL where each is a round trip:
 * claiming a batch returns what each job delivers (event and subscription) in the same
 * statement, and an attempt's outcome (its record, the job's release, the event's status)
 * is one statement. SQLite runs the same steps one by one, as before (its statements cost
 * no round trip).
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import type { Dialect } from './db.js';
import type { SecretBox } from './secret-box.js';
import { openSubscription, toJob, type DeliveredEvent, type DeliveryAttempt, type DeliveryJob, type EventsRepo, type Subscription } from './events.js';
import { first, prepared } from './prepared.js';

/** A claimed job and what it delivers; no target when its event or subscription is gone. */
export interface ClaimedDelivery {
  job: DeliveryJob;
  target?: { event: DeliveredEvent; sub: Subscription };
}

/** The job's next state after an attempt (as releaseJob takes it), and the url the attempt went to (unchanged when absent). */
export type JobNext = Pick<DeliveryJob, 'state' | 'attempts' | 'next_attempt_at'> & { url?: string };

type SubColumns = { [K in keyof DB['webhook_subscriptions'] as `s_${K}`]: DB['webhook_subscriptions'][K] | null };
type ClaimRow = DB['delivery_jobs'] & SubColumns & { event_type: string | null; event_event_id: string | null; event_payload: string | null };
const SUB_COLUMNS = ['id', 'tenant_id', 'url', 'events', 'secret_enc', 'previous_secret_enc', 'previous_expires_at', 'created_at', 'disabled_at'] as const;

/** claimDueJobs' statement (events.ts), returning each job with its event and subscription. */
const claimWithTargetsQ = prepared<{ nowMs: number; leaseUntil: number; limit: number; owner: string }, ClaimRow>(
  ['nowMs', 'leaseUntil', 'limit', 'owner'],
  (_db, p) => sql`
    with claimed as (
      update delivery_jobs set lease_until = ${p.leaseUntil}, locked_by = ${p.owner}
      where id in (
        select id from delivery_jobs
        where state = 'pending' and next_attempt_at <= ${p.nowMs} and (lease_until is null or lease_until < ${p.nowMs})
        order by next_attempt_at limit ${p.limit} for update skip locked)
      returning *)
    select c.*, e.type as event_type, e.event_id as event_event_id, e.payload as event_payload,
      ${sql.raw(SUB_COLUMNS.map((k) => `s.${k} as s_${k}`).join(', '))}
    from claimed c
    left join events e on e.id = c.event_ref
    left join webhook_subscriptions s on s.id = c.subscription_id`,
);

/**
 * The attempt's record and the job's release; when the job was still the caller's and is its
 * event's only one, the event's status too (it then follows from this job alone: delivered,
 * failed, or pending while a retry is due). With other jobs the status depends on theirs,
 * which this statement's snapshot may not show as they are now: the caller settles it after.
 * So it does when another transaction wrote the event row since this statement's snapshot
 * (a replay that added a destination and settled): the row's version (`xmin`) tells, as in
 * event-status.ts.
 */
const finishQ = prepared<
  DeliveryAttempt & Record<string, unknown> & { jobId: string; owner: string; state: string; attempts: number; nextAttemptAt: number; url: string | null; nowMs: number },
  { released: number; settled: number }
>(
  ['id', 'event_ref', 'subscription_id', 'at', 'status', 'duration_ms', 'error', 'jobId', 'owner', 'state', 'attempts', 'nextAttemptAt', 'url', 'nowMs'],
  (_db, p) => sql`
    with attempt as (
      insert into delivery_attempts (id, event_ref, subscription_id, at, status, duration_ms, error)
      values (${p.id}, ${p.event_ref}, ${p.subscription_id}, ${p.at}, ${p.status}, ${p.duration_ms}, ${p.error})),
    job as (
      update delivery_jobs set state = ${p.state}, attempts = ${p.attempts}, next_attempt_at = ${p.nextAttemptAt}, url = coalesce(${p.url}, url), lease_until = null, locked_by = null
      where id = ${p.jobId} and state = 'pending' and locked_by = ${p.owner}
      returning state),
    settled as (
      update events set
        status = (select state from job),
        delivered_at = case when (select state from job) = 'delivered' then coalesce(delivered_at, ${p.nowMs}::bigint) else null end
      where id = ${p.event_ref} and exists (select 1 from job)
        and not exists (select 1 from delivery_jobs o where o.event_ref = ${p.event_ref} and o.id <> ${p.jobId})
        and events.xmin = (select e.xmin from events e where e.id = ${p.event_ref})
      returning id)
    select (select count(*) from job)::int as released, (select count(*) from settled)::int as settled`,
);

export function deliveriesRepo(db: Kysely<DB>, dialect: Dialect, box: SecretBox, events: EventsRepo) {
  return {
    /** Claims up to `limit` due jobs for `owner` (events.claimDueJobs), each with what it delivers. */
    async claimDue(owner: string, nowMs: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
      if (dialect === 'sqlite') {
        const jobs = await events.claimDueJobs(owner, nowMs, leaseMs, limit);
        return Promise.all(jobs.map(async (job) => ({ job, target: await events.deliveryTarget(job.event_ref, job.subscription_id) })));
      }
      const rows = (await claimWithTargetsQ(db, { nowMs, leaseUntil: nowMs + leaseMs, limit, owner })).rows;
      return rows.map((r) => {
        const { event_type, event_event_id, event_payload, ...rest } = r;
        const job = toJob(Object.fromEntries(Object.entries(rest).filter(([k]) => !k.startsWith('s_'))) as unknown as DB['delivery_jobs']);
        if (event_type === null || event_event_id === null || event_payload === null || r.s_id === null) return { job };
        const sub = openSubscription(box, Object.fromEntries(SUB_COLUMNS.map((k) => [k, r[`s_${k}`]])) as unknown as DB['webhook_subscriptions']);
        return { job, target: { event: { id: job.event_ref, type: event_type, event_id: event_event_id, payload: event_payload }, sub } };
      });
    },

    /**
     * An attempt of `owner`'s job is over: its record, the job's next state and the url the
     * attempt went to (only while `owner` still holds it: events.releaseJob) and the event's
     * status. False when the job was no longer `owner`'s; the attempt is recorded either way.
     */
    async finishAttempt(job: DeliveryJob, owner: string, attempt: DeliveryAttempt, next: JobNext, nowMs: number): Promise<boolean> {
      if (dialect === 'sqlite') {
        await events.insertAttempt(attempt);
        const released = await events.releaseJob(job.id, owner, next);
        await events.settleEventStatus(job.event_ref, nowMs);
        return released;
      }
      const r = (await first(finishQ, db, {
        ...attempt, jobId: job.id, owner, state: next.state, attempts: next.attempts, nextAttemptAt: next.next_attempt_at, url: next.url ?? null, nowMs,
      }))!;
      if (!r.settled) await events.settleEventStatus(job.event_ref, nowMs);
      return r.released > 0;
    },
  };
}

export type DeliveriesRepo = ReturnType<typeof deliveriesRepo>;
