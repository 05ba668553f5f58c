import { Type, type Static } from 'typebox';

export const operationId = 'hubspotWebhook';
/** HubSpot's batch (up to 100 events); anything else in the array is acknowledged and ignored. */
export const HubSpotWebhookEvent = Type.Object({
  eventId: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
  subscriptionId: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
  portalId: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
  appId: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
  occurredAt: Type.Optional(Type.Integer()),
  subscriptionType: Type.Optional(Type.String()),
  attemptNumber: Type.Optional(Type.Integer()),
  objectId: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
  changeSource: Type.Optional(Type.String()),
  changeFlag: Type.Optional(Type.String()),
});
export const HubSpotWebhookBody = Type.Array(HubSpotWebhookEvent, { maxItems: 1000 });
export type HubSpotWebhookBody = Static<typeof HubSpotWebhookBody>;
export const HubSpotWebhookResponse = Type.Object({
  ok: Type.Literal(true),
  received: Type.Integer(),
  recorded: Type.Integer({ description: 'contact.creation events recorded now' }),
  duplicates: Type.Integer({ description: 'already recorded (HubSpot retries, duplicate deliveries)' }),
  ignored: Type.Integer({ description: 'other subscription types, or portals with no install' }),
  trace_id: Type.String(),
});
export type HubSpotWebhookResponse = Static<typeof HubSpotWebhookResponse>;
