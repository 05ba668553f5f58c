import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { ERROR_CODES_KEYWORD, Handle } from './common.js';
import { ALLOWED_EFFECTS, MAX_PARTS, MAX_TEXT_LENGTH } from '../domain/messaging/vocabulary.js';

/**
 * Shared by /send and the chat routes: an enum, so generators type it; an unknown effect is the
 * spec's 4098 with `allowed_effects` (http/validation.ts reads the keyword), not 1002.
 */
export const Effect = Type.String({
  enum: [...ALLOWED_EFFECTS],
  description: 'an iMessage bubble or screen effect (anything else is 4098 with allowed_effects)',
  [ERROR_CODES_KEYWORD]: { enum: 4098 },
});

/** Only iMessage is served; checked by the service (1010), not the schema (1002). */
export const Service = Type.String({ description: 'messaging service: only "imessage" (anything else is 1010)', examples: ['imessage'] });

export const IdempotencyKey = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'replays the recorded answer for six hours; also accepted as the Idempotency-Key header (both must agree)',
});

/**
 * The `Idempotency-Key` header (Stripe style): the body's idempotency_key given as a header,
 * with the same limits. Both at once must be equal (else 1002). Header names are
 * case-insensitive (fastify validates the lowercased name).
 */
export const IdempotencyHeaders = Type.Object({
  'Idempotency-Key': Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'the idempotency key as a header, the same as the body\'s idempotency_key (when both are given they must be equal, else 1002)' }),
  ),
});

const AttachmentRef = Type.Union([
  Type.String({ minLength: 1, maxLength: 200, description: 'an uploaded attachment id (att_…)' }),
  Type.Object(
    {
      attachment_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      url: Type.Optional(Type.String({ description: 'not accepted: upload the file first (1011)' })),
    },
    { additionalProperties: false, description: '{ attachment_id } of an uploaded attachment (exactly that: url or a missing id is 1011)' },
  ),
]);

export const SendRequest = Type.Object(
  {
    phone: Handle('E.164 number (punctuation is removed) or Apple ID email (lowercased); anything else is 1003', {
      minLength: 1,
      examples: ['+14155550100', 'jane@icloud.com'],
    }),
    body: Type.Optional(Type.String({ minLength: 1, description: `text; ${MAX_TEXT_LENGTH.toLocaleString('en-US')} characters (Unicode code points) at most (1009)` })),
    attachments: Type.Optional(Type.Array(AttachmentRef, { description: `with body, ${MAX_PARTS} parts at most in all (1006); not with rich_link` })),
    effect: Type.Optional(Effect),
    rich_link: Type.Optional(
      Type.Union([Type.String({ minLength: 1 }), Type.Object({ url: Type.String({ minLength: 1 }) }, { additionalProperties: false })], {
        description: 'an http(s) URL (else 1002), or { url }: shown as a preview; not in a first message (1005), not with attachments (1002)',
      }),
    ),
    voice_note: Type.Optional(
      Type.Object(
        { voice_note_id: Type.String({ minLength: 1, maxLength: 100, description: 'from POST /api/v1/voice-notes' }) },
        { additionalProperties: false, description: 'exclusive: no body, attachments or effect (1011), no rich_link (4099); needs phone_line_id (1001)' },
      ),
    ),
    phone_line_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "one of the project's lines (else 2006); a voice note's staging line" })),
    idempotency_key: Type.Optional(IdempotencyKey),
    service: Type.Optional(Service),
  },
  {
    additionalProperties: false,
    // Checked by the service, in the spec's order and with its codes, rather than as oneOf here.
    description: 'Give at least one of body, attachments, rich_link or voice_note (1001); a voice note goes alone.',
  },
);
export type SendRequest = Static<typeof SendRequest>;

export const SendResponse = Type.Object({
  status: Type.Literal('sent'),
  message_id: Type.String({ description: 'the last message this send recorded (with attachments: the last attachment\'s)' }),
  message_ids: Type.Array(Type.String(), {
    description: 'every message this send recorded, in order: the body\'s text bubble first, then one message per attachment (each its own bubble, with its own status, receipts and tapbacks); otherwise just message_id',
  }),
  lead_id: Type.String(),
  chat_id: Type.String({ description: 'the direct chat: same value as lead_id' }),
  lead_created: Type.Boolean({ description: 'true when this send created the lead' }),
  convo_id: Type.String(),
  phone_line_id: Type.String({ description: 'the line the message went out on' }),
});
export type SendResponse = Static<typeof SendResponse>;

export const sendMessage = operation({
  operationId: 'sendMessage',
  method: 'POST',
  path: '/api/v1/send',
  summary: 'Send a text, media, rich link or staged voice note to one recipient',
  description:
    'Give at least one of body, attachments, rich_link or voice_note (1001); a voice note goes alone. ' +
    'Failures use the flat shape {status:"failed", error, code, reason, retryable, lead_id, chat_id, lead_created, convo_id, phone_line_id}, ' +
    'with the ids known when the send failed, and message_id once a message was recorded. A repeated idempotency_key answers what the first request answered.',
  tags: ['messages'],
  auth: 'tenant',
  headers: IdempotencyHeaders,
  body: SendRequest,
  responses: { 200: SendResponse },
  errors: [
    1001,
    1003,
    1005,
    1006,
    1009,
    1010,
    { code: 1011, status: 400 },
    1011,
    1012,
    'idempotency_collision',
    2006,
    3002,
    4001,
    4002,
    4098,
    4099,
    5001,
    5004,
  ],
  errorShape: 'send',
  rateLimited: true,
});
