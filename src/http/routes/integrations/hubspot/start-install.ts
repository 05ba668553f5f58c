import type { TypedApp } from '../../../typed.js';
import { principalOf } from '../../../auth.js';
import { route } from '../../../route.js';
import { installStartView } from '../../../present/hubspot-installs.js';
import { startHubSpotInstall } from '../../../../contract/hubspot-start-install.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';

export function startHubSpotInstallRoute(app: TypedApp, hs: HubSpotIntegration) {
  route(app, startHubSpotInstall, async (req, reply) => reply.status(201).send(installStartView(await hs.installs.startInstall(principalOf(req).tenant))));
}
