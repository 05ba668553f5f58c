import { Type, type Static } from 'typebox';
import { HubSpotInstallView } from './hubspot-common.js';
import { operation } from './operation.js';


const Iso = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

/** Reply push is per project: its breaker, the replies waiting and the last push. */
export const ReplyPushBreaker = Type.Object(
  {
    state: Type.Union([Type.Literal('closed'), Type.Literal('open')]),
    consecutive_failures: Type.Integer(),
    opened_at: Iso,
    last_error: Type.Union([Type.String(), Type.Null()]),
  },
  { description: 'five consecutive failed reply pushes open it; while open one probe push per run; a success closes it' },
);

export const ListHubSpotInstallsResponse = Type.Object({
  installs: Type.Array(HubSpotInstallView),
  breaker: ReplyPushBreaker,
  push_backlog: Type.Integer({ description: 'replies from linked contacts not pushed to HubSpot yet' }),
  last_push_at: Iso,
});
export type ListHubSpotInstallsResponse = Static<typeof ListHubSpotInstallsResponse>;

export const listHubSpotInstalls = operation({
  operationId: 'listHubSpotInstalls',
  method: 'GET',
  path: '/api/v1/integrations/hubspot',
  summary: "The project's HubSpot installs (never their tokens) and its reply-push state",
  description: '2011 (404): the HubSpot integration is not configured on this server.',
  tags: ['hubspot'],
  auth: 'tenant',
  responses: { 200: ListHubSpotInstallsResponse },
  errors: [2011],
});
