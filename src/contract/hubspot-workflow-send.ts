import { Type, type Static } from 'typebox';

export const operationId = 'hubspotWorkflowSend';
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
/** HubSpot reads outputFields; the rest is ours (ok, ids, or the failure). */
export const HubSpotWorkflowSendResponse = Type.Object({
  outputFields: Type.Object({
    hs_execution_state: Type.Union([Type.Literal('SUCCESS'), Type.Literal('FAIL_CONTINUE')]),
    message_id: Type.Optional(Type.String()),
    error: Type.Optional(Type.String()),
  }),
  ok: Type.Boolean(),
  duplicate: Type.Optional(Type.Boolean()),
  message_id: Type.Optional(Type.String()),
  lead_id: Type.Optional(Type.String()),
  chat_id: Type.Optional(Type.String()),
  lead_created: Type.Optional(Type.Boolean()),
  phone_line_id: Type.Optional(Type.String()),
  phone: Type.Optional(Type.String()),
  error: Type.Optional(Type.String()),
  code: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
  message: Type.Optional(Type.String()),
  retryable: Type.Optional(Type.Boolean()),
  retry_after: Type.Optional(Type.Integer()),
  trace_id: Type.String(),
});
export type HubSpotWorkflowSendResponse = Static<typeof HubSpotWorkflowSendResponse>;
