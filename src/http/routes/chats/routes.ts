import { Type, type Static } from 'typebox';
import { ApiError } from '../../../errors/registry.js';
import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { idempotencyKeyOf } from '../../idempotency-key.js';
import type { Messaging } from '../../../domain/messaging/index.js';

const Part = Type.Object(
  {
    type: Type.Union([Type.Literal('text'), Type.Literal('media'), Type.Literal('link'), Type.Literal('rich_link')]),
    value: Type.Optional(Type.String()),
    attachment_id: Type.Optional(Type.String()),
    url: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const Parts = Type.Array(Part, { description: '10 parts at most; no two text parts in a row' });
const ChatParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'lead id (direct) or ch_… (group)' }) });

export const MessageView = Type.Object({
  id: Type.String(),
  chat_id: Type.String(),
  direction: Type.Union([Type.Literal('outbound'), Type.Literal('inbound')]),
  status: Type.String({ description: 'sent | delivered | read | failed (outbound); received (inbound)' }),
  parts: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  effect: Type.Union([Type.String(), Type.Null()]),
  sender_handle: Type.Union([Type.String(), Type.Null()]),
  phone_line_id: Type.Union([Type.String(), Type.Null()]),
  sent_at: Type.String({ format: 'date-time' }),
  delivered_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  read_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  edited_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  error_code: Type.Optional(Type.Integer()),
});

const ChatView = Type.Object({
  id: Type.String(),
  is_group: Type.Boolean(),
  handles: Type.Array(Type.String()),
  phone_line_id: Type.Union([Type.String(), Type.Null()]),
  convo_id: Type.String(),
  display_name: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  lead_id: Type.Optional(Type.String()),
});

const CreatedChat = Type.Object({ chat: ChatView, message: MessageView });

export function chatRoutes(app: TypedApp, deps: { messaging: Messaging }) {
  const tags = ['chats'];

  app.post(
    '/api/v1/chats',
    {
      config: { rateLimited: true },
      schema: {
        tags,
        summary: 'First-touch chat creation: one handle → direct chat, several → group (ch_…)',
        body: Type.Object(
          {
            to: Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: 32 })]),
            message: Type.Object(
              { parts: Parts, parallel_attachments: Type.Optional(Type.Boolean()), effect: Type.Optional(Type.String()) },
              { additionalProperties: false },
            ),
            phone_line_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
            display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            idempotency_key: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
            service: Type.Optional(Type.String()),
          },
          { additionalProperties: false },
        ),
        response: { 200: CreatedChat, 201: CreatedChat },
      },
    },
    async (req, reply) => {
      const outcome = await deps.messaging.chats.create(principalOf(req).tenant, { ...req.body, idempotency_key: idempotencyKeyOf(req, req.body.idempotency_key) });
      return reply.status(outcome.status as 201).send(outcome.body as Static<typeof CreatedChat>);
    },
  );

  app.post(
    '/api/v1/chats/:id/messages',
    {
      config: { rateLimited: true, missingFieldCode: 1003 },
      schema: {
        tags,
        summary: 'Send parts into a chat; parallel_attachments groups 2+ images',
        params: ChatParams,
        body: Type.Object(
          { message: Type.Object({ parts: Parts }, { additionalProperties: false }), parallel_attachments: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            message: Type.Object({
              id: Type.String(),
              chat_id: Type.String(),
              status: Type.String(),
              delivered_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
            }),
          }),
        },
      },
    },
    async (req) => deps.messaging.chats.postMessage(principalOf(req).tenant, req.params.id, req.body),
  );

  app.get(
    '/api/v1/chats/:id/messages',
    {
      schema: {
        tags,
        summary: 'Messages of a chat, newest first, inbound and outbound',
        params: ChatParams,
        querystring: Type.Object(
          { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })), cursor: Type.Optional(Type.String({ maxLength: 200 })) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ messages: Type.Array(MessageView), next_cursor: Type.Union([Type.String(), Type.Null()]) }) },
      },
    },
    async (req) => deps.messaging.chats.listMessages(principalOf(req).tenant, req.params.id, req.query.limit ?? 50, req.query.cursor),
  );

  app.post(
    '/api/v1/chats/:id/participants',
    {
      config: { rateLimited: true },
      schema: {
        tags,
        summary: 'Add a participant to a group (adding twice is a no-op)',
        params: ChatParams,
        body: Type.Object(
          { address: Type.Optional(Type.String({ maxLength: 320 })), handle: Type.Optional(Type.String({ maxLength: 320 })) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ chat_id: Type.String(), added: Type.String(), participants: Type.Array(Type.String()) }) },
      },
    },
    async (req) => {
      const { address: given, handle } = req.body;
      if (given !== undefined && handle !== undefined && given !== handle) {
        throw new ApiError(1002, 'give address or its alias handle, not two different values');
      }
      const address = given ?? handle;
      if (!address) throw new ApiError(1001, 'address is required (handle is accepted as an alias)');
      return deps.messaging.ops.addParticipant(principalOf(req).tenant, req.params.id, address);
    },
  );
}
