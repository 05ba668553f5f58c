import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from './common.js';
import { operation } from './operation.js';
import { ChatParams, Parts } from './chat.js';
import { MessageStatus } from './message.js';

export const SendChatMessageRequest = Type.Object(
  {
    message: Type.Object({ parts: Parts }, { additionalProperties: false }),
    parallel_attachments: Type.Optional(Type.Boolean({ description: 'deliver the 2+ media parts (images only) as one group' })),
  },
  { additionalProperties: false },
);
export type SendChatMessageRequest = Static<typeof SendChatMessageRequest>;

export const SendChatMessageResponse = Type.Object({
  message: Type.Object(
    {
      id: Type.String(),
      chat_id: Type.String(),
      status: MessageStatus,
      delivered_at: Nullable(DateTime()),
      part_message_ids: Type.Array(Type.String(), {
        description: "each part's message id, in the order of parts[]: every part is a bubble of its own (grouped media one for all), so edit or react to a part's bubble by its id",
      }),
    },
    { description: 'the last message sent (one per text, link or media part; grouped media is one)' },
  ),
});
export type SendChatMessageResponse = Static<typeof SendChatMessageResponse>;

export const sendChatMessage = operation({
  operationId: 'sendChatMessage',
  method: 'POST',
  path: '/api/v1/chats/{id}/messages',
  summary: 'Send parts into a chat; parallel_attachments groups 2+ images',
  description: 'A missing field is 1003 on this route (spec).',
  tags: ['chats'],
  auth: 'tenant',
  params: ChatParams,
  body: SendChatMessageRequest,
  responses: { 200: SendChatMessageResponse },
  errors: [1003, 1005, 1006, 1008, 1009, 1011, 2002, 3002, 4001, 4002, 4099, { code: 4099, status: 422 }, 5001, 5004],
  // decisions.md: a missing field is 1003 on this route (the spec's rule 8).
  missingFieldCode: 1003,
  rateLimited: true,
});
