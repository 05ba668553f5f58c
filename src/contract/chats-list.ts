import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from './common.js';
import { operation } from './operation.js';
import { Chat } from './chat.js';
import { Message } from './message.js';

export const ChatSummary = Type.Object({
  chat: Chat,
  last_message: Nullable(Message),
  last_activity_at: DateTime('the last message\'s time, else the chat\'s creation'),
});
export type ChatSummary = Static<typeof ChatSummary>;

export const ListChatsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the previous page (else 1002)' })),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: 'only chats with a handle (or group name) containing this, case-insensitive; a phone number may be written with spaces, dashes, dots or brackets' })),
  },
  { additionalProperties: false },
);
export type ListChatsQuery = Static<typeof ListChatsQuery>;

export const ListChatsResponse = Type.Object({
  chats: Type.Array(ChatSummary, { description: 'newest activity first' }),
  next_cursor: Nullable(Type.String({ description: 'null on the last page' })),
});
export type ListChatsResponse = Static<typeof ListChatsResponse>;

export const listChats = operation({
  operationId: 'listChats',
  method: 'GET',
  path: '/api/v1/chats',
  summary: 'The project\'s chats with their last message, newest activity first',
  description:
    'Page with next_cursor until it is null. The pages after the first list the chats as they were when the first page was read (each by its activity and last message up to then), so a chat that gets a message meanwhile is neither skipped nor repeated; what came since shows on a new first page.',
  tags: ['chats'],
  auth: 'tenant',
  query: ListChatsQuery,
  responses: { 200: ListChatsResponse },
  errors: [],
});
