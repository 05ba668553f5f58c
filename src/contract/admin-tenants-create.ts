import { Type } from 'typebox';
import { operation } from './operation.js';
import { OneTenant, Slug, TenantSettings } from './tenant.js';

export const adminCreateTenant = operation({
  operationId: 'adminCreateTenant',
  method: 'POST',
  path: '/admin/v1/tenants',
  summary: 'Create a tenant (project) of an account',
  description: 'A single-tenant account keeps one tenant (402 / 2008); a slug is taken once (409 / 1012).',
  tags: ['admin'],
  auth: 'admin',
  body: Type.Object(
    {
      account_id: Type.String({ minLength: 1 }),
      slug: Slug,
      ...TenantSettings,
    },
    { additionalProperties: false },
  ),
  responses: { 201: OneTenant },
  errors: [2011, 2008, 1012],
});
