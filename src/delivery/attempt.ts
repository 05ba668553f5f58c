/**
 * One signed delivery attempt of a stored event to one subscription, and the
 * bookkeeping every attempt shares (worker and replay): the attempt record,
 * the job's state, and the event's aggregated status.
 */
import type { Clock } from '../clock.js';
import type { Store, DeliveredEvent, Subscription } from '../store/index.js';
import { deliveryHeaders } from './signer.js';
import { NetError, postJson } from '../net/index.js';
import { timeSortableId } from '../domain/ids.js';

export interface AttemptSettings {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  brand: string;
}

export interface AttemptResult {
  /** When the attempt was sent (the service's clock) */
  at: number;
  status: number | null;
  durationMs: number;
  error: string | null;
}

export const isSuccess = (r: AttemptResult) => r.status !== null && r.status >= 200 && r.status < 300;
/** 5xx and network errors are worth another attempt; 4xx is the receiver's final word. */
export const isRetryable = (r: AttemptResult) => r.status === null || r.status >= 500;

export async function attemptDelivery(event: DeliveredEvent, sub: Subscription, settings: AttemptSettings, nowBusinessMs: number): Promise<AttemptResult> {
  const live = sub.secrets.filter((s) => s.expires_at === null || s.expires_at > nowBusinessMs).map((s) => s.secret);
  const body = Buffer.from(event.payload, 'utf8');
  // Outgoing signatures use real time: receivers check them against their own clocks.
  const headers = deliveryHeaders({
    eventType: event.type,
    eventId: event.event_id,
    subscriptionId: sub.id,
    rawBody: body,
    secrets: live,
    timestampSeconds: Math.floor(Date.now() / 1000),
    brand: settings.brand,
  });
  try {
    const r = await postJson({ url: sub.url, headers, body, timeoutMs: settings.timeoutMs, allowPrivateNetworks: settings.allowPrivateNetworks });
    return { at: nowBusinessMs, status: r.status, durationMs: Math.round(r.durationMs), error: null };
  } catch (err) {
    if (err instanceof NetError) return { at: nowBusinessMs, status: null, durationMs: Math.round(err.durationMs ?? 0), error: `${err.kind}: ${err.message}` };
    return { at: nowBusinessMs, status: null, durationMs: 0, error: `internal: ${(err as Error).message}` };
  }
}

export async function recordAttempt(store: Store, eventRef: string, subscriptionId: string, r: AttemptResult): Promise<void> {
  await store.events.insertAttempt({
    id: `dla_${timeSortableId(Date.now())}`, event_ref: eventRef, subscription_id: subscriptionId, at: r.at,
    status: r.status, duration_ms: r.durationMs, error: r.error,
  });
}

/**
 * The event's status from its destinations: delivered once any answered 2xx;
 * failed when every one ended without; pending while any attempt is due.
 */
export async function refreshEventStatus(store: Store, clock: Clock, eventRef: string): Promise<void> {
  // Decided inside the store in one statement: another destination's job may have just delivered it.
  await store.events.settleEventStatus(eventRef, clock.now());
}
