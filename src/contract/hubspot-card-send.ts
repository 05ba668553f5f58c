import { Type, type Static } from 'typebox';
import { CrmSent } from './hubspot-common.js';

export const operationId = 'hubspotCardSend';
export const HubSpotCardSendBody = Type.Object(
  {
    portalId: Type.Union([Type.String({ pattern: '^[0-9]{1,20}$' }), Type.Integer({ minimum: 1 })]),
    objectId: Type.Union([Type.String({ pattern: '^[0-9]{1,30}$' }), Type.Integer({ minimum: 1 })]),
    text: Type.String({ minLength: 1, maxLength: 10_000 }),
    phone_line_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type HubSpotCardSendBody = Static<typeof HubSpotCardSendBody>;
export const HubSpotCardSendResponse = Type.Object(CrmSent);
export type HubSpotCardSendResponse = Static<typeof HubSpotCardSendResponse>;
