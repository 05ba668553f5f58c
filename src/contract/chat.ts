/** The chat resource and the message parts the chat operations take. */
import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from './common.js';
import { MAX_PARTS, MAX_TEXT_LENGTH } from '../domain/messaging/vocabulary.js';

export const ChatParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'lead id (direct chat) or ch_… (group)' }) });

/**
 * One part of a message to send. One object for every type (not a oneOf per type): a missing
 * field is the spec's 1003 with the part named, which the service checks.
 */
export const PartInput = Type.Object(
  {
    type: Type.Enum(['text', 'media', 'link', 'rich_link']),
    value: Type.Optional(Type.String({ description: `text: required, ${MAX_TEXT_LENGTH.toLocaleString('en-US')} characters (Unicode code points) at most (1009); link: the URL (or give url)` })),
    attachment_id: Type.Optional(Type.String({ description: 'media: required (att_…); not with url (1011)' })),
    url: Type.Optional(Type.String({ description: 'link and rich_link: required' })),
  },
  { additionalProperties: false },
);
export type PartInput = Static<typeof PartInput>;

export const Parts = Type.Array(PartInput, {
  description: `1 to ${MAX_PARTS} parts (more: 1006; none: a missing field, the route's 1001 or 1003), no two text parts in a row (1008); a first message into a new chat carries no URL (1005)`,
});

export const Chat = Type.Object({
  id: Type.String({ description: 'the lead id (direct chat) or ch_… (group)' }),
  is_group: Type.Boolean(),
  handles: Type.Array(Type.String(), { description: 'the participants' }),
  phone_line_id: Nullable(Type.String({ description: 'the line the chat is pinned to' })),
  convo_id: Type.String(),
  display_name: Nullable(Type.String()),
  created_at: DateTime(),
  lead_id: Type.Optional(Type.String({ description: 'direct chats: the lead' })),
  left_at: Type.Optional(DateTime('groups the line left (POST /chats/{id}/leave): when; such a chat takes no more messages')),
});
export type Chat = Static<typeof Chat>;
