/**
 * One signed delivery attempt of a stored event to one subscription. What its result means
 * and the bookkeeping every attempt shares (worker and replay) are the domain's
 * (domain/events/attempts.ts); the replay receives this function from services.ts.
 */
import type { DeliveredEvent, Subscription } from '../store/index.js';
import type { AttemptResult } from '../domain/events/attempts.js';
import { deliveryHeaders } from './signer.js';
import { NetError, postJson } from '../net/index.js';

export interface AttemptSettings {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  brand: string;
}

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
    if (err instanceof NetError) {
      return { at: nowBusinessMs, status: null, durationMs: Math.round(err.durationMs ?? 0), error: `${err.kind}: ${err.message}`, refused: err.refusedUrl };
    }
    return { at: nowBusinessMs, status: null, durationMs: 0, error: `internal: ${(err as Error).message}` };
  }
}
