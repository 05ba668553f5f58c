import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { CrmSent } from './hubspot-common.js';

/** HubSpot's custom workflow action request. */
export const HubSpotWorkflowSendBody = Type.Object({
  callbackId: Type.String({ minLength: 1, maxLength: 200 }),
  origin: Type.Object({ portalId: Type.Union([Type.Integer(), Type.String()]), actionDefinitionId: Type.Optional(Type.Unknown()), actionDefinitionVersion: Type.Optional(Type.Unknown()) }),
  context: Type.Optional(Type.Unknown()),
  object: Type.Object({
    objectId: Type.Union([Type.Integer(), Type.String()]),
    objectType: Type.Optional(Type.String()),
    properties: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]))),
  }),
  inputFields: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type HubSpotWorkflowSendBody = Static<typeof HubSpotWorkflowSendBody>;
/** HubSpot reads outputFields; the rest is ours (the failure: CrmWorkflowFailure, see contract/errors.ts). */
export const HubSpotWorkflowSent = Type.Object(
  {
    outputFields: Type.Object({ hs_execution_state: Type.Literal('SUCCESS'), message_id: Type.String() }),
    ...CrmSent,
  },
  { description: 'Sent: SUCCESS' },
);
/** Held for time: HubSpot keeps the action BLOCKed until we complete it (or the duration ends). */
export const HubSpotWorkflowHeld = Type.Object(
  {
    outputFields: Type.Object({
      hs_execution_state: Type.Literal('BLOCK'),
      hs_expiration_duration: Type.String({ description: 'ISO 8601 duration HubSpot keeps the action blocked (e.g. P1DT9H30M)' }),
    }),
    ok: Type.Literal(true),
    held: Type.Literal(true),
    duplicate: Type.Optional(Type.Boolean({ description: 'a retry of an action already held' })),
    reason: Type.Union([Type.Literal('outside sending window'), Type.Literal('lines saturated')], { description: 'what holds it' }),
    next_attempt_at: Type.String({ format: 'date-time', description: 'when the send is tried next' }),
    hold_expires_at: Type.String({ format: 'date-time', description: 'not sent an hour before this, the action completes FAIL_CONTINUE ("hold expired")' }),
    trace_id: Type.String(),
  },
  { description: 'Held: BLOCK; sent when the window opens or a line is free, then completed at HubSpot with SUCCESS or FAIL_CONTINUE' },
);
export const HubSpotWorkflowSendResponse = Type.Union([HubSpotWorkflowSent, HubSpotWorkflowHeld]);
export type HubSpotWorkflowSendResponse = Static<typeof HubSpotWorkflowSendResponse>;

export const hubspotWorkflowSend = operation({
  operationId: 'hubspotWorkflowSend',
  method: 'POST',
  path: '/crm/hubspot/workflow/send',
  summary: 'Workflow custom action: 0 HubSpot calls; idempotent on callbackId',
  description: 'HubSpot reads outputFields: SUCCESS, or FAIL_CONTINUE with the failure (the workflow goes on), or BLOCK when the send is refused only for time (outside the sending window, or every line at its first-touch gap or daily limit): the action is held, sent when it can be, and completed at HubSpot (POST /automation/v4/actions/callbacks/{callbackId}/complete) with SUCCESS or FAIL_CONTINUE and the same outputFields; the project daily cap is an immediate FAIL_CONTINUE ("daily cap reached"). A repeated callbackId, at any later time, answers the first result: a success with duplicate:true (BLOCK again while held), a failure with replayed:true. Signature v3, or v2. Signed by HubSpot with the app\'s client secret: a missing, wrong or stale signature is 401; HubSpot\'s retry of an action still being processed (1012) is 429 with Retry-After, and an unexpected failure of ours (3001) is 503, so HubSpot retries the action (on 429 and 5xx, not on 200) and its callbackId answers the outcome; every other failure is HTTP 200 with ok:false. Without the HubSpot integration configured on this server: 404 2011 in the envelope (before the signature is looked at).',
  tags: ['hubspot'],
  auth: 'hubspot',
  signatures: ['v3', 'v2'],
  body: HubSpotWorkflowSendBody,
  responses: { 200: HubSpotWorkflowSendResponse },
  errors: [1001, 1005, 1009, { code: 1012, status: 429 }, { code: 3001, status: 503 }, 1013, 2006, 3002, 4001, 4002, 4099, 2001, 2005, 2010, { code: 2011, status: 404 }],
  errorShape: 'crm-workflow',
});
