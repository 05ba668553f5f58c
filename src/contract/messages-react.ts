import { Type, type Static } from 'typebox';
import { DateTime, IdParams } from './common.js';
import { operation } from './operation.js';
import { TAPBACKS } from '../drivers/types.js';

export const Reaction = Type.Enum([...TAPBACKS], { description: 'a tapback' });

export const ReactRequest = Type.Object(
  {
    reaction: Reaction,
    remove: Type.Optional(Type.Boolean({ default: false, description: 'true takes the tapback back' })),
  },
  { additionalProperties: false },
);
export type ReactRequest = Static<typeof ReactRequest>;

export const ReactResponse = Type.Object({
  status: Type.Enum(['reacted', 'removed']),
  message_id: Type.String(),
  reaction: Reaction,
  reacted_at: DateTime(),
});
export type ReactResponse = Static<typeof ReactResponse>;

export const reactToMessage = operation({
  operationId: 'reactToMessage',
  method: 'POST',
  path: '/api/v1/messages/{id}/react',
  summary: 'Add or remove a tapback on an inbound or outbound message',
  tags: ['messages'],
  auth: 'tenant',
  params: IdParams,
  body: ReactRequest,
  responses: { 200: ReactResponse },
  // 1012: still `sending`; 4001: never delivered, or refused downstream; 4099: the line cannot react (501)
  // or is no longer the project's (422).
  errors: [1012, 2003, 3002, 4001, 4099, { code: 4099, status: 422 }],
  rateLimited: true,
});
