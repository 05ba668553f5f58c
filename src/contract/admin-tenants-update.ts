import { Type } from 'typebox';
import { operation } from './operation.js';
import { OneTenant, TenantParams, TenantSettings } from './tenant.js';

export const adminUpdateTenant = operation({
  operationId: 'adminUpdateTenant',
  method: 'PATCH',
  path: '/admin/v1/tenants/{slug}',
  summary: 'Change any tenant setting, including status (active | suspended)',
  tags: ['admin'],
  auth: 'admin',
  params: TenantParams,
  body: Type.Object(TenantSettings, { additionalProperties: false }),
  responses: { 200: OneTenant },
  errors: [2001],
});
