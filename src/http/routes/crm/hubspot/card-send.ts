import { realNowMs } from '../../../../clock.js';
import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { hubspotCardSend } from '../../../../contract/hubspot-card-send.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';
import { cardSentView } from '../../../present/hubspot-crm.js';
import { signedAt } from './context.js';

export function hubspotCardSendRoute(crm: TypedApp, hs: HubSpotIntegration) {
  route(crm, hubspotCardSend, async (req) => {
    // One send per contact and second of HubSpot's signed timestamp (a double click).
    const second = Math.floor((signedAt.get(req) ?? realNowMs()) / 1000);
    const b = req.body;
    const q = req.query;
    const sent = await hs.crm.cardSend({ portalId: q.portalId, appId: q.appId, cardPortalId: String(b.portalId), objectId: String(b.objectId), text: b.text, phoneLineId: b.phone_line_id }, second);
    return cardSentView(sent, req.id);
  });
}
