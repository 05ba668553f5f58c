import { operation } from './operation.js';
import { OneTenant, TenantParams } from './tenant.js';

export const adminGetTenant = operation({
  operationId: 'adminGetTenant',
  method: 'GET',
  path: '/admin/v1/tenants/{slug}',
  summary: 'One tenant and its settings',
  tags: ['admin'],
  auth: 'admin',
  params: TenantParams,
  responses: { 200: OneTenant },
  errors: [2001],
});
