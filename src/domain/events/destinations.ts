/**
 * Where a new event goes: one delivery job per enabled subscription to its type (the dev inbox
 * records it without any POST), and the state it is recorded in.
 */
import type { DeliveryJob, EventRow } from '../../store/index.js';
import { timeSortableId } from '../ids.js';
import { DEV_INBOX_URL, type EventType } from './vocabulary.js';

export interface SubscriptionTarget {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
}

export function destinations(subscriptions: readonly SubscriptionTarget[], type: EventType, eventRef: string, tenantId: string, nowMs: number) {
  const subs = subscriptions.filter((s) => s.enabled && s.events.includes(type));
  const real = subs.filter((s) => s.url !== DEV_INBOX_URL);
  const devInbox = subs.length > real.length;
  // No destination at all (message.received is recorded even so): failed, so it can be listed and replayed once one exists.
  const status: EventRow['status'] = real.length ? 'pending' : devInbox ? 'dev_inbox' : 'failed';
  const jobs = real.map(
    (s): DeliveryJob => ({
      id: `job_${timeSortableId(nowMs)}`, event_ref: eventRef, subscription_id: s.id, tenant_id: tenantId, url: s.url,
      state: 'pending', attempts: 0, next_attempt_at: Date.now(), lease_until: null, created_at: nowMs,
    }),
  );
  return { subscribed: subs.length > 0, status, devInbox, jobs };
}
