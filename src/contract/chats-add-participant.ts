import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { Handle } from './common.js';
import { ChatParams } from './chat.js';

const Address = (description: string) => Handle(description, { blankIsMissing: true });

/**
 * `address` or its alias `handle`: checked by the route (a missing one is the spec's 1001, two
 * different ones 1002), not as oneOf, which would answer both with 1002.
 */
export const AddParticipantRequest = Type.Object(
  {
    address: Type.Optional(Address('E.164 number or Apple ID email (anything else is 1003); required (1001, as is an empty one)')),
    handle: Type.Optional(Address('alias of address: give one of them (two different values are 1002)')),
  },
  { additionalProperties: false },
);
export type AddParticipantRequest = Static<typeof AddParticipantRequest>;

export const AddParticipantResponse = Type.Object({
  chat_id: Type.String(),
  added: Type.String({ description: 'the address, normalized' }),
  participants: Type.Array(Type.String()),
});
export type AddParticipantResponse = Static<typeof AddParticipantResponse>;

export const addChatParticipant = operation({
  operationId: 'addChatParticipant',
  method: 'POST',
  path: '/api/v1/chats/{id}/participants',
  summary: 'Add a participant to a group (adding twice is a no-op)',
  tags: ['chats'],
  auth: 'tenant',
  params: ChatParams,
  body: AddParticipantRequest,
  responses: { 200: AddParticipantResponse },
  // 1006: a direct chat; 4099/422: the group has no chat key or line of this project.
  errors: [1001, 1003, 1006, 2002, 3002, 4001, 4099, { code: 4099, status: 422 }],
  rateLimited: true,
});
