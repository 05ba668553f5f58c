import type { TypedApp } from '../../../typed.js';
import { principalOf } from '../../../auth.js';
import { route } from '../../../route.js';
import { updateHubSpotInstall } from '../../../../contract/hubspot-update-install.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';

export function updateHubSpotInstallRoute(app: TypedApp, hs: HubSpotIntegration) {
  route(app, updateHubSpotInstall, async (req) => ({ install: await hs.installs.update(principalOf(req).tenant, req.params.portal_id, req.body) }));
}
