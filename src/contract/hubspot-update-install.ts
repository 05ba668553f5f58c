import { Type, type Static } from 'typebox';
import { HubSpotInstallView, PortalParams } from './hubspot-common.js';

export const operationId = 'updateHubSpotInstall';
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
