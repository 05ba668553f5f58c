/** GET /crm/hubspot/oauth/callback: a browser comes back from HubSpot's consent screen; an HTML page, or a failure in the envelope (2014: bad state). */
import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';
import { hubspotOAuthCallback } from '../../../../contract/hubspot-oauth-callback.js';
import { portalConnectedPage } from '../../../present/hubspot-installs.js';

export function hubspotOAuthCallbackRoute(app: TypedApp, hs: HubSpotIntegration) {
  route(app, hubspotOAuthCallback, async (req, reply) => {
    const q = req.query;
    const connected = await hs.installs.completeInstall({ code: q.code, state: q.state, error: q.error, errorDescription: q.error_description });
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(portalConnectedPage(connected));
  });
}
