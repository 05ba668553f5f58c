import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { webhookReceiptView } from '../../../present/hubspot-crm.js';
import { hubspotWebhook } from '../../../../contract/hubspot-webhook.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';

export function hubspotWebhookRoute(crm: TypedApp, hs: HubSpotIntegration) {
  route(crm, hubspotWebhook, async (req) => webhookReceiptView(await hs.autoSends.record(req.body), req.id), { bodyLimit: 1024 * 1024 });
}
