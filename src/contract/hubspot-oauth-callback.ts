import { Type, type Static } from 'typebox';
import { operation } from './operation.js';

/** HubSpot's redirect back (code and state, or error and error_description). */
export const HubSpotOAuthCallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 2000 })),
  state: Type.Optional(Type.String({ maxLength: 200 })),
  error: Type.Optional(Type.String({ maxLength: 200 })),
  error_description: Type.Optional(Type.String({ maxLength: 2000 })),
});
export type HubSpotOAuthCallbackQuery = Static<typeof HubSpotOAuthCallbackQuery>;

export const hubspotOAuthCallback = operation({
  operationId: 'hubspotOAuthCallback',
  method: 'GET',
  path: '/crm/hubspot/oauth/callback',
  summary: "HubSpot's OAuth redirect (a browser): connects the portal, answers an HTML page",
  description:
    'Reached by the browser HubSpot redirects after consent (the redirect_uri of the install URL). 2014: the state is unknown, expired or used; ' +
    '1002: HubSpot reported an error or refused the code; 1012: the portal is connected to another project; 2008: no install slot left. ' +
    'Failures use the envelope (JSON). 404 2011: the HubSpot integration is not configured on this server.',
  tags: ['hubspot'],
  auth: 'none',
  query: HubSpotOAuthCallbackQuery,
  responses: {},
  rawResponses: { 200: { contentType: 'text/html', description: 'A small page saying which portal is now connected to which project' } },
  errors: [1001, 1012, 2005, 2008, 2010, 2011, 2014, 3004, { code: 3004, status: 503 }],
});
