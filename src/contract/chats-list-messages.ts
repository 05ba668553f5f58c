import { Type, type Static } from 'typebox';
import { Nullable } from './common.js';
import { operation } from './operation.js';
import { ChatParams } from './chat.js';
import { MessageWithReactions } from './message.js';

export const ListChatMessagesQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the previous page (else 1002)' })),
  },
  { additionalProperties: false },
);

export const ListChatMessagesResponse = Type.Object({
  messages: Type.Array(MessageWithReactions, { description: 'newest first, inbound and outbound' }),
  next_cursor: Nullable(Type.String({ description: 'null on the last page' })),
});
export type ListChatMessagesResponse = Static<typeof ListChatMessagesResponse>;

export const listChatMessages = operation({
  operationId: 'listChatMessages',
  method: 'GET',
  path: '/api/v1/chats/{id}/messages',
  summary: 'Messages of a chat, newest first, inbound and outbound',
  tags: ['chats'],
  auth: 'tenant',
  params: ChatParams,
  query: ListChatMessagesQuery,
  responses: { 200: ListChatMessagesResponse },
  errors: [2002],
});
