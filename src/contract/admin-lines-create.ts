import { Type } from 'typebox';
import { operation } from './operation.js';
import { LineFields, OneLine } from './admin-line.js';

export const adminCreateLine = operation({
  operationId: 'adminCreateLine',
  method: 'POST',
  path: '/admin/v1/lines',
  summary: 'Assign a new phone line to a tenant',
  description: 'A line that could never send (a bluebubbles line without url or password) is refused (1002).',
  tags: ['admin'],
  auth: 'admin',
  body: Type.Object(
    {
      tenant: Type.String({ minLength: 1, description: 'the tenant slug' }),
      phone_number: Type.String({ minLength: 1, maxLength: 32, description: 'E.164; punctuation is removed (anything else is 1003)' }),
      ...LineFields,
    },
    { additionalProperties: false },
  ),
  responses: { 201: OneLine },
  errors: [2001, 1003, 1012],
});
