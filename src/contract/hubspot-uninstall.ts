import { Type, type Static } from 'typebox';
import { HubSpotInstallView, PortalParams } from './hubspot-common.js';

export const operationId = 'uninstallHubSpot';
export const UninstallHubSpotParams = PortalParams;
export const UninstallHubSpotResponse = Type.Object({ install: HubSpotInstallView });
export type UninstallHubSpotResponse = Static<typeof UninstallHubSpotResponse>;
