/** The HubSpot-facing routes: contact card, card send, workflow action, contact-creation webhook. */
import { realNowMs } from '../../../../clock.js';
import { DomainError } from '../../../../errors/registry.js';
import { publicMessage } from '../../../present/messages.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';
import type { TypedApp } from '../../../typed.js';
import * as card from '../../../../contract/hubspot-card.js';
import * as cardSend from '../../../../contract/hubspot-card-send.js';
import * as workflow from '../../../../contract/hubspot-workflow-send.js';
import * as webhook from '../../../../contract/hubspot-webhook.js';
import { crmContext, signedAt, workflowFailure, WORKFLOW_PATH } from './context.js';

const tags = ['hubspot'];

export async function hubspotCrmRoutes(app: TypedApp, hs: HubSpotIntegration) {
  await crmContext(app, hs, (crm) => {
    crm.get(
      '/crm/hubspot/card',
      { schema: { tags, operationId: card.operationId, summary: 'Contact card: 1 HubSpot call', querystring: card.HubSpotCardQuery, response: { 200: card.HubSpotCardResponse } } },
      async (req) => {
        const card = await hs.crm.card(req.query);
        return { ok: true as const, ...card, messages: card.messages.map(publicMessage), trace_id: req.id };
      },
    );

    crm.post(
      '/crm/hubspot/card/send',
      { schema: { tags, operationId: cardSend.operationId, summary: 'Send from the contact card: 1 HubSpot call; one send per contact and second', body: cardSend.HubSpotCardSendBody, response: { 200: cardSend.HubSpotCardSendResponse } } },
      async (req) => {
        const second = Math.floor((signedAt.get(req) ?? realNowMs()) / 1000);
        const b = req.body;
        const { result, duplicate } = await hs.crm.cardSend({ portalId: String(b.portalId), objectId: String(b.objectId), text: b.text, phone_line_id: b.phone_line_id }, second);
        return { ok: true as const, ...(duplicate && { duplicate: true }), ...(result as Omit<cardSend.HubSpotCardSendResponse, 'ok' | 'trace_id'>), trace_id: req.id };
      },
    );

    crm.post(
      WORKFLOW_PATH,
      { schema: { tags, operationId: workflow.operationId, summary: 'Workflow custom action: 0 HubSpot calls; idempotent on callbackId', body: workflow.HubSpotWorkflowSendBody, response: { 200: workflow.HubSpotWorkflowSendResponse } } },
      async (req) => {
        try {
          const { result, duplicate } = await hs.crm.workflowSend(req.body);
          const sent = result as { message_id: string };
          return { outputFields: { hs_execution_state: 'SUCCESS' as const, message_id: sent.message_id }, ok: true, ...(duplicate && { duplicate: true }), ...result, trace_id: req.id };
        } catch (err) {
          if (err instanceof DomainError) return workflowFailure(err, req.id);
          throw err;
        }
      },
    );

    crm.post(
      '/crm/hubspot/webhook',
      { bodyLimit: 1024 * 1024, schema: { tags, operationId: webhook.operationId, summary: 'Contact-creation webhook: recorded now, sent in the background (1 HubSpot call each)', body: webhook.HubSpotWebhookBody, response: { 200: webhook.HubSpotWebhookResponse } } },
      async (req) => ({ ok: true as const, ...(await hs.autoSends.record(req.body)), trace_id: req.id }),
    );
  });
}
