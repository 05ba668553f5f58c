/**
 * The shapes OpenAPI names under components.schemas (so generated clients get `Message`,
 * `Chat`, … rather than anonymous inline types). Only the document uses this list: the schema
 * objects themselves are untouched (no `$id`), so validation and serialization are as before.
 * A shape is named where it occurs exactly as declared here (see openapi-refs.ts). Error bodies
 * are not listed: each lists its operation's own codes, so openapi.ts names one by its codes
 * (`ErrorEnvelope_3001`) only where several operations answer with the very same body.
 */
import type { TSchema } from 'typebox';
import { ErrorEnvelope, SendFailure } from './common.js';
import { Message, MessagePart, MessageReaction, MessageStatus, MessageWithReactions } from './message.js';
import { Chat, PartInput } from './chat.js';
import { DeliveryAttempt, EventRecord, EventStatus } from './event.js';
import { Attachment } from './attachment.js';
import { EventType, WebhookSubscription } from './webhook-subscription.js';
import { InboundPart, MessageReceived, WebhookHandle } from './webhook-message-received.js';
import { MessageDelivered, MessageEdited, MessageFailed, MessageReacted, MessageRead, MessageSent } from './webhook-message-status.js';
import { Account } from './account.js';
import { Tenant, TenantStatus } from './tenant.js';
import { AdminPhoneLine, LineDriver } from './admin-line.js';
import { PhoneLine } from './phone-numbers-list.js';
import { ConsoleSession } from './console-sessions.js';
import { HubSpotInstallView } from './hubspot-common.js';
import { SigningSecretStatus } from './signing-secret.js';

export const NAMED_SCHEMAS: Readonly<Record<string, TSchema>> = {
  Message,
  MessageWithReactions,
  MessagePart,
  MessageReaction,
  MessageStatus,
  Chat,
  PartInput,
  Event: EventRecord,
  EventStatus,
  DeliveryAttempt,
  MessageReceived,
  MessageSent,
  MessageDelivered,
  MessageRead,
  MessageFailed,
  MessageReacted,
  MessageEdited,
  WebhookHandle,
  InboundPart,
  Attachment,
  WebhookSubscription,
  EventType,
  Account,
  Tenant,
  TenantStatus,
  AdminPhoneLine,
  LineDriver,
  PhoneLine,
  ConsoleSession,
  HubSpotInstall: HubSpotInstallView,
  SigningSecretStatus,
};

/**
 * Named for clients but not referenced: every operation's error body lists its own codes. These
 * are the same bodies with any code, for a client's catch-all type.
 */
export const UNREFERENCED_SCHEMAS: Readonly<Record<string, TSchema>> = {
  ErrorEnvelope: ErrorEnvelope(),
  SendFailure: SendFailure(),
};
