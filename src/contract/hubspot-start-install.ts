import { Type, type Static } from 'typebox';
import { operation } from './operation.js';

export const StartHubSpotInstallResponse = Type.Object({
  install_url: Type.String({ description: "HubSpot's authorize URL with a single-use state bound to this project" }),
  expires_at: Type.String({ format: 'date-time', description: 'the state is valid 10 minutes' }),
});
export type StartHubSpotInstallResponse = Static<typeof StartHubSpotInstallResponse>;

export const startHubSpotInstall = operation({
  operationId: 'startHubSpotInstall',
  method: 'POST',
  path: '/api/v1/integrations/hubspot/install',
  summary: "HubSpot's authorize URL with a single-use state (10 minutes)",
  description: 'Open install_url in a browser: HubSpot asks for consent, then redirects to GET /crm/hubspot/oauth/callback. 2011 (404): the HubSpot integration is not configured on this server.',
  tags: ['hubspot'],
  auth: 'tenant',
  responses: { 201: StartHubSpotInstallResponse },
  errors: [2011],
});
