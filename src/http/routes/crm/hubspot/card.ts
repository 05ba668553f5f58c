import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { contactCardView } from '../../../present/hubspot-crm.js';
import { hubspotContactCard } from '../../../../contract/hubspot-card.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';

export function hubspotContactCardRoute(crm: TypedApp, hs: HubSpotIntegration) {
  route(crm, hubspotContactCard, async (req) => contactCardView(await hs.crm.card(req.query), req.id));
}
