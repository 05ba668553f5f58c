/** Every HubSpot route, or (integration not configured) the 404s that say so. */
import type { TypedApp } from '../../../typed.js';
import type { Services } from '../../../../services.js';
import { hubspotCrmRoutes } from './routes.js';
import { hubspotOAuthCallbackRoute } from './oauth-callback.js';
import { hubspotIntegrationRoutes } from '../../integrations/hubspot/index.js';
import { hubspotNotConfigured } from '../../integrations/hubspot-not-configured.js';

export async function hubspotRoutes(app: TypedApp, services: Services) {
  const hs = services.hubspot;
  if (!hs) return hubspotNotConfigured(app);
  hubspotOAuthCallbackRoute(app, hs);
  hubspotIntegrationRoutes(app, hs);
  await hubspotCrmRoutes(app, hs);
}
