import { Type, type Static } from 'typebox';

export const operationId = 'hubspotOAuthCallback';
/** HubSpot's redirect back; the answer is a small HTML page (errors: the normal envelope, 2014 for a bad state). */
export const HubSpotOAuthCallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 2000 })),
  state: Type.Optional(Type.String({ maxLength: 200 })),
  error: Type.Optional(Type.String({ maxLength: 200 })),
  error_description: Type.Optional(Type.String({ maxLength: 2000 })),
});
export type HubSpotOAuthCallbackQuery = Static<typeof HubSpotOAuthCallbackQuery>;
