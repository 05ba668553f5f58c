/**
 * The `message.received` webhook (spec: Events › Envelope, Delivery headers, Delivery
 * semantics): the envelope exactly as src/domain/events/envelope.ts builds it, recorded as the
 * event's payload and POSTed as those bytes to every enabled subscription.
 */
import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from './common.js';
import { webhook } from './webhook.js';

export const WebhookHandle = Type.Object(
  {
    handle: Type.String({ description: 'an E.164 number or an email' }),
    service: Type.Literal('imessage'),
    is_me: Type.Boolean({ description: 'true for the receiving line' }),
  },
  { description: 'A chat member' },
);
export type WebhookHandle = Static<typeof WebhookHandle>;

/** An inbound message has text and media bubbles only (voice notes and links are outbound parts). */
export const InboundPart = Type.Union(
  [
    Type.Object({ type: Type.Literal('text'), value: Type.String() }),
    Type.Object({
      type: Type.Literal('media'),
      attachment_id: Type.String({ description: 'in_…; GET /api/v1/attachments/{id}/content serves the bytes' }),
      filename: Type.Optional(Type.String({ description: 'when the sender gave one' })),
      mime_type: Type.String({ description: 'application/octet-stream when the sender gave none' }),
      size_bytes: Type.Integer({ minimum: 0 }),
    }),
  ],
  { description: 'One bubble of an inbound message' },
);
export type InboundPart = Static<typeof InboundPart>;

const SIGNATURE_HEX = '[0-9a-f]{64}';

/** The headers of every delivery attempt of an `event` (signer.ts); names are case-insensitive. */
export const webhookHeaders = (event: string) => (brand = 'service') =>
  Type.Object(
    {
      'X-Webhook-Event': Type.Literal(event, { description: 'the event type' }),
      'X-Webhook-Event-Id': Type.String({ description: 'the dedup key (the envelope\'s event_id)' }),
      'X-Webhook-Timestamp': Type.String({ pattern: '^[0-9]+$', description: 'Unix seconds of this attempt' }),
      'X-Webhook-Subscription-Id': Type.String({ description: 'the subscription delivered to' }),
      'X-Webhook-Signature': Type.String({
        pattern: `^t=[0-9]+(,v1=${SIGNATURE_HEX})+$`,
        description: 't=<ts>,v1=<hex>: one v1= per valid secret of the subscription (several during a rotation overlap), newest first',
      }),
      [`x-${brand}-event`]: Type.Literal(event, { description: 'legacy: X-Webhook-Event' }),
      [`x-${brand}-event-id`]: Type.String({ description: 'legacy: X-Webhook-Event-Id' }),
      [`x-${brand}-timestamp`]: Type.String({ pattern: '^[0-9]+$', description: 'legacy: X-Webhook-Timestamp' }),
      [`x-${brand}-signature`]: Type.String({ pattern: `^v1,[0-9]+,${SIGNATURE_HEX}$`, description: 'legacy: v1,<ts>,<hex>, signed with the newest secret only' }),
    },
    { description: 'Delivery headers' },
  );

export const MessageReceivedHeaders = webhookHeaders('message.received');

/** The fields every envelope begins with: its type (twice), its dedup key, when, which versions, and whose. */
export const envelopeHead = <const T extends string>(type: T, eventId: string) => ({
  event: Type.Literal(type),
  event_type: Type.Literal(type),
  event_id: Type.String({ description: eventId }),
  timestamp: DateTime('when the event was recorded'),
  api_version: Type.Literal('v1'),
  webhook_version: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'date-shaped, e.g. 2025-06-01' }),
  trace_id: Type.String({ description: 'tr_…' }),
  partner_id: Type.String({ description: 'the tenant slug' }),
});

export const MessageReceived = Type.Object(
  {
    ...envelopeHead('message.received', 'dedup key: <namespace>:msg:<message guid>; delivery is at least once'),
    data: Type.Object({
      chat: Type.Object({
        id: Type.String({ description: 'for /api/v1/chats/{id}/…' }),
        is_group: Type.Boolean(),
        handles: Type.Array(WebhookHandle, { description: 'the other members (the sender among them), then the receiving line' }),
        owner_handle: Type.Object(WebhookHandle.properties, { description: 'the receiving line (is_me true); replies go out on it' }),
      }),
      message: Type.Object({
        id: Type.String({ description: 'msg_…; valid input to the react endpoint' }),
        direction: Type.Literal('inbound'),
        sender_handle: WebhookHandle,
        parts: Type.Array(InboundPart, { description: 'text and media parts, in message order' }),
        sent_at: DateTime(),
        delivered_at: Nullable(DateTime()),
        read_at: Nullable(DateTime()),
        service: Type.Literal('imessage'),
      }),
      crm_deep_link: Type.String({ format: 'uri', description: 'BLUELINE_DEEP_LINK_TEMPLATE filled in, else the chat\'s messages' }),
    }),
    from: Type.String({ description: 'legacy: data.message.sender_handle.handle' }),
    to: Type.String({ description: 'legacy: the receiving line\'s number' }),
    text: Type.String({ description: 'legacy: the text parts joined by newlines ("" when there are none)' }),
    message_guid: Type.String({ description: 'legacy: the provider guid' }),
    line_id: Type.String({ description: 'legacy: the receiving line\'s id' }),
    test: Type.Optional(
      Type.Boolean({
        description:
          'true only on the sample sent by POST /api/v1/webhook-subscriptions/{id}/test (event_id test:msg:…, chat test_chat, message test_message): ' +
          'a valid envelope about no real message; absent on every real event',
      }),
    ),
  },
  {
    description:
      'The message.received envelope; from, to, text, message_guid and line_id are legacy aliases (prefer data.*). ' +
      'Delivered as a POST with content-type application/json and the headers X-Webhook-Event, X-Webhook-Event-Id, ' +
      'X-Webhook-Timestamp (Unix seconds), X-Webhook-Subscription-Id and X-Webhook-Signature (t=<ts>,v1=<hex>), and the ' +
      'legacy x-service-event, x-service-event-id, x-service-timestamp and x-service-signature (v1,<ts>,<hex>; `service` is the configured header brand). Both ' +
      'signatures are hex HMAC-SHA256 keyed with the subscription secret over "<ts>.<raw body>": verify the raw bytes, ' +
      'compare in constant time, refuse a timestamp more than 300 s from now, answer 401 on failure. The tenant header is never sent.',
  },
);
export type MessageReceived = Static<typeof MessageReceived>;

/** What a subscriber's answers mean, for every event type. */
export const WEBHOOK_RESPONSES = {
  '2XX': 'Received: the event is delivered',
  '4XX': 'Refused (answer 401 to a bad signature): not retried in this delivery; the event is failed and can be replayed',
  '5XX': 'Not received: retried with a short exponential backoff, 3 attempts in all (a network error or timeout counts the same)',
} as const;

export const messageReceived = webhook({
  event: 'message.received',
  operationId: 'messageReceived',
  summary: 'An inbound iMessage arrived on one of the tenant\'s lines',
  description:
    'POSTed to every enabled subscription with message.received in its events (not to the dev inbox, which records it). ' +
    'Delivery is at least once: dedup on event_id. The body is the event\'s stored bytes, the same on every attempt and ' +
    'replay; each attempt is signed afresh.',
  tags: ['webhooks'],
  body: MessageReceived,
  headers: MessageReceivedHeaders,
  responses: WEBHOOK_RESPONSES,
});
