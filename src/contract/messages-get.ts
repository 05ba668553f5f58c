import { Type, type Static } from 'typebox';
import { IdParams } from './common.js';
import { MessageWithReactions } from './message.js';
import { operation } from './operation.js';

export const getMessage = operation({
  operationId: 'getMessage',
  method: 'GET',
  path: '/api/v1/messages/{id}',
  summary: 'Look up a message and its status (sent, delivered, read, failed), with delivered_at and read_at',
  tags: ['messages'],
  auth: 'tenant',
  params: IdParams,
  responses: { 200: Type.Object({ message: MessageWithReactions }) },
  errors: [2003],
});
export type GetMessageResponse = Static<(typeof getMessage.responses)[200]>;
