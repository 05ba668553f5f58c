import type { TypedApp } from '../../../typed.js';
import { principalOf } from '../../../auth.js';
import { route } from '../../../route.js';
import { heldActionPageView } from '../../../present/hubspot-installs.js';
import { listHubSpotHeldActions } from '../../../../contract/hubspot-list-held-actions.js';
import { decodeListCursor, encodeListCursor } from '../../../../domain/list-cursor.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';

export function listHubSpotHeldActionsRoute(app: TypedApp, hs: HubSpotIntegration) {
  route(app, listHubSpotHeldActions, async (req) => {
    const tenant = principalOf(req).tenant;
    const portalId = req.params.portal_id;
    // The installs page by the last row's id; the wire carries it as an opaque cursor of this portal's list.
    const scope = `${tenant.id}|${portalId}`;
    const before = req.query.cursor ? decodeListCursor('hubspotHeldActions', scope, req.query.cursor).id : undefined;
    const page = await hs.installs.heldActions(tenant, portalId, { ...req.query, cursor: before });
    return heldActionPageView({ ...page, nextCursor: page.nextCursor === null ? null : encodeListCursor('hubspotHeldActions', scope, { id: page.nextCursor }) });
  });
}
