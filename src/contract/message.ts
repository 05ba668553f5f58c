/** The message resource as every operation shows it (send results, chat history, lookups, events). */
import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from './common.js';
import { TAPBACKS } from '../drivers/types.js';

export const MessagePart = Type.Union(
  [
    Type.Object({ type: Type.Literal('text'), value: Type.String() }),
    Type.Object({
      type: Type.Literal('media'),
      attachment_id: Type.String({ description: 'GET /api/v1/attachments/{id}/content serves the bytes' }),
      filename: Type.Optional(Type.String()),
      mime_type: Type.Optional(Type.String()),
      size_bytes: Type.Optional(Type.Integer({ minimum: 0 })),
    }),
    Type.Object({ type: Type.Literal('voice_note'), voice_note_id: Type.String(), duration_seconds: Type.Optional(Type.Number({ minimum: 0 })) }),
    Type.Object({ type: Type.Literal('rich_link'), url: Type.String() }),
  ],
  { description: 'One bubble of a message' },
);
export type MessagePart = Static<typeof MessagePart>;

export const MessageStatus = Type.Enum(['sending', 'sent', 'delivered', 'read', 'edited', 'failed', 'received'], {
  description:
    'outbound: sending → sent → delivered → read (or edited), or failed; inbound: received. ' +
    'A `sent` message becomes `failed` (error_code 4001) when its line reports that Messages could not deliver it after all; ' +
    'its send\'s idempotency key still replays the `sent` answer, so a retry takes a new key. ' +
    '`sending`: recorded and handed to the line, which has not confirmed it yet (a send whose line did not answer in time ' +
    '(503 / 3002) or that a restart interrupted is settled from the line itself once its send window ends: `sent` if it ' +
    'went out, `failed` with error_code 4001 if not); an edit or a tapback on it meanwhile is 409 / 1012. ' +
    'Before retrying an ambiguous send, check the status: retry only on `failed`; on `sending`, look again shortly.',
});

export const Message = Type.Object({
  id: Type.String({ description: 'msg_…' }),
  chat_id: Type.String(),
  direction: Type.Enum(['outbound', 'inbound']),
  status: MessageStatus,
  parts: Type.Array(MessagePart),
  effect: Nullable(Type.String()),
  sender_handle: Nullable(Type.String()),
  phone_line_id: Nullable(Type.String()),
  sent_at: DateTime(),
  delivered_at: Nullable(DateTime()),
  read_at: Nullable(DateTime()),
  edited_at: Nullable(DateTime()),
  error_code: Type.Optional(Type.Integer({ description: 'why a failed message failed (4001, …)' })),
});
export type Message = Static<typeof Message>;

export const MessageReaction = Type.Object({
  reaction: Type.Enum([...TAPBACKS], { description: 'a tapback' }),
  from: Type.String({ description: "who put it on: the contact's handle, or `me` for the project's own (through the API or on the line's Mac)" }),
  at: DateTime(),
});
export type MessageReaction = Static<typeof MessageReaction>;

/** A message with the tapbacks on it, as a lookup and a chat's history show it. */
export const MessageWithReactions = Type.Object({
  ...Message.properties,
  reactions: Type.Array(MessageReaction, { description: 'the tapbacks on it now, oldest first: one per person (a new one replaces theirs; a removal takes it off)' }),
});
export type MessageWithReactions = Static<typeof MessageWithReactions>;
