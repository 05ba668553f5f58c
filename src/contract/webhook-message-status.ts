/**
 * The status webhooks, an addition to the spec's events: `message.sent`, `message.delivered`,
 * `message.read` and `message.failed`, what happened to a message the project sent, and
 * `message.reacted`, a tapback a line reported on a message of the chat, and `message.edited`, a
 * contact's edit of a message they sent. One envelope (src/domain/events/status-envelope.ts) with the type as its literal;
 * its common fields and delivery are message.received's.
 */
import { Type, type Static, type TProperties } from 'typebox';
import { webhook } from './webhook.js';
import { Message } from './message.js';
import { Reaction } from './messages-react.js';
import { DateTime } from './common.js';
import { WEBHOOK_RESPONSES, WebhookHandle, envelopeHead, webhookHeaders } from './webhook-message-received.js';
import type { StatusEventType } from '../domain/events/vocabulary.js';

/**
 * Each type's words. `ofOwnSend`: about a message the project sent (else a line's report on any
 * message of the chat); `dedup`: its event_id, when not one per message.
 */
const WHAT: Record<StatusEventType, { message: string; summary: string; envelope: string; ofOwnSend: boolean; dedup?: string }> = {
  'message.sent': {
    message: 'direction outbound, status sent (or a later state, when a receipt came first), provider guid set',
    summary: 'An outbound message went out on its line',
    envelope:
      'its line accepted it, whatever sent it (the API, the console, a HubSpot workflow action or auto-send): when the send was answered, ' +
      'or, for a send answered 3002 (`sending` after a timeout), when reconciliation found it went out. A message the line refused at once fires none',
    ofOwnSend: true,
  },
  'message.delivered': {
    message: 'direction outbound, status delivered (or read, or edited, when that came first), delivered_at set',
    summary: 'An outbound message reached the recipient\'s device',
    envelope: 'its line reported it delivered (a read receipt that came first counts as delivery too)',
    ofOwnSend: true,
  },
  'message.read': {
    message: 'direction outbound, status read (or edited), read_at set',
    summary: 'An outbound message was read',
    envelope: 'its line reported it read (only where the recipient sends read receipts)',
    ofOwnSend: true,
  },
  'message.failed': {
    message: 'direction outbound, status failed, error_code 4001 (retryable: send it again under a new idempotency key)',
    summary: 'An outbound message failed after its send was answered',
    envelope:
      'its line accepted it (the send answered `sent`, or `sending` after a timeout) and then failed it: Messages could not deliver it, ' +
      'or reconciliation found it never left. A refusal the send itself answered fires none',
    ofOwnSend: true,
  },
  'message.reacted': {
    message: 'the message the tapback is on, either direction (its tapbacks are on GET /api/v1/messages/{id})',
    summary: 'A tapback was put on or taken off a message',
    envelope:
      'its line reported a tapback on one of the chat\'s messages, put on or taken off: a contact\'s, or one made on the line\'s Mac (from is the line, is_me true). ' +
      'The project\'s own, made through POST /api/v1/messages/{id}/react, fire none (the call answered them); a removal of a tapback the sender did not have fires none',
    ofOwnSend: false,
    dedup: '<namespace>:reacted:<message id>:<from>:<tapback, - before it for a removal>:<the line\'s time in ms>, once per tapback the line reported',
  },
  'message.edited': {
    message: 'direction inbound, its parts with the new text, edited_at set',
    summary: 'A contact edited a message they sent',
    envelope:
      'its line reported that the sender edited a message they sent (Messages lets them, for 15 minutes, up to five times): data.message has the new text. ' +
      'The project\'s own edits (POST /api/v1/messages/{id}/edit) fire none: the call answered them',
    ofOwnSend: false,
    dedup: '<namespace>:edited:<message id>:<edited_at in ms>, once per edit',
  },
};

/** What message.reacted adds to the envelope. */
const ReactionNews = Type.Object({
  reaction: Reaction,
  removed: Type.Boolean({ description: 'true: the sender took this tapback off' }),
  from: Type.Object(WebhookHandle.properties, { description: "who put it on or took it off: a chat member, or the line (is_me true) for one made on the line's Mac" }),
  at: DateTime('when the line says it was made'),
});

const statusBody = <const Extra extends TProperties = {}>(type: StatusEventType, extra?: Extra) => {
  const { ofOwnSend, dedup } = WHAT[type];
  return Type.Object(
    {
      ...envelopeHead(
        type,
        `dedup key: ${dedup ?? `<namespace>:${type.slice('message.'.length)}:<message id>, once per message`}; delivery is at least once`,
      ),
      data: Type.Object({
        chat: Type.Object({
          id: Type.String({ description: 'for /api/v1/chats/{id}/…' }),
          is_group: Type.Boolean(),
          handles: Type.Array(WebhookHandle, { description: "the chat's members, then its line" }),
          owner_handle: Type.Object(WebhookHandle.properties, { description: ofOwnSend ? 'the line the message went out on (is_me true)' : "the chat's line (is_me true)" }),
        }),
        message: Type.Object(Message.properties, { description: `the message as GET /api/v1/messages/{id} shows it, less its reactions: ${WHAT[type].message}` }),
        ...(extra ?? ({} as Extra)),
        crm_deep_link: Type.String({ format: 'uri', description: 'BLUELINE_DEEP_LINK_TEMPLATE filled in, else the chat\'s messages' }),
      }),
    },
    {
      description:
        `The ${type} envelope: ${ofOwnSend ? 'a message the project sent: ' : ''}${WHAT[type].envelope}. ` +
        `Delivered, signed and retried exactly as message.received, with X-Webhook-Event ${type}.`,
    },
  );
};

const statusWebhook = <T extends StatusEventType, B extends ReturnType<typeof statusBody>>(type: T, operationId: string, body: B) =>
  webhook({
    event: type,
    operationId,
    summary: WHAT[type].summary,
    description:
      `Recorded only for a project with a subscription (webhook or dev inbox) whose events include ${type}, and POSTed to each enabled one. ` +
      'Delivery is at least once: dedup on event_id. The body is the event\'s stored bytes, the same on every attempt and replay; each attempt is signed afresh.',
    tags: ['webhooks'],
    body,
    headers: webhookHeaders(type),
    responses: WEBHOOK_RESPONSES,
  });

export const MessageSent = statusBody('message.sent');
export type MessageSent = Static<typeof MessageSent>;
export const MessageDelivered = statusBody('message.delivered');
export type MessageDelivered = Static<typeof MessageDelivered>;
export const MessageRead = statusBody('message.read');
export type MessageRead = Static<typeof MessageRead>;
export const MessageFailed = statusBody('message.failed');
export type MessageFailed = Static<typeof MessageFailed>;

export const MessageReacted = statusBody('message.reacted', { reaction: ReactionNews });
export type MessageReacted = Static<typeof MessageReacted>;
export const MessageEdited = statusBody('message.edited');
export type MessageEdited = Static<typeof MessageEdited>;

export const messageReacted = statusWebhook('message.reacted', 'messageReacted', MessageReacted);
export const messageEdited = statusWebhook('message.edited', 'messageEdited', MessageEdited);
export const messageSent = statusWebhook('message.sent', 'messageSent', MessageSent);
export const messageDelivered = statusWebhook('message.delivered', 'messageDelivered', MessageDelivered);
export const messageRead = statusWebhook('message.read', 'messageRead', MessageRead);
export const messageFailed = statusWebhook('message.failed', 'messageFailed', MessageFailed);
