/** The event record (events list, one event, dev inbox), which carries the webhook envelope. */
import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from './common.js';
import { MessageReceived } from './webhook-message-received.js';
import { MessageDelivered, MessageEdited, MessageFailed, MessageReacted, MessageRead, MessageSent } from './webhook-message-status.js';
import { EVENT_STATUSES } from '../domain/events/vocabulary.js';

export const EventStatus = Type.Enum(EVENT_STATUSES, { type: 'string', description: 'pending → delivered or failed; dev_inbox when recorded for the dev inbox' });

/** An event's payload: the webhook envelope as recorded and delivered (its headers are the webhook's, not the record's). */
const Payload = Type.Union([MessageReceived, MessageSent, MessageDelivered, MessageRead, MessageFailed, MessageReacted, MessageEdited], { description: 'The webhook envelope, of the event type `type` says' });

export const DeliveryAttempt = Type.Object({
  at: DateTime('when the attempt was sent'),
  status: Type.Integer({ description: 'HTTP status; 0 when no answer arrived (see error)' }),
  duration_ms: Type.Integer({ minimum: 0 }),
  subscription_id: Type.String(),
  error: Type.Optional(Type.String({ description: 'why no answer arrived (timeout, refused, reset)' })),
});

export const EventRecord = Type.Object({
  id: Type.String({ description: 'evt_…' }),
  type: Type.String({ description: 'message.received; message.sent, message.delivered, message.read, message.failed, message.reacted or message.edited for a project that subscribes to them' }),
  event_id: Type.String({ description: 'dedup key' }),
  lead_id: Nullable(Type.String()),
  convo_id: Nullable(Type.String({ description: 'the chat’s compatibility id' })),
  payload: Payload,
  delivery: Type.Object({
    status: EventStatus,
    url: Nullable(Type.String({ description: 'the destination that has it, else the first' })),
    attempts: Type.Array(DeliveryAttempt, { description: 'every attempt, automatic and replayed, oldest first' }),
    delivered_at: Nullable(DateTime()),
  }),
  created_at: DateTime(),
});
export type EventRecord = Static<typeof EventRecord>;

/** The data line of one event frame on the SSE stream (`id: <evt id>`, `event: <type>`). */
export const StreamedEvent = Type.Object({ id: Type.String(), type: Type.String(), payload: Payload, created_at: DateTime() });
export type StreamedEvent = Static<typeof StreamedEvent>;

/** The data line of the stream's last frame (`event: close`). */
export const StreamClosed = Type.Object({
  reason: Type.Union([Type.Literal('max_duration'), Type.Literal('access_revoked')], {
    description:
      'max_duration: the stream lived its time; access_revoked: the credential it was opened with stopped working ' +
      '(the signing secret expired or was rotated away, the console session ended) or the tenant was suspended or its account unverified — ' +
      'a stream opened with credentials that work resumes where this one stopped',
  }),
  message: Type.Optional(Type.String({ description: 'access_revoked: why, as a new request would be told' })),
  reconnect_with_since: DateTime('since= for the next stream; may repeat the last event\'s millisecond (dedup on event_id)'),
  last_event_id: Type.Optional(Type.String({ description: 'Last-Event-ID for the next stream: resumes exactly' })),
});
export type StreamClosed = Static<typeof StreamClosed>;

/**
 * A date, or a date-time with seconds optional, fraction optional and a zone required. An
 * unencoded `+` in a query string arrives as a space, so a space stands for it before the offset.
 * (The service also refuses a day the month does not have: 2020-02-30.)
 */
export const ISO_8601_PATTERN = '^(\\d{4})-(\\d{2})-(\\d{2})(?:[Tt]([01]\\d|2[0-3]):([0-5]\\d)(?::([0-5]\\d)(?:\\.\\d{1,9})?)?([Zz]|[+ -](?:[01]\\d|2[0-3]):?[0-5]\\d))?$';

/** `?since=`: created_at strictly after it. */
export const Since = Type.String({
  maxLength: 40,
  pattern: ISO_8601_PATTERN,
  description: 'an ISO 8601 date or date-time with a time zone, e.g. 2025-06-01T12:00:00Z (created_at strictly after it)',
});

export const PageLimit = Type.Integer({ minimum: 1, maximum: 200, default: 50 });
