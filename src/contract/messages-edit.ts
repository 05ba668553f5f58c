import { Type, type Static } from 'typebox';
import { DateTime, IdParams } from './common.js';
import { operation } from './operation.js';
import { MAX_TEXT_LENGTH } from '../domain/messaging/vocabulary.js';

export const EditMessageRequest = Type.Object(
  {
    new_text: Type.String({ minLength: 1, description: `${MAX_TEXT_LENGTH.toLocaleString('en-US')} characters (Unicode code points) at most (1009)` }),
    edited_part_index: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: "a text part of the message (else 1002). Every part of a chat message send is a message of its own (its text at index 0): edit another bubble of that send by its id from the answer's part_message_ids" })),
  },
  { additionalProperties: false },
);
export type EditMessageRequest = Static<typeof EditMessageRequest>;

export const EditMessageResponse = Type.Object({
  status: Type.Literal('edited'),
  message_id: Type.String(),
  new_text: Type.String(),
  date_edited: DateTime(),
  edit_history: Type.Null(),
});
export type EditMessageResponse = Static<typeof EditMessageResponse>;

export const editMessage = operation({
  operationId: 'editMessage',
  method: 'POST',
  path: '/api/v1/messages/{id}/edit',
  summary: 'Edit an outbound message within 15 minutes of sending (not idempotent)',
  tags: ['messages'],
  auth: 'tenant',
  params: IdParams,
  body: EditMessageRequest,
  responses: { 200: EditMessageResponse },
  // 1011: the message is inbound; 1012: it is still `sending`; 4001: past the 15-minute window, never
  // delivered, or refused downstream; 4099: the line cannot edit (501) or is no longer the project's (422).
  errors: [1009, 1011, 1012, 2003, 3002, 4001, 4099, { code: 4099, status: 422 }],
  // decisions.md: a missing field is 1002 on this route (the spec's edit errors).
  missingFieldCode: 1002,
  rateLimited: true,
});
