import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { Chat, ChatParams } from './chat.js';

export const LeaveChatResponse = Type.Object({ chat: Chat });
export type LeaveChatResponse = Static<typeof LeaveChatResponse>;

export const leaveChat = operation({
  operationId: 'leaveChat',
  method: 'POST',
  path: '/api/v1/chats/{id}/leave',
  summary: "The group's line leaves the group",
  description:
    'The chat keeps its history and shows left_at; it takes no more messages or changes (4099/422). Leaving again is a no-op. ' +
    '1006 a direct chat; 2002 no such chat; 4001 rejected downstream; 4099/422 the group has no chat key or line of this project.',
  tags: ['chats'],
  auth: 'tenant',
  params: ChatParams,
  responses: { 200: LeaveChatResponse },
  errors: [1006, 2002, 3002, 4001, 4099, { code: 4099, status: 422 }],
  rateLimited: true,
});
