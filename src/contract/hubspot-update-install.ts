import { Type, type Static } from 'typebox';
import { HubSpotInstallView, PortalParams } from './hubspot-common.js';
import { operation } from './operation.js';

export const UpdateHubSpotInstallParams = PortalParams;
export const UpdateHubSpotInstallBody = Type.Object(
  {
    auto_send: Type.Object(
      {
        enabled: Type.Optional(Type.Boolean({ description: 'off until configured: true needs a non-empty template (else 1002)' })),
        template: Type.Optional(Type.String({ maxLength: 10_000, description: 'text with {{firstname}}-style contact-property placeholders' })),
        line_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()])),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type UpdateHubSpotInstallBody = Static<typeof UpdateHubSpotInstallBody>;
export const UpdateHubSpotInstallResponse = Type.Object({ install: HubSpotInstallView });
export type UpdateHubSpotInstallResponse = Static<typeof UpdateHubSpotInstallResponse>;

export const updateHubSpotInstall = operation({
  operationId: 'updateHubSpotInstall',
  method: 'PATCH',
  path: '/api/v1/integrations/hubspot/{portal_id}',
  summary: 'Contact-creation auto-send settings (off until configured)',
  description: '2011 (404): no install of this project for the portal, or the HubSpot integration is not configured on this server; 1012: the portal is uninstalled.',
  tags: ['hubspot'],
  auth: 'tenant',
  params: UpdateHubSpotInstallParams,
  body: UpdateHubSpotInstallBody,
  responses: { 200: UpdateHubSpotInstallResponse },
  errors: [1001, 1012, 2006, 2011],
});
