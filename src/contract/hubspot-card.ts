import { Type, type Static } from 'typebox';
import { operation } from './operation.js';

/** hubspot.fetch appends userId, portalId, userEmail, appId; the card adds associatedObjectId/Type. */
export const HubSpotCardQuery = Type.Object({
  portalId: Type.String({ pattern: '^[0-9]{1,20}$' }),
  associatedObjectId: Type.String({ pattern: '^[0-9]{1,30}$' }),
  associatedObjectType: Type.Optional(Type.String({ maxLength: 40 })),
  userId: Type.Optional(Type.String({ maxLength: 40 })),
  userEmail: Type.Optional(Type.String({ maxLength: 320 })),
  appId: Type.Optional(Type.String({ maxLength: 40 })),
});
export type HubSpotCardQuery = Static<typeof HubSpotCardQuery>;
export const HubSpotCardResponse = Type.Object({
  ok: Type.Literal(true),
  portal_id: Type.String(),
  contact: Type.Object({
    id: Type.String(),
    firstname: Type.Union([Type.String(), Type.Null()]),
    lastname: Type.Union([Type.String(), Type.Null()]),
    phone: Type.Union([Type.String(), Type.Null()], { description: 'as HubSpot holds it' }),
    phone_normalized: Type.Union([Type.String(), Type.Null()]),
    phone_usable: Type.Boolean(),
    phone_problem: Type.Optional(Type.String()),
  }),
  chat_id: Type.Union([Type.String(), Type.Null()]),
  messages: Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: 'the last 20, newest first, as GET /api/v1/chats/{id}/messages shows them' }),
  lines: Type.Array(Type.Object({ phone_line_id: Type.String(), phone_number: Type.String() })),
  send: Type.Object({
    would_be_first_touch: Type.Union([Type.Boolean(), Type.Null()]),
    allowed_now: Type.Boolean(),
    error: Type.Optional(Type.String()),
    code: Type.Optional(Type.Integer()),
    reason: Type.Optional(Type.String()),
    retry_after: Type.Optional(Type.Integer()),
  }),
  trace_id: Type.String(),
});
export type HubSpotCardResponse = Static<typeof HubSpotCardResponse>;

export const hubspotContactCard = operation({
  operationId: 'hubspotContactCard',
  method: 'GET',
  path: '/crm/hubspot/card',
  summary: "Contact card (HubSpot's app card fetch): 1 HubSpot call",
  description: 'The contact\'s phone, its chat\'s last messages, the lines and whether a send now would be a first touch. Signed by HubSpot with the app\'s client secret: a missing, wrong or stale signature is 401; every other failure is HTTP 200 with ok:false. Without the HubSpot integration configured on this server: 404 2011 in the envelope (before the signature is looked at).',
  tags: ['hubspot'],
  auth: 'hubspot',
  signatures: ['v3'],
  query: HubSpotCardQuery,
  responses: { 200: HubSpotCardResponse },
  // The codes of the ok:false answers (HTTP 200); 2011 there: the contact is gone from HubSpot.
  errors: [1001, 2001, 2005, 2010, 2011, 3004, 4099, { code: 2011, status: 404 }],
  errorShape: 'crm',
});
