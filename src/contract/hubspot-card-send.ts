import { Type, type Static } from 'typebox';
import { CrmSent } from './hubspot-common.js';
import { operation } from './operation.js';

/** What hubspot.fetch appends to every request (signed with it): the portal is HubSpot's word, not the card's. */
export const HubSpotCardSendQuery = Type.Object({
  portalId: Type.String({ pattern: '^[0-9]{1,20}$', description: 'appended by HubSpot: the portal of the user the card runs for' }),
  userId: Type.Optional(Type.String({ maxLength: 40 })),
  userEmail: Type.Optional(Type.String({ maxLength: 320 })),
  appId: Type.Optional(Type.String({ maxLength: 40 })),
});
export type HubSpotCardSendQuery = Static<typeof HubSpotCardSendQuery>;

export const HubSpotCardSendBody = Type.Object(
  {
    portalId: Type.Union([Type.String({ pattern: '^[0-9]{1,20}$' }), Type.Integer({ minimum: 1 })], { description: 'must be the portalId HubSpot appended to the query (2005 otherwise)' }),
    objectId: Type.Union([Type.String({ pattern: '^[0-9]{1,30}$' }), Type.Integer({ minimum: 1 })]),
    text: Type.String({ minLength: 1, maxLength: 10_000 }),
    phone_line_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type HubSpotCardSendBody = Static<typeof HubSpotCardSendBody>;
export const HubSpotCardSendResponse = Type.Object(CrmSent);
export type HubSpotCardSendResponse = Static<typeof HubSpotCardSendResponse>;

export const hubspotCardSend = operation({
  operationId: 'hubspotCardSend',
  method: 'POST',
  path: '/crm/hubspot/card/send',
  summary: 'Send from the contact card: 1 HubSpot call; one send per contact and second',
  description: 'Through the same pipeline as POST /api/v1/send (first-touch rules, caps, window). A second request for the same contact in the same second of X-HubSpot-Request-Timestamp answers the first one\'s result: a success with duplicate:true, a failure with replayed:true. The portal is the one HubSpot appended to the query (signed); a body naming another portal is refused (2005), so a user cannot text another portal\'s contacts by editing what the card sends. Signed by HubSpot with the app\'s client secret: a missing, wrong or stale signature is 401; every other failure is HTTP 200 with ok:false. Without the HubSpot integration configured on this server: 404 2011 in the envelope (before the signature is looked at).',
  tags: ['hubspot'],
  auth: 'hubspot',
  signatures: ['v3'],
  query: HubSpotCardSendQuery,
  body: HubSpotCardSendBody,
  responses: { 200: HubSpotCardSendResponse },
  errors: [1001, 1005, 1009, 1012, 1013, 2006, 3002, 4001, 4002, 4099, 2001, 2005, 2010, 2011, 3004, { code: 2011, status: 404 }],
  errorShape: 'crm',
});
