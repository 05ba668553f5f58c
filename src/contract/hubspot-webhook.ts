import { Type, type Static } from 'typebox';
import { operation } from './operation.js';

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

export const hubspotWebhook = operation({
  operationId: 'hubspotWebhook',
  method: 'POST',
  path: '/crm/hubspot/webhook',
  summary: 'Contact-creation webhook: recorded now, sent in the background (1 HubSpot call each)',
  description: 'Each contact.creation of a portal with auto-send on is sent once (see GET /api/v1/integrations/hubspot/{portal_id}/auto-sends). Signature v3, or v1. Signed by HubSpot with the app\'s client secret: a missing, wrong or stale signature is 401; an unexpected failure of ours (3001: e.g. the database could not record the batch) is 503, so HubSpot retries the batch (it retries on 5xx, not on 200); every other failure is HTTP 200 with ok:false. Without the HubSpot integration configured on this server: 404 2011 in the envelope (before the signature is looked at).',
  tags: ['hubspot'],
  auth: 'hubspot',
  signatures: ['v3', 'v1'],
  body: HubSpotWebhookBody,
  responses: { 200: HubSpotWebhookResponse },
  errors: [{ code: 2011, status: 404 }, { code: 3001, status: 503 }],
  errorShape: 'crm',
});
