import { Type } from 'typebox';
import { DisplayName } from './common.js';
import { operation } from './operation.js';
import { AccountParams } from './account.js';
import { OneAccount } from './admin-accounts-get.js';

export const adminUpdateAccount = operation({
  operationId: 'adminUpdateAccount',
  method: 'PATCH',
  path: '/admin/v1/accounts/{id}',
  summary: "Change an account's name, multi_tenant or email_verified",
  description: 'An account with more than one tenant cannot become single-tenant (409 / 1012).',
  tags: ['admin'],
  auth: 'admin',
  params: AccountParams,
  body: Type.Object(
    {
      name: Type.Optional(DisplayName()),
      multi_tenant: Type.Optional(Type.Boolean()),
      email_verified: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
  responses: { 200: OneAccount },
  errors: [2011, 1012],
});
