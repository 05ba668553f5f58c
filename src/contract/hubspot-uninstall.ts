import { Type, type Static } from 'typebox';
import { HubSpotInstallView, PortalParams } from './hubspot-common.js';
import { operation } from './operation.js';

export const UninstallHubSpotParams = PortalParams;
export const UninstallHubSpotResponse = Type.Object({ install: HubSpotInstallView });
export type UninstallHubSpotResponse = Static<typeof UninstallHubSpotResponse>;

export const uninstallHubSpot = operation({
  operationId: 'uninstallHubSpot',
  method: 'DELETE',
  path: '/api/v1/integrations/hubspot/{portal_id}',
  summary: 'Uninstall a portal: its tokens are deleted',
  description: '2011 (404): no install of this project for the portal, or the HubSpot integration is not configured on this server.',
  tags: ['hubspot'],
  auth: 'tenant',
  params: UninstallHubSpotParams,
  responses: { 200: UninstallHubSpotResponse },
  errors: [2011],
});
