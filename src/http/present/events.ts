/** Event records, replays and webhook subscriptions, as the contract shows them. */
import type { FastifyReply } from 'fastify';
import { isoAt, isoOrNull } from '../../clock.js';
import type { EventRecord as EventRecordView } from '../../contract/event.js';
import type { ReplayFailed, ReplaySucceeded } from '../../contract/events-replay.js';
import type { WebhookSubscription } from '../../contract/webhook-subscription.js';
import type { EventRecord, ReplayResult } from '../../domain/events/service.js';
import { EVENT_TYPES, type EventType } from '../../domain/events/vocabulary.js';
import type { Subscription } from '../../store/index.js';

export function eventRecordView(r: EventRecord): EventRecordView {
  return {
    id: r.id,
    type: r.type,
    event_id: r.eventId,
    lead_id: r.leadId,
    convo_id: r.convoId,
    payload: r.payload,
    delivery: {
      status: r.delivery.status,
      url: r.delivery.url,
      attempts: r.delivery.attempts.map((a) => ({
        at: isoAt(a.at),
        // 0 when no HTTP answer arrived (timeout, refused, reset): see error
        status: a.status ?? 0,
        duration_ms: a.durationMs,
        subscription_id: a.subscriptionId,
        ...(a.error !== null && { error: a.error }),
      })),
      delivered_at: isoOrNull(r.delivery.deliveredAt),
    },
    created_at: isoAt(r.createdAt),
  };
}

/**
 * Event records go out through JSON.stringify, not their response schema: the payload is the
 * envelope exactly as recorded (the bytes every delivery and replay sends), and a schema
 * serializer would reorder its fields, or drop any an older or newer envelope has.
 */
export function sendEventRecords<T extends object>(reply: FastifyReply, body: T): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(body));
}

export function replayView(r: ReplayResult, traceId: string): { status: 200; body: ReplaySucceeded } | { status: 502; body: ReplayFailed } {
  if (r.kind === 'delivered') return { status: 200, body: { ok: true, downstream_status: r.downstreamStatus, message: r.message } };
  return {
    status: 502,
    body: { ok: false, error: 'replay_failed', downstream_status: r.downstreamStatus, code: 4001, message: r.message, retryable: r.retryable, trace_id: traceId },
  };
}

const isEventType = (e: string): e is EventType => (EVENT_TYPES as readonly string[]).includes(e);

export function subscriptionView(s: Subscription): WebhookSubscription {
  return { id: s.id, url: s.url, events: s.events.filter(isEventType), enabled: s.enabled, created_at: isoAt(s.created_at) };
}
