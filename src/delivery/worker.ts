/**
 * The webhook delivery worker: claims due jobs with a lease (so several
 * processes share the work and a crashed one's jobs come back when its lease
 * runs out), delivers, and schedules retries: up to 3 attempts in all on 5xx
 * or network errors, with short exponential backoff and jitter.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Store, DeliveryJob } from '../store/index.js';
import type { EventBus } from '../domain/events/bus.js';
import { attemptDelivery, isRetryable, isSuccess, recordAttempt, refreshEventStatus, type AttemptSettings } from './attempt.js';
import { noObserver, type ServiceObserver } from '../metrics/observer.js';

export const MAX_ATTEMPTS = 3;

export interface WorkerSettings extends AttemptSettings {
  /** delays before attempts 2 and 3 */
  backoffMs: number[];
  pollMs: number;
  leaseMs: number;
  batch: number;
}

export function deliveryWorker(deps: { store: Store; clock: Clock; bus: EventBus; logger?: Logger; observer?: ServiceObserver }, settings: WorkerSettings) {
  const { store, clock, bus } = deps;
  const observer = deps.observer ?? noObserver;
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  let loop: Promise<void> | undefined;
  const unsubscribe = bus.onEventRecorded(() => wake?.());

  function backoff(attempt: number): number {
    const base = settings.backoffMs[Math.min(attempt - 1, settings.backoffMs.length - 1)] ?? 1000;
    return Math.round(base * (0.8 + Math.random() * 0.4));
  }

  async function deliver(job: DeliveryJob): Promise<void> {
    const target = await store.events.deliveryTarget(job.event_ref, job.subscription_id);
    if (!target) {
      await recordAttempt(store, job.event_ref, job.subscription_id, { at: clock.now(), status: null, durationMs: 0, error: 'subscription deleted' });
      await store.events.endJob(job.id, 'failed');
      await refreshEventStatus(store, clock, job.event_ref);
      return;
    }
    const { event, sub } = target;
    const result = await attemptDelivery(event, sub, settings, clock.now());
    await recordAttempt(store, event.id, sub.id, result);
    const attempts = job.attempts + 1;
    const { next_attempt_at } = job;
    if (isSuccess(result)) {
      await store.events.releaseJob(job.id, { state: 'delivered', attempts, next_attempt_at });
      observer.webhookAttempt('delivered', result.status, result.durationMs);
      // From the event's recording (the job's creation) to the receiver's 2xx, on the service's clock.
      observer.webhookDelivered(clock.now() - job.created_at);
    } else if (isRetryable(result) && attempts < MAX_ATTEMPTS) {
      await store.events.releaseJob(job.id, { state: 'pending', attempts, next_attempt_at: Date.now() + backoff(attempts) });
      observer.webhookAttempt('retry', result.status, result.durationMs);
    } else {
      await store.events.releaseJob(job.id, { state: 'failed', attempts, next_attempt_at });
      observer.webhookAttempt('failed', result.status, result.durationMs);
    }
    await refreshEventStatus(store, clock, event.id);
  }

  async function tick(): Promise<number> {
    const jobs = await store.events.claimDueJobs(Date.now(), settings.leaseMs, settings.batch);
    await Promise.all(
      jobs.map((j) =>
        deliver(j).catch((err) => deps.logger?.error({ err, job: j.id }, 'webhook delivery failed unexpectedly; the lease will expire and it will be retried')),
      ),
    );
    return jobs.length;
  }

  async function run() {
    while (running) {
      let claimed = 0;
      try {
        claimed = await tick();
      } catch (err) {
        deps.logger?.error({ err }, 'webhook worker tick failed');
      }
      if (!running) break;
      if (claimed >= settings.batch) continue;
      const next = await store.events.nextDueAt().catch(() => null);
      // stop() may have come while we looked: with nothing to wake yet, we would sleep a whole poll.
      if (!running) break;
      const wait = Math.max(5, Math.min(settings.pollMs, next === null ? settings.pollMs : next - Date.now()));
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, wait);
      });
      clearTimeout(timer);
      wake = undefined;
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    async stop() {
      running = false;
      wake?.();
      unsubscribe();
      await loop;
    },
    /** One pass, for tests that drive the worker by hand. */
    tick,
  };
}

export type DeliveryWorker = ReturnType<typeof deliveryWorker>;
