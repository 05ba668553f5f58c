import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { hubspotWebhook } from '../../../../contract/hubspot-webhook.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';

export function hubspotWebhookRoute(crm: TypedApp, hs: HubSpotIntegration) {
  route(crm, hubspotWebhook, async (req) => ({ ok: true as const, ...(await hs.autoSends.record(req.body)), trace_id: req.id }), { bodyLimit: 1024 * 1024 });
}
