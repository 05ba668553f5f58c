import { Type, type Static } from 'typebox';
import { PortalParams } from './hubspot-common.js';
import { operation } from './operation.js';

export const ListHubSpotAutoSendsParams = PortalParams;
export const ListHubSpotAutoSendsQuery = Type.Object(
  {
    status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('sent'), Type.Literal('failed'), Type.Literal('skipped')])),
    cursor: Type.Optional(Type.String({ maxLength: 100 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  },
  { additionalProperties: false },
);
export type ListHubSpotAutoSendsQuery = Static<typeof ListHubSpotAutoSendsQuery>;
export const HubSpotAutoSendView = Type.Object({
  object_id: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('sent'), Type.Literal('failed'), Type.Literal('skipped')]),
  reason: Type.Union([Type.String(), Type.Null()]),
  code: Type.Union([Type.Integer(), Type.Null()]),
  message_id: Type.Union([Type.String(), Type.Null()]),
  chat_id: Type.Union([Type.String(), Type.Null()], { description: 'the chat of message_id (its conversation); null when no message was sent' }),
  created_at: Type.String({ format: 'date-time' }),
  waiting: Type.Union([
    Type.Object(
      {
        next_attempt_at: Type.String({ format: 'date-time', description: 'When it is tried again (the sending window opens, a line is free).' }),
        gives_up_at: Type.String({ format: 'date-time', description: 'Still refused then: recorded failed (4002). Seven days after the contact was created.' }),
      },
      { description: 'A pending send refused only for time (outside the sending window, every line at its first-touch limit): it is sent when allowed.' },
    ),
    Type.Null(),
  ]),
});
export const ListHubSpotAutoSendsResponse = Type.Object({
  auto_sends: Type.Array(HubSpotAutoSendView),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
export type ListHubSpotAutoSendsResponse = Static<typeof ListHubSpotAutoSendsResponse>;

export const listHubSpotAutoSends = operation({
  operationId: 'listHubSpotAutoSends',
  method: 'GET',
  path: '/api/v1/integrations/hubspot/{portal_id}/auto-sends',
  summary: "A portal's contact-creation records, newest first",
  description: 'Page with next_cursor until it is null. 2011 (404): no install of this project for the portal, or the HubSpot integration is not configured on this server.',
  tags: ['hubspot'],
  auth: 'tenant',
  params: ListHubSpotAutoSendsParams,
  query: ListHubSpotAutoSendsQuery,
  responses: { 200: ListHubSpotAutoSendsResponse },
  errors: [2011],
});
