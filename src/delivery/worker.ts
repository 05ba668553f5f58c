/**
 * The webhook delivery worker: claims due jobs with a lease (so several
 * processes share the work and a crashed one's jobs come back when its lease
 * runs out), delivers, and schedules retries: up to 3 attempts in all on 5xx
 * or network errors, with short exponential backoff and jitter.
 *
 * Each worker claims under its own name (`locked_by`) and ends only claims it
 * still holds: a worker whose lease ran out mid-attempt (a long pause, a slow
 * receiver) cannot overwrite the result of the worker that claimed the job next.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Store, Subscription } from '../store/index.js';
import type { ClaimedDelivery, JobNext } from '../store/deliveries.js';
import type { EventBus } from '../domain/events/bus.js';
import { attemptRow, isRetryable, isSuccess, recordAttempt, refreshEventStatus, type AttemptResult } from '../domain/events/attempts.js';
import { attemptDelivery, type AttemptSettings } from './attempt.js';
import { noObserver, type ServiceObserver } from '../metrics/observer.js';
import { claimLoop, workerName } from '../jobs/claim-loop.js';
import { DEV_INBOX_URL } from '../domain/events/vocabulary.js';

export const MAX_ATTEMPTS = 3;

/** The attempt recorded for a delivery that came due after its subscription was disabled. */
export const DISABLED_NOT_SENT = 'the subscription is disabled: not sent; enable it and replay the event to deliver it';

export interface WorkerSettings extends AttemptSettings {
  /** delays before attempts 2 and 3 */
  backoffMs: number[];
  pollMs: number;
  leaseMs: number;
  batch: number;
  /** The name claims are made under (default: unique per worker). */
  name?: string;
}

export function deliveryWorker(deps: { store: Store; clock: Clock; bus: EventBus; logger?: Logger; observer?: ServiceObserver }, settings: WorkerSettings) {
  const { store, clock, bus } = deps;
  const owner = settings.name ?? workerName('delivery');
  const observer = deps.observer ?? noObserver;

  function backoff(attempt: number): number {
    const base = settings.backoffMs[Math.min(attempt - 1, settings.backoffMs.length - 1)] ?? 1000;
    return Math.round(base * (0.8 + Math.random() * 0.4));
  }

  /**
   * A receiver failing is the tenant's to fix, but an operator asked why events stay pending
   * needs to see it: one line per failed attempt, naming the receiver by host only (a webhook
   * URL's path or query may carry a token).
   */
  function logFailedAttempt(eventId: string, sub: Subscription, attempt: number, result: AttemptResult, outcome: 'retry' | 'failed') {
    deps.logger?.[outcome === 'retry' ? 'info' : 'warn'](
      { event_id: eventId, subscription_id: sub.id, tenant_id: sub.tenant_id, receiver: hostOf(sub.url), attempt, status: result.status, reason: result.error ?? undefined },
      outcome === 'retry' ? 'webhook attempt failed; it will be retried' : 'webhook delivery failed; the event can be replayed',
    );
  }

  async function deliver({ job, target }: ClaimedDelivery): Promise<void> {
    if (!target) {
      await recordAttempt(store, job.event_ref, job.subscription_id, { at: clock.now(), status: null, durationMs: 0, error: 'subscription deleted' });
      await store.events.endJob(job.id, 'failed', owner);
      await refreshEventStatus(store, clock, job.event_ref);
      return;
    }
    const { event, sub } = target;
    if (!sub.enabled) {
      // The subscription was disabled while this delivery was due (a retry already scheduled, or a
      // job recorded just before): a disabled subscription receives nothing more. The delivery
      // ends failed, so the event is listed as failed and can be replayed once it is enabled.
      await recordAttempt(store, job.event_ref, job.subscription_id, { at: clock.now(), status: null, durationMs: 0, error: DISABLED_NOT_SENT });
      await store.events.endJob(job.id, 'failed', owner, sub.url);
      await refreshEventStatus(store, clock, job.event_ref);
      return;
    }
    if (sub.url === DEV_INBOX_URL) {
      // The subscription was moved to the dev inbox while this delivery was due: nothing goes out
      // by POST (spec: the dev inbox records without any outbound request); the event is put in the
      // dev inbox, where the subscription now says its events go.
      await store.events.addToDevInbox(event.id);
      await recordAttempt(store, job.event_ref, job.subscription_id, { at: clock.now(), status: null, durationMs: 0, error: 'the subscription now points at the dev inbox: not sent; the event is in the dev inbox' });
      await store.events.endJob(job.id, 'failed', owner, sub.url);
      await refreshEventStatus(store, clock, job.event_ref);
      return;
    }
    const result = await attemptDelivery(event, sub, settings, clock.now());
    const attempts = job.attempts + 1;
    const { next_attempt_at } = job;
    // The job keeps the url this attempt went to: the event's delivery.url (the subscription's may have changed since the job was made).
    const { url } = sub;
    let next: JobNext = { state: 'failed', attempts, next_attempt_at, url };
    let outcome: 'delivered' | 'retry' | 'failed' = 'failed';
    if (isSuccess(result)) [next, outcome] = [{ state: 'delivered', attempts, next_attempt_at, url }, 'delivered'];
    else if (isRetryable(result) && attempts < MAX_ATTEMPTS) [next, outcome] = [{ state: 'pending', attempts, next_attempt_at: Date.now() + backoff(attempts), url }, 'retry'];
    // The attempt happened whoever holds the job now: it counts.
    observer.webhookAttempt(outcome, result.status, result.durationMs);
    if (outcome !== 'delivered') logFailedAttempt(event.event_id, sub, attempts, result, outcome);
    // From the event's recording (the job's creation) to the receiver's 2xx, on the service's clock.
    if (outcome === 'delivered') observer.webhookDelivered(clock.now() - job.created_at);
    // The attempt's record, the job's release and the event's status (store/deliveries.ts).
    if (!(await store.deliveries.finishAttempt(job, owner, attemptRow(event.id, sub.id, result), next, clock.now()))) {
      // Our lease ran out and the job is another worker's now (or a replay ended it): its result stands.
      deps.logger?.warn({ job: job.id }, 'webhook delivery finished after its lease ran out; the result of the worker that holds it stands');
    }
  }

  async function tick(): Promise<number> {
    const claimed = await store.deliveries.claimDue(owner, Date.now(), settings.leaseMs, settings.batch);
    await Promise.all(
      claimed.map((c) =>
        deliver(c).catch((err) => deps.logger?.error({ err, job: c.job.id }, 'webhook delivery failed unexpectedly; the lease will expire and it will be retried')),
      ),
    );
    return claimed.length;
  }

  const loop = claimLoop({ tick, nextDueAt: () => store.events.nextDueAt(), batch: settings.batch, pollMs: settings.pollMs, label: 'webhook worker', logger: deps.logger });
  const unsubscribe = bus.onEventRecorded(loop.wake);

  return {
    start: loop.start,
    async stop() {
      unsubscribe();
      await loop.stop();
    },
    /** One pass, for tests that drive the worker by hand. */
    tick,
    /** The name this worker claims under. */
    name: owner,
  };
}

export type DeliveryWorker = ReturnType<typeof deliveryWorker>;

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(not a URL)';
  }
}
