/**
 * The bookkeeping every delivery attempt shares, whoever made it (the delivery worker or a
 * replay): what an attempt's result means, its record, and the event's aggregated status.
 * Making the attempt (signing, POSTing) is delivery/'s; the domain receives it as a function.
 */
import type { Clock } from '../../clock.js';
import type { Store, DeliveredEvent, DeliveryAttempt, Subscription } from '../../store/index.js';
import { timeSortableId } from '../ids.js';

export interface AttemptResult {
  /** When the attempt was sent (the service's clock) */
  at: number;
  status: number | null;
  durationMs: number;
  error: string | null;
  /** The service refused to send it (the URL is not allowed: a private address, plain http): no retry can do better. */
  refused?: boolean;
}

/** One signed delivery of a stored event to one subscription, at business time `nowMs`. */
export type AttemptDelivery = (event: DeliveredEvent, sub: Subscription, nowMs: number) => Promise<AttemptResult>;

export const isSuccess = (r: AttemptResult) => r.status !== null && r.status >= 200 && r.status < 300;
/** 5xx and network errors are worth another attempt; 4xx is the receiver's final word, a refused URL the service's. */
export const isRetryable = (r: AttemptResult) => !r.refused && (r.status === null || r.status >= 500);

/** An attempt's row in the delivery log. */
export const attemptRow = (eventRef: string, subscriptionId: string, r: AttemptResult): DeliveryAttempt => ({
  id: `dla_${timeSortableId(Date.now())}`, event_ref: eventRef, subscription_id: subscriptionId, at: r.at,
  status: r.status, duration_ms: r.durationMs, error: r.error,
});

export async function recordAttempt(store: Store, eventRef: string, subscriptionId: string, r: AttemptResult): Promise<void> {
  await store.events.insertAttempt(attemptRow(eventRef, subscriptionId, r));
}

/**
 * The event's status from its destinations: delivered once any answered 2xx;
 * failed when every one ended without; pending while any attempt is due.
 */
export async function refreshEventStatus(store: Store, clock: Clock, eventRef: string): Promise<void> {
  // Decided inside the store in one statement: another destination's job may have just delivered it.
  await store.events.settleEventStatus(eventRef, clock.now());
}
