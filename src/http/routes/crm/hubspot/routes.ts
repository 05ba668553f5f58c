/** The HubSpot-facing routes: contact card, card send, workflow action, contact-creation webhook. */
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';
import type { TypedApp } from '../../../typed.js';
import { crmContext } from './context.js';
import { hubspotContactCardRoute } from './card.js';
import { hubspotCardSendRoute } from './card-send.js';
import { hubspotWorkflowSendRoute } from './workflow-send.js';
import { hubspotWebhookRoute } from './webhook.js';

export async function hubspotCrmRoutes(app: TypedApp, hs: HubSpotIntegration) {
  await crmContext(app, hs, (crm) => {
    hubspotContactCardRoute(crm, hs);
    hubspotCardSendRoute(crm, hs);
    hubspotWorkflowSendRoute(crm, hs);
    hubspotWebhookRoute(crm, hs);
  });
}
