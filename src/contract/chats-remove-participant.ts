import { Type, type Static } from 'typebox';
import { operation } from './operation.js';

export const RemoveParticipantParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100, description: 'the group chat (ch_…)' }),
  address: Type.String({ minLength: 1, maxLength: 320, description: 'E.164 number or Apple ID email, URL-encoded (anything else is 1003)' }),
});
export type RemoveParticipantParams = Static<typeof RemoveParticipantParams>;

export const RemoveParticipantResponse = Type.Object({
  chat_id: Type.String(),
  removed: Type.String({ description: 'the address, normalized' }),
  participants: Type.Array(Type.String(), { description: 'the roster after the removal' }),
});
export type RemoveParticipantResponse = Static<typeof RemoveParticipantResponse>;

export const removeChatParticipant = operation({
  operationId: 'removeChatParticipant',
  method: 'DELETE',
  path: '/api/v1/chats/{id}/participants/{address}',
  summary: 'Remove a participant from a group (removing one who is not in it is a no-op)',
  description:
    "The group's line does it on the device; the chat's handles change once it has. " +
    'Errors as for adding: 1006 a direct chat; 2002 no such chat; 4001 rejected downstream; 4099/422 the group has no chat key or line of this project, or the line left it.',
  tags: ['chats'],
  auth: 'tenant',
  params: RemoveParticipantParams,
  responses: { 200: RemoveParticipantResponse },
  errors: [1003, 1006, 2002, 3002, 4001, 4099, { code: 4099, status: 422 }],
  rateLimited: true,
});
