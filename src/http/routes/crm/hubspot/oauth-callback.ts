/** GET /crm/hubspot/oauth/callback: a browser comes back from HubSpot's consent screen; an HTML page, or a failure in the envelope (2014: bad state). */
import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';
import { hubspotOAuthCallback } from '../../../../contract/hubspot-oauth-callback.js';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function hubspotOAuthCallbackRoute(app: TypedApp, hs: HubSpotIntegration) {
  route(app, hubspotOAuthCallback, async (req, reply) => {
    const done = await hs.installs.completeInstall(req.query);
    const what = `HubSpot portal ${done.portal_id} (${done.account_type}${done.sandbox ? ', sandbox' : ''}) is now connected to project "${done.tenant}".`;
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(`<!doctype html><html><head><meta charset="utf-8"><title>HubSpot connected</title></head><body><h1>HubSpot connected</h1><p>${escapeHtml(what)}</p><p>You can close this window.</p></body></html>`);
  });
}
