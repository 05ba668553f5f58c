import { Type } from 'typebox';
import { operation } from './operation.js';
import { LineFields, LineParams, OneLine } from './admin-line.js';

export const adminUpdateLine = operation({
  operationId: 'adminUpdateLine',
  method: 'PATCH',
  path: '/admin/v1/lines/{id}',
  summary: "Move a line to another tenant, or change its driver, capabilities or active state",
  tags: ['admin'],
  auth: 'admin',
  params: LineParams,
  body: Type.Object(
    { tenant: Type.Optional(Type.String({ minLength: 1, description: 'the tenant slug' })), ...LineFields, driver: Type.Optional(LineFields.driver) },
    { additionalProperties: false },
  ),
  responses: { 200: OneLine },
  errors: [2011, 2001],
});
