import type { TypedApp } from '../../../typed.js';
import { principalOf } from '../../../auth.js';
import { route } from '../../../route.js';
import { autoSendPageView } from '../../../present/hubspot-installs.js';
import { listHubSpotAutoSends } from '../../../../contract/hubspot-list-auto-sends.js';
import { decodeListCursor, encodeListCursor } from '../../../../domain/list-cursor.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';

export function listHubSpotAutoSendsRoute(app: TypedApp, hs: HubSpotIntegration) {
  route(app, listHubSpotAutoSends, async (req) => {
    const tenant = principalOf(req).tenant;
    const portalId = req.params.portal_id;
    // The installs page by the last row's id; the wire carries it as an opaque cursor of this portal's list.
    const scope = `${tenant.id}|${portalId}`;
    const before = req.query.cursor ? decodeListCursor('hubspotAutoSends', scope, req.query.cursor).id : undefined;
    const page = await hs.installs.autoSends(tenant, portalId, { ...req.query, cursor: before });
    return autoSendPageView({ ...page, nextCursor: page.nextCursor === null ? null : encodeListCursor('hubspotAutoSends', scope, { id: page.nextCursor }) });
  });
}
