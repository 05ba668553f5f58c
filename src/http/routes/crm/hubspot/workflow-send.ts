import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { hubspotWorkflowSend, type HubSpotWorkflowSendResponse } from '../../../../contract/hubspot-workflow-send.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';

/** A failure is answered by the CRM context's error handler, with FAIL_CONTINUE (the operation's errorShape 'crm-workflow'). */
export function hubspotWorkflowSendRoute(crm: TypedApp, hs: HubSpotIntegration) {
  route(crm, hubspotWorkflowSend, async (req) => {
    const { result, duplicate } = await hs.crm.workflowSend(req.body);
    const sent = result as Omit<HubSpotWorkflowSendResponse, 'ok' | 'trace_id' | 'outputFields'>;
    return { outputFields: { hs_execution_state: 'SUCCESS' as const, message_id: sent.message_id }, ok: true as const, ...(duplicate && { duplicate: true }), ...sent, trace_id: req.id };
  });
}
