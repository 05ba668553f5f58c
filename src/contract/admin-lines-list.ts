import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { AdminPhoneLine } from './admin-line.js';

export const ListLinesResponse = Type.Object({ phone_lines: Type.Array(AdminPhoneLine) });
export type ListLinesResponse = Static<typeof ListLinesResponse>;

export const adminListLines = operation({
  operationId: 'adminListLines',
  method: 'GET',
  path: '/admin/v1/lines',
  summary: 'Every phone line, with its tenant and driver',
  tags: ['admin'],
  auth: 'admin',
  responses: { 200: ListLinesResponse },
  errors: [],
});
