import { Type } from 'typebox';
import { operation } from './operation.js';

export const deleteConsoleSession = operation({
  operationId: 'deleteConsoleSession',
  method: 'DELETE',
  path: '/api/v1/console/session',
  summary: 'Sign out: the session ends on the server and its cookie is cleared',
  tags: ['console'],
  auth: 'none',
  responses: { 200: Type.Object({ signed_out: Type.Literal(true) }) },
  errors: [2005],
});
