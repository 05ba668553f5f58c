import { Type } from 'typebox';
import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import type { Messaging } from '../../../domain/messaging/index.js';
import { MessageView } from '../chats/routes.js';
import { TAPBACKS } from '../../../drivers/types.js';

const Params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export function messageRoutes(app: TypedApp, deps: { messaging: Messaging }) {
  const tags = ['messages'];

  app.get(
    '/api/v1/messages/:id',
    {
      schema: {
        tags,
        summary: 'Message status: sent | delivered | read | failed, with delivered_at and read_at',
        params: Params,
        response: { 200: Type.Object({ message: MessageView }) },
      },
    },
    async (req) => deps.messaging.ops.get(principalOf(req).tenant, req.params.id),
  );

  app.post(
    '/api/v1/messages/:id/edit',
    {
      config: { rateLimited: true, missingFieldCode: 1002 },
      schema: {
        tags,
        summary: 'Edit an outbound message within 15 minutes of sending (not idempotent)',
        params: Params,
        body: Type.Object(
          { new_text: Type.String({ minLength: 1, description: '10,000 characters at most (1009)' }), edited_part_index: Type.Optional(Type.Integer({ minimum: 0, default: 0 })) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            status: Type.Literal('edited'),
            message_id: Type.String(),
            new_text: Type.String(),
            date_edited: Type.String({ format: 'date-time' }),
            edit_history: Type.Null(),
          }),
        },
      },
    },
    async (req) => deps.messaging.ops.edit(principalOf(req).tenant, req.params.id, req.body.new_text, req.body.edited_part_index ?? 0),
  );

  app.post(
    '/api/v1/messages/:id/react',
    {
      config: { rateLimited: true },
      schema: {
        tags,
        summary: 'Add or remove a tapback on an inbound or outbound message',
        params: Params,
        body: Type.Object(
          {
            reaction: Type.String({ description: TAPBACKS.join(' | ') }),
            remove: Type.Optional(Type.Boolean({ default: false })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            status: Type.Union([Type.Literal('reacted'), Type.Literal('removed')]),
            message_id: Type.String(),
            reaction: Type.String(),
            reacted_at: Type.String({ format: 'date-time' }),
          }),
        },
      },
    },
    async (req) => deps.messaging.ops.react(principalOf(req).tenant, req.params.id, req.body.reaction, req.body.remove ?? false),
  );
}
