/**
 * The SDK's wire types, derived from the generated OpenAPI types (src/generated/openapi.ts,
 * built from the service's contract): `Req<'/api/v1/send', 'post'>` is the JSON body,
 * `Res<…>` the success body, `QueryOf<…>` the query. Nothing here restates a field.
 *
 * An operation the contract does not declare yet (the build says which) is typed loosely
 * (`Pending`) until it lands; then its exact types appear here without edits.
 */
import type { paths } from './generated/openapi.js';

export type Method = 'get' | 'post' | 'put' | 'delete' | 'patch';

/** A loosely typed operation body: the contract does not declare this operation yet. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Pending = any;

type Op<P extends string, M extends Method> = P extends keyof paths
  ? M extends keyof paths[P]
    ? NonNullable<paths[P][M]>
    : never
  : never;
type Declared<P extends string, M extends Method, T> = [Op<P, M>] extends [never] ? Pending : T;

type JsonOf<C> = C extends { content: { 'application/json': infer B } } ? B : never;
/** The 2xx statuses an answer can succeed with. */
type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206;
/** Every 2xx JSON body an operation declares (200, 201, 202 — the simulator's inbound is 202 only), as one union. */
type SuccessOf<R> = { [S in keyof R & SuccessStatus]: JsonOf<R[S]> }[keyof R & SuccessStatus];

/** The JSON request body of an operation. */
export type Req<P extends string, M extends Method> = Declared<
  P,
  M,
  Op<P, M> extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never
>;
/** The success JSON body of an operation (any of its 2xx statuses). */
export type Res<P extends string, M extends Method> = Declared<P, M, Op<P, M> extends { responses: infer R } ? SuccessOf<R> : never>;
/** The query parameters of an operation. */
export type QueryOf<P extends string, M extends Method> = Declared<
  P,
  M,
  Op<P, M> extends { parameters: { query?: infer Q } } ? ([Q] extends [never] ? Record<string, never> : NonNullable<Q>) : never
>;

export type ArrayItem<A> = A extends readonly (infer I)[] ? I : never;

// The API's resources, named as the spec names them.
export type PhoneLine = ArrayItem<Res<'/api/v1/phone-numbers', 'get'>['phone_numbers']>;
export type SendRequest = Req<'/api/v1/send', 'post'>;
export type SendResponse = Res<'/api/v1/send', 'post'>;
/** An iMessage bubble or screen effect's name, as /send and the chat sends take it. */
export type Effect = NonNullable<SendRequest['effect']>;
/** A message as chats, lookups and sends show it. */
export type Message = Res<'/api/v1/messages/{id}', 'get'>['message'];
export type EditRequest = Req<'/api/v1/messages/{id}/edit', 'post'>;
export type EditResult = Res<'/api/v1/messages/{id}/edit', 'post'>;
export type ReactRequest = Req<'/api/v1/messages/{id}/react', 'post'>;
export type ReactResult = Res<'/api/v1/messages/{id}/react', 'post'>;
export type CreateChatRequest = Req<'/api/v1/chats', 'post'>;
export type CreateChatResponse = Res<'/api/v1/chats', 'post'>;
export type ChatSendRequest = Req<'/api/v1/chats/{id}/messages', 'post'>;
export type ChatSendResult = Res<'/api/v1/chats/{id}/messages', 'post'>['message'];
export type ChatMessagesQuery = QueryOf<'/api/v1/chats/{id}/messages', 'get'>;
export type ChatMessagesPage = Res<'/api/v1/chats/{id}/messages', 'get'>;
export type ChatMessage = ArrayItem<ChatMessagesPage['messages']>;
export type ParticipantAddResult = Res<'/api/v1/chats/{id}/participants', 'post'>;
export type UploadSlotRequest = Req<'/api/v1/attachments', 'post'>;
export type UploadSlot = Res<'/api/v1/attachments', 'post'>;
export type Attachment = Res<'/api/v1/attachments/{id}', 'get'>['attachment'];
export type StageVoiceNoteRequest = Req<'/api/v1/voice-notes', 'post'>;
export type StagedVoiceNote = Res<'/api/v1/voice-notes', 'post'>;
export type EventsQuery = QueryOf<'/api/v1/events', 'get'>;
export type EventsPage = Res<'/api/v1/events', 'get'>;
export type EventRecord = Res<'/api/v1/events/{id}', 'get'>;
export type ReplayResult = Res<'/api/v1/events/{id}/replay', 'post'>;
export type DevInboxQuery = QueryOf<'/api/v1/dev-inbox', 'get'>;
export type DevInboxPage = Res<'/api/v1/dev-inbox', 'get'>;
export type CreateSubscriptionRequest = Req<'/api/v1/webhook-subscriptions', 'post'>;
export type CreatedSubscription = Res<'/api/v1/webhook-subscriptions', 'post'>;
export type Subscription = Res<'/api/v1/webhook-subscriptions/{id}', 'get'>;
export type SubscriptionList = Res<'/api/v1/webhook-subscriptions', 'get'>;
export type DeletedSubscription = Res<'/api/v1/webhook-subscriptions/{id}', 'delete'>;
export type RotateSecretRequest = Req<'/api/v1/webhook-subscriptions/{id}/rotate-secret', 'post'>;
export type RotatedSecret = Res<'/api/v1/webhook-subscriptions/{id}/rotate-secret', 'post'>;
