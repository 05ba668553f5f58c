import { Type, type Static } from 'typebox';
import { HubSpotInstallView } from './hubspot-common.js';

export const operationId = 'listHubSpotInstalls';
export const ListHubSpotInstallsResponse = Type.Object({ installs: Type.Array(HubSpotInstallView) });
export type ListHubSpotInstallsResponse = Static<typeof ListHubSpotInstallsResponse>;
