import { NoQuery } from './common.js';
import { operation } from './operation.js';
import { ConsoleSession } from './console-sessions.js';

export const getConsoleSession = operation({
  operationId: 'getConsoleSession',
  method: 'GET',
  path: '/api/v1/console/session',
  summary: 'The console session of this browser (its CSRF token after a reload)',
  tags: ['console'],
  auth: 'none',
  query: NoQuery,
  responses: { 200: ConsoleSession },
  errors: [2004, 2012, 2005, 2007],
});
