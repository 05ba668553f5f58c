import { Type, type Static } from 'typebox';
import { HubSpotInstallView, PortalParams } from './hubspot-common.js';
import { operation } from './operation.js';

export const UninstallHubSpotParams = PortalParams;
export const UninstallHubSpotResponse = Type.Object({
  install: HubSpotInstallView,
  app_removed: Type.Boolean({
    description:
      'HubSpot removed the app from the portal: its features there (the card, the workflow action, the webhook subscription) are removed and HubSpot emails the portal\'s super admins. false: HubSpot did not take the removal (unreachable, the tokens already refused, or the install was not active): a portal admin removes the app in HubSpot (Connected apps); the uninstall stands either way',
  }),
  already_uninstalled: Type.Boolean({
    description: 'the portal was already uninstalled before this call (another console tab or API call): nothing was done again, and app_removed is false because this call did not ask HubSpot',
  }),
});
export type UninstallHubSpotResponse = Static<typeof UninstallHubSpotResponse>;

export const uninstallHubSpot = operation({
  operationId: 'uninstallHubSpot',
  method: 'DELETE',
  path: '/api/v1/integrations/hubspot/{portal_id}',
  summary: 'Uninstall a portal: the app is removed from the HubSpot portal and its tokens are deleted',
  description: '2011 (404): no install of this project for the portal, or the HubSpot integration is not configured on this server.',
  tags: ['hubspot'],
  auth: 'tenant',
  params: UninstallHubSpotParams,
  responses: { 200: UninstallHubSpotResponse },
  errors: [2011],
});
