/**
 * The `message.failed` webhook, an addition to the spec's events: an outbound message its line
 * failed after the send was answered. The envelope is src/domain/events/failed-envelope.ts's;
 * its common fields and delivery are message.received's.
 */
import { Type, type Static } from 'typebox';
import { DateTime } from './common.js';
import { webhook } from './webhook.js';
import { Message } from './message.js';
import { WEBHOOK_RESPONSES, WebhookHandle, webhookHeaders } from './webhook-message-received.js';

export const MessageFailed = Type.Object(
  {
    event: Type.Literal('message.failed'),
    event_type: Type.Literal('message.failed'),
    event_id: Type.String({ description: 'dedup key: <namespace>:failed:<message id>; a message fails once; delivery is at least once' }),
    timestamp: DateTime('when the event was recorded'),
    api_version: Type.Literal('v1'),
    webhook_version: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'date-shaped, e.g. 2025-06-01' }),
    trace_id: Type.String({ description: 'tr_…' }),
    partner_id: Type.String({ description: 'the tenant slug' }),
    data: Type.Object({
      chat: Type.Object({
        id: Type.String({ description: 'for /api/v1/chats/{id}/…' }),
        is_group: Type.Boolean(),
        handles: Type.Array(WebhookHandle, { description: 'the recipients, then the sending line' }),
        owner_handle: Type.Object(WebhookHandle.properties, { description: 'the line the message went out on (is_me true)' }),
      }),
      message: Type.Object(Message.properties, {
        description: 'the message as GET /api/v1/messages/{id} shows it: direction outbound, status failed, error_code 4001 (retryable: send it again under a new idempotency key)',
      }),
      crm_deep_link: Type.String({ format: 'uri', description: 'BLUELINE_DEEP_LINK_TEMPLATE filled in, else the chat\'s messages' }),
    }),
  },
  {
    description:
      'The message.failed envelope: an outbound message its line accepted (the send answered `sent`, or `sending` after a timeout) and then failed: ' +
      'Messages could not deliver it, or reconciliation found it never left. A refusal the send itself answered fires none. ' +
      'Delivered, signed and retried exactly as message.received, with X-Webhook-Event message.failed.',
  },
);
export type MessageFailed = Static<typeof MessageFailed>;

export const messageFailed = webhook({
  event: 'message.failed',
  operationId: 'messageFailed',
  summary: 'An outbound message failed after its send was answered',
  description:
    'Recorded only for a project with a subscription (webhook or dev inbox) whose events include message.failed, and POSTed to each enabled one. ' +
    'Delivery is at least once: dedup on event_id. The body is the event\'s stored bytes, the same on every attempt and replay; each attempt is signed afresh.',
  tags: ['webhooks'],
  body: MessageFailed,
  headers: webhookHeaders('message.failed'),
  responses: WEBHOOK_RESPONSES,
});
