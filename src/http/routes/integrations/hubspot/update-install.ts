import type { TypedApp } from '../../../typed.js';
import { principalOf } from '../../../auth.js';
import { route } from '../../../route.js';
import { installView } from '../../../present/hubspot-installs.js';
import { updateHubSpotInstall } from '../../../../contract/hubspot-update-install.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';

export function updateHubSpotInstallRoute(app: TypedApp, hs: HubSpotIntegration) {
  route(app, updateHubSpotInstall, async (req) => {
    const a = req.body.auto_send;
    const summary = await hs.installs.update(principalOf(req).tenant, req.params.portal_id, { autoSend: { enabled: a.enabled, template: a.template, lineId: a.line_id } });
    return { install: installView(summary) };
  });
}
