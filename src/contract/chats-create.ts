import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { Handle } from './common.js';
import { Chat, Parts } from './chat.js';
import { Message } from './message.js';
import { Effect, IdempotencyHeaders, IdempotencyKey, Service } from './messages-send.js';

const Recipient = Handle('E.164 number or Apple ID email; anything else is 1003', { minLength: 1 });

export const CreateChatRequest = Type.Object(
  {
    to: Type.Union([Recipient, Type.Array(Recipient, { minItems: 1, maxItems: 32 })], {
      description: 'one handle: the direct chat with that lead; several: a new group (ch_…)',
    }),
    message: Type.Object(
      {
        parts: Parts,
        parallel_attachments: Type.Optional(Type.Boolean({ description: 'deliver 2+ image parts as one group' })),
        effect: Type.Optional(Effect),
      },
      { additionalProperties: false, description: 'a group is created with exactly one text part (1002) and no effect (4099)' },
    ),
    phone_line_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "one of the project's lines (else 2006)" })),
    display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    idempotency_key: Type.Optional(IdempotencyKey),
    service: Type.Optional(Service),
  },
  { additionalProperties: false },
);
export type CreateChatRequest = Static<typeof CreateChatRequest>;

export const CreateChatResponse = Type.Object({ chat: Chat, message: Message }, { description: 'the chat and the last message sent into it' });
export type CreateChatResponse = Static<typeof CreateChatResponse>;

export const createChat = operation({
  operationId: 'createChat',
  method: 'POST',
  path: '/api/v1/chats',
  summary: 'Start a chat with its first message: one handle → the direct chat, several → a group (ch_…)',
  description: '201 when this request created the chat; 200 when `to` names a contact whose direct chat exists (the message goes into it).',
  tags: ['chats'],
  auth: 'tenant',
  headers: IdempotencyHeaders,
  body: CreateChatRequest,
  responses: { 200: CreateChatResponse, 201: CreateChatResponse },
  errors: [
    1001,
    1003,
    1005,
    1006,
    1008,
    1009,
    1010,
    1011,
    1012,
    'idempotency_collision',
    2006,
    3002,
    4001,
    4002,
    4098,
    4099,
    { code: 4099, status: 422 },
    5001,
    5004,
  ],
  rateLimited: true,
});
