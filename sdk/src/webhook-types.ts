/**
 * The webhooks (spec: Events → Envelope), derived from the generated OpenAPI types: the contract
 * declares them under `webhooks` (src/contract/webhook-message-*.ts), so the envelope a receiver
 * gets, the event records' payload and these types are one schema.
 */
import type { webhooks } from './generated/openapi.js';

type MessageReceivedDelivery = NonNullable<webhooks['message.received']['post']>;

/** The envelope POSTed to a subscription (and each event record's `payload`). Dedup on `event_id`. */
export type MessageReceivedEvent = MessageReceivedDelivery['requestBody']['content']['application/json'];

/** The body of the webhook `E`. */
type Body<E extends keyof webhooks> = NonNullable<webhooks[E]['post']>['requestBody']['content']['application/json'];

/**
 * What happened to a message you sent (for subscriptions that list the type): `data.message` is
 * the message as `messages.get` shows it. Sent: it went out on its line, whatever sent it (the
 * API, the console, HubSpot), or a send answered 3002 was found to have gone out.
 */
export type MessageSentEvent = Body<'message.sent'>;
export type MessageDeliveredEvent = Body<'message.delivered'>;
export type MessageReadEvent = Body<'message.read'>;
/** Failed after the send was answered: `data.message.status` is `failed`, with its `error_code`. */
export type MessageFailedEvent = Body<'message.failed'>;
/** A tapback put on (`data.reaction.removed` false) or taken off a message of the chat, by a member or on the line's Mac. */
export type MessageReactedEvent = Body<'message.reacted'>;
/** A contact edited a message they sent: `data.message` has the new text and `edited_at`. */
export type MessageEditedEvent = Body<'message.edited'>;

/** Any delivery: narrow on `event_type`. */
export type WebhookEvent = MessageReceivedEvent | MessageSentEvent | MessageDeliveredEvent | MessageReadEvent | MessageFailedEvent | MessageReactedEvent | MessageEditedEvent;

/** A chat member: the sender, another member, or the receiving line (`is_me`). */
export type WebhookHandle = MessageReceivedEvent['data']['message']['sender_handle'];

/** One bubble of an inbound message: text, or media (bytes at `attachments.download(attachment_id)`). */
export type InboundPart = MessageReceivedEvent['data']['message']['parts'][number];

/** The headers of a delivery (names are case-insensitive; the legacy ones use the `brand`, `service` by default). */
export type WebhookDeliveryHeaders = MessageReceivedDelivery['parameters']['header'];
