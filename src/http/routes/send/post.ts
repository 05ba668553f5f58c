import { Type, type Static } from 'typebox';
import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { idempotencyKeyOf } from '../../idempotency-key.js';
import type { Messaging } from '../../../domain/messaging/index.js';

const AttachmentRef = Type.Union([
  Type.String({ minLength: 1, maxLength: 200, description: 'an uploaded attachment id (att_…)' }),
  Type.Object(
    { attachment_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), url: Type.Optional(Type.String()) },
    { additionalProperties: false },
  ),
]);

export const SendBody = Type.Object(
  {
    phone: Type.String({ minLength: 1, maxLength: 320, description: 'E.164 number or Apple ID email (lowercased)' }),
    body: Type.Optional(Type.String({ minLength: 1, description: 'text; 10,000 characters at most' })),
    attachments: Type.Optional(Type.Array(AttachmentRef, { description: 'with body, 10 parts at most in all (1006)' })),
    effect: Type.Optional(Type.String()),
    rich_link: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Object({ url: Type.String({ minLength: 1 }) }, { additionalProperties: false })])),
    voice_note: Type.Optional(Type.Object({ voice_note_id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false })),
    phone_line_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    idempotency_key: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    service: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const SendResponse = Type.Object({
  status: Type.Literal('sent'),
  message_id: Type.String(),
  lead_id: Type.String(),
  chat_id: Type.String(),
  lead_created: Type.Boolean(),
  convo_id: Type.String(),
  phone_line_id: Type.String(),
});

export function postSend(app: TypedApp, deps: { messaging: Messaging }) {
  app.post(
    '/api/v1/send',
    {
      config: { errorShape: 'send', rateLimited: true },
      bodyLimit: 256 * 1024,
      schema: {
        tags: ['messages'],
        summary: 'Send a text, media, rich link or staged voice note to one recipient',
        description: 'Failures use the flat shape {status:"failed", error, code, reason, retryable, lead_id, chat_id, lead_created, convo_id, phone_line_id}.',
        body: SendBody,
        response: { 200: SendResponse },
      },
    },
    async (req, reply) => {
      const { tenant } = principalOf(req);
      const key = idempotencyKeyOf(req, req.body.idempotency_key);
      const outcome = await deps.messaging.send.send(tenant, key === req.body.idempotency_key ? req.body : { ...req.body, idempotency_key: key });
      return reply.status(outcome.status as 200).send(outcome.body as Static<typeof SendResponse>);
    },
  );
}
