import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { Tenant } from './tenant.js';

export const ListTenantsResponse = Type.Object({ tenants: Type.Array(Tenant) });
export type ListTenantsResponse = Static<typeof ListTenantsResponse>;

export const adminListTenants = operation({
  operationId: 'adminListTenants',
  method: 'GET',
  path: '/admin/v1/tenants',
  summary: 'Every tenant',
  tags: ['admin'],
  auth: 'admin',
  responses: { 200: ListTenantsResponse },
  errors: [],
});
