/**
 * @blueline/sdk: a typed client for the Blueline API. Runs on Node 20.6+ (as an ES module or,
 * built to dist/cjs, CommonJS) and in browsers (file paths as upload sources are Node only).
 * Webhook verification is in `@blueline/sdk/webhooks` (it needs node:crypto, so it is kept out
 * of this browser-safe entry).
 */
export { Blueline } from './client.js';
export type { BluelineOptions, AuthMode } from './core.js';
export {
  BlueLineError,
  ValidationError,
  IdempotencyCollisionError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  RateLimitError,
  LineUnavailableError,
  DeliveryFailedError,
  UnsupportedError,
  InternalServerError,
  BlueLineConnectionError,
  UnexpectedResponseError,
  RangeNotSatisfiableError,
  familyOf,
  isErrorCode,
  type ErrorCode,
  type ErrorFamily,
  type SendFailureIds,
} from './errors.js';
export { PageIterator } from './pagination.js';
export { DEV_INBOX_URL } from './resources/webhook-subscriptions.js';
export type { CallOptions } from './resources/base.js';
export type { ConsoleSession, SignInRequest, ChatListQuery, ChatListPage, ChatSummary, Settings, SettingsUpdate, Stats, SubscriptionUpdate, SubscriptionTestResult, AdminLineHealth } from './resources/console.js';
export type { SigningSecretStatus, RotateSigningSecretRequest, RotatedSigningSecret } from './resources/signing-secret.js';
export type { HubSpotInstall, HubSpotStatus, HubSpotAutoSend, HubSpotAutoSendUpdate, HubSpotAutoSendsQuery, HubSpotAutoSendsPage, HubSpotHeldAction, HubSpotHeldActionsQuery, HubSpotHeldActionsPage } from './resources/hubspot.js';
export type { UploadOptions, Download } from './resources/attachments.js';
export type { StageOptions, VoiceNoteSource } from './resources/voice-notes.js';
export type { StreamEvent, StreamOptions } from './sse.js';
export type { UploadSource, UploadContentType } from './sources.js';
export { UPLOAD_ACCEPT, UPLOAD_CONTENT_TYPES, uploadContentTypeOf } from './sources.js';
export type { MessageReceivedEvent, MessageSentEvent, MessageDeliveredEvent, MessageReadEvent, MessageFailedEvent, MessageReactedEvent, MessageEditedEvent, WebhookEvent, WebhookHandle, InboundPart, WebhookDeliveryHeaders } from './webhook-types.js';
export type * from './types.js';
export type { paths, operations } from './generated/openapi.js';
