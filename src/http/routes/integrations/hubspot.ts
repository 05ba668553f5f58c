/** The tenant's HubSpot integration: install, list, auto-send settings, uninstall, contact-creation records. */
import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import type { HubSpotIntegration } from '../../../crm/hubspot/index.js';
import * as start from '../../../contract/hubspot-start-install.js';
import * as list from '../../../contract/hubspot-list-installs.js';
import * as update from '../../../contract/hubspot-update-install.js';
import * as uninstall from '../../../contract/hubspot-uninstall.js';
import * as autoSends from '../../../contract/hubspot-list-auto-sends.js';

const tags = ['hubspot'];

export function hubspotIntegrationRoutes(app: TypedApp, hs: HubSpotIntegration) {
  app.post(
    '/api/v1/integrations/hubspot/install',
    { schema: { tags, operationId: start.operationId, summary: "HubSpot's authorize URL with a single-use state (10 minutes)", response: { 201: start.StartHubSpotInstallResponse } } },
    async (req, reply) => reply.status(201).send(await hs.installs.startInstall(principalOf(req).tenant)),
  );

  app.get(
    '/api/v1/integrations/hubspot',
    { schema: { tags, operationId: list.operationId, summary: "The project's HubSpot installs (never their tokens)", response: { 200: list.ListHubSpotInstallsResponse } } },
    async (req) => hs.installs.list(principalOf(req).tenant),
  );

  app.patch(
    '/api/v1/integrations/hubspot/:portal_id',
    { schema: { tags, operationId: update.operationId, summary: 'Contact-creation auto-send settings (off until configured)', params: update.UpdateHubSpotInstallParams, body: update.UpdateHubSpotInstallBody, response: { 200: update.UpdateHubSpotInstallResponse } } },
    async (req) => ({ install: await hs.installs.update(principalOf(req).tenant, req.params.portal_id, req.body) }),
  );

  app.delete(
    '/api/v1/integrations/hubspot/:portal_id',
    { schema: { tags, operationId: uninstall.operationId, summary: 'Uninstall: the tokens are deleted', params: uninstall.UninstallHubSpotParams, response: { 200: uninstall.UninstallHubSpotResponse } } },
    async (req) => ({ install: await hs.installs.uninstall(principalOf(req).tenant, req.params.portal_id) }),
  );

  app.get(
    '/api/v1/integrations/hubspot/:portal_id/auto-sends',
    { schema: { tags, operationId: autoSends.operationId, summary: 'Contact-creation records, newest first', params: autoSends.ListHubSpotAutoSendsParams, querystring: autoSends.ListHubSpotAutoSendsQuery, response: { 200: autoSends.ListHubSpotAutoSendsResponse } } },
    async (req) => hs.installs.autoSends(principalOf(req).tenant, req.params.portal_id, req.query),
  );
}
