import type { TypedApp } from '../../../typed.js';
import { principalOf } from '../../../auth.js';
import { route } from '../../../route.js';
import { installsView } from '../../../present/hubspot-installs.js';
import { listHubSpotInstalls } from '../../../../contract/hubspot-list-installs.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';

export function listHubSpotInstallsRoute(app: TypedApp, hs: HubSpotIntegration) {
  route(app, listHubSpotInstalls, async (req) => installsView(await hs.installs.list(principalOf(req).tenant)));
}
