import type { TypedApp } from '../../../typed.js';
import { principalOf } from '../../../auth.js';
import { route } from '../../../route.js';
import { heldActionPageView } from '../../../present/hubspot-installs.js';
import { listHubSpotHeldActions } from '../../../../contract/hubspot-list-held-actions.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';

export function listHubSpotHeldActionsRoute(app: TypedApp, hs: HubSpotIntegration) {
  route(app, listHubSpotHeldActions, async (req) => heldActionPageView(await hs.installs.heldActions(principalOf(req).tenant, req.params.portal_id, req.query)));
}
