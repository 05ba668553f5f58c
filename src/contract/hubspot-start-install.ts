import { Type, type Static } from 'typebox';

export const operationId = 'startHubSpotInstall';
export const StartHubSpotInstallResponse = Type.Object({
  install_url: Type.String({ description: "HubSpot's authorize URL with a single-use state bound to this project" }),
  expires_at: Type.String({ format: 'date-time', description: 'the state is valid 10 minutes' }),
});
export type StartHubSpotInstallResponse = Static<typeof StartHubSpotInstallResponse>;
