import type { TypedApp } from '../../../typed.js';
import { principalOf } from '../../../auth.js';
import { route } from '../../../route.js';
import { autoSendPageView } from '../../../present/hubspot-installs.js';
import { listHubSpotAutoSends } from '../../../../contract/hubspot-list-auto-sends.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';

export function listHubSpotAutoSendsRoute(app: TypedApp, hs: HubSpotIntegration) {
  route(app, listHubSpotAutoSends, async (req) => autoSendPageView(await hs.installs.autoSends(principalOf(req).tenant, req.params.portal_id, req.query)));
}
