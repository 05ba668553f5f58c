import { Type, type Static } from 'typebox';

export const operationId = 'hubspotContactCard';
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
