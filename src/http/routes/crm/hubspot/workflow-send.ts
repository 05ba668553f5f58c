import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { workflowSentView } from '../../../present/hubspot-crm.js';
import { hubspotWorkflowSend } from '../../../../contract/hubspot-workflow-send.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';

/** A failure is answered by the CRM context's error handler, with FAIL_CONTINUE (the operation's errorShape 'crm-workflow'). */
export function hubspotWorkflowSendRoute(crm: TypedApp, hs: HubSpotIntegration) {
  route(crm, hubspotWorkflowSend, async (req) => workflowSentView(await hs.crm.workflowSend(req.body), req.id));
}
