import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { Chat, ChatParams } from './chat.js';

export const UpdateChatRequest = Type.Object(
  {
    display_name: Type.String({ minLength: 1, maxLength: 200, description: "the group's new name, as its members see it (trimmed; empty is 1002)" }),
  },
  { additionalProperties: false },
);
export type UpdateChatRequest = Static<typeof UpdateChatRequest>;

export const UpdateChatResponse = Type.Object({ chat: Chat });
export type UpdateChatResponse = Static<typeof UpdateChatResponse>;

export const updateChat = operation({
  operationId: 'updateChat',
  method: 'PATCH',
  path: '/api/v1/chats/{id}',
  summary: 'Rename a group (display_name)',
  description:
    "The group's line renames it on the device; the chat's display_name changes once it has (the same name again is a no-op). " +
    '1006 a direct chat; 2002 no such chat; 4001 rejected downstream; 4099/422 the group has no chat key or line of this project, or the line left it.',
  tags: ['chats'],
  auth: 'tenant',
  params: ChatParams,
  body: UpdateChatRequest,
  responses: { 200: UpdateChatResponse },
  errors: [1006, 2002, 3002, 4001, 4099, { code: 4099, status: 422 }],
  rateLimited: true,
});
