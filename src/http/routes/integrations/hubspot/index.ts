/** The tenant's HubSpot integration: install, list, auto-send settings, uninstall, contact-creation records, held workflow actions. */
import type { TypedApp } from '../../../typed.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';
import { startHubSpotInstallRoute } from './start-install.js';
import { listHubSpotInstallsRoute } from './list-installs.js';
import { updateHubSpotInstallRoute } from './update-install.js';
import { uninstallHubSpotRoute } from './uninstall.js';
import { listHubSpotAutoSendsRoute } from './list-auto-sends.js';
import { listHubSpotHeldActionsRoute } from './list-held-actions.js';

export function hubspotIntegrationRoutes(app: TypedApp, hs: HubSpotIntegration) {
  startHubSpotInstallRoute(app, hs);
  listHubSpotInstallsRoute(app, hs);
  updateHubSpotInstallRoute(app, hs);
  uninstallHubSpotRoute(app, hs);
  listHubSpotAutoSendsRoute(app, hs);
  listHubSpotHeldActionsRoute(app, hs);
}
