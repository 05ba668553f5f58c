import type { TypedApp } from '../../../typed.js';
import { principalOf } from '../../../auth.js';
import { route } from '../../../route.js';
import { installView } from '../../../present/hubspot-installs.js';
import { uninstallHubSpot } from '../../../../contract/hubspot-uninstall.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';

export function uninstallHubSpotRoute(app: TypedApp, hs: HubSpotIntegration) {
  route(app, uninstallHubSpot, async (req) => {
    const done = await hs.installs.uninstall(principalOf(req).tenant, req.params.portal_id);
    return { install: installView(done.summary), app_removed: done.appRemoved, already_uninstalled: done.alreadyUninstalled };
  });
}
