import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { SimulatedLineParams } from './admin-simulator.js';
import { Reaction } from './messages-react.js';

export const SimulateInboundRequest = Type.Object(
  {
    from: Type.String({ minLength: 1, maxLength: 320, description: 'the sender: an E.164 number or email handle (else 1003)' }),
    text: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000, description: 'a text message (or give parts)' })),
    parts: Type.Optional(
      Type.Array(
        Type.Object(
          {
            type: Type.Enum(['text', 'media'], { type: 'string' }),
            value: Type.Optional(Type.String({ description: 'text' })),
            filename: Type.Optional(Type.String()),
            mime_type: Type.Optional(Type.String()),
            content_base64: Type.Optional(Type.String({ description: 'media: the bytes' })),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 10 },
      ),
    ),
    chat: Type.Optional(
      Type.Object(
        { chat_key: Type.String({ minLength: 1 }), handles: Type.Array(Type.String(), { minItems: 1 }), display_name: Type.Optional(Type.String()) },
        { additionalProperties: false, description: 'a group chat: its provider key and members' },
      ),
    ),
    guid: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'the provider guid; the same guid again is the same message' })),
    reaction: Type.Optional(
      Type.Object(
        {
          message_id: Type.String({ minLength: 1, maxLength: 100, description: 'the message (msg_…) of this line the tapback is on (else 2003)' }),
          reaction: Reaction,
          remove: Type.Optional(Type.Boolean({ default: false, description: 'true takes the tapback back' })),
        },
        { additionalProperties: false, description: 'instead of a message: `from` puts a tapback on a message (no text or parts with it: 1011)' },
      ),
    ),
    edit: Type.Optional(
      Type.Object(
        {
          message_id: Type.String({ minLength: 1, maxLength: 100, description: 'a message (msg_…) `from` sent this line (else 2003)' }),
          text: Type.String({ minLength: 1, maxLength: 10_000, description: 'its new text' }),
        },
        {
          additionalProperties: false,
          description:
            'instead of a message: `from` edits a message they sent, as Messages lets its sender within 15 minutes (later: 1012; no text, parts or reaction with it: 1011). A subscription to message.edited hears it',
        },
      ),
    ),
  },
  { additionalProperties: false, description: 'text, parts, a reaction or an edit (none: 1001)' },
);
export type SimulateInboundRequest = Static<typeof SimulateInboundRequest>;

export const SimulateInboundResponse = Type.Object({ ok: Type.Literal(true), guid: Type.String() });
export type SimulateInboundResponse = Static<typeof SimulateInboundResponse>;

export const adminSimulatorInbound = operation({
  operationId: 'adminSimulatorInbound',
  method: 'POST',
  path: '/admin/v1/lines/{id}/simulate/inbound',
  summary: 'Deliver an inbound iMessage to the line as if a person sent it',
  description: 'Accepted once recorded (or recognised as a guid already recorded): the event follows as for any inbound message.',
  tags: ['admin'],
  auth: 'admin',
  params: SimulatedLineParams,
  body: SimulateInboundRequest,
  responses: { 202: SimulateInboundResponse },
  errors: [2011, 1011, 1003, 1001, 2003],
});
