import { Type, type Static } from 'typebox';
import { PortalParams } from './hubspot-common.js';
import { operation } from './operation.js';

const heldState = (o: { description?: string } = {}) => Type.Union([Type.Literal('held'), Type.Literal('completing'), Type.Literal('completed'), Type.Literal('abandoned')], o);

export const ListHubSpotHeldActionsParams = PortalParams;
export const ListHubSpotHeldActionsQuery = Type.Object(
  {
    state: Type.Optional(heldState()),
    cursor: Type.Optional(Type.String({ maxLength: 100 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  },
  { additionalProperties: false },
);
export type ListHubSpotHeldActionsQuery = Static<typeof ListHubSpotHeldActionsQuery>;
export const HubSpotHeldActionView = Type.Object({
  callback_id: Type.String(),
  object_id: Type.String(),
  state: heldState({
    description: 'held: waiting for the sending window or a free line; completing: sent or refused, HubSpot not yet told; completed: HubSpot told; abandoned: given up without telling HubSpot (see last_error)',
  }),
  reason: Type.Union([Type.String(), Type.Null()], {
    description:
      "held: the time limit it waits for, as the workflow action's BLOCK answer names it: 'outside sending window' (sent when the window opens) or 'lines saturated' (every line at its first-touch limit: sent when a line is free; more lines would help). The latest one when a later try was held again. Null once it is no longer held, and for actions held before this was recorded.",
  }),
  next_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'held or completing: the next try' }),
  hold_expires_at: Type.String({ format: 'date-time', description: "the end of HubSpot's hold (hs_expiration_duration)" }),
  outcome: Type.Union([
    Type.Object({ state: Type.Union([Type.Literal('SUCCESS'), Type.Literal('FAIL_CONTINUE')]), error: Type.Union([Type.String(), Type.Null()]) }, { description: 'what HubSpot is (or was to be) told' }),
    Type.Null(),
  ]),
  message_id: Type.Union([Type.String(), Type.Null()]),
  chat_id: Type.Union([Type.String(), Type.Null()], { description: 'the chat of message_id (its conversation); null when no message was sent' }),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  completed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export const ListHubSpotHeldActionsResponse = Type.Object({
  held_actions: Type.Array(HubSpotHeldActionView),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
export type ListHubSpotHeldActionsResponse = Static<typeof ListHubSpotHeldActionsResponse>;

export const listHubSpotHeldActions = operation({
  operationId: 'listHubSpotHeldActions',
  method: 'GET',
  path: '/api/v1/integrations/hubspot/{portal_id}/held-actions',
  summary: "A portal's workflow actions held for time, newest first",
  description: 'Workflow actions refused only because of time (outside the sending window, every line at its first-touch limit), answered BLOCK and sent later. Page with next_cursor until it is null. 2011 (404): no install of this project for the portal, or the HubSpot integration is not configured on this server.',
  tags: ['hubspot'],
  auth: 'tenant',
  params: ListHubSpotHeldActionsParams,
  query: ListHubSpotHeldActionsQuery,
  responses: { 200: ListHubSpotHeldActionsResponse },
  errors: [2011],
});
