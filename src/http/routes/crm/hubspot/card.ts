import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { publicMessage } from '../../../present/messages.js';
import { hubspotContactCard } from '../../../../contract/hubspot-card.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';

export function hubspotContactCardRoute(crm: TypedApp, hs: HubSpotIntegration) {
  route(crm, hubspotContactCard, async (req) => {
    const card = await hs.crm.card(req.query);
    return { ok: true as const, ...card, messages: card.messages.map(publicMessage), trace_id: req.id };
  });
}
