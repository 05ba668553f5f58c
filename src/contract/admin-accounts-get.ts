import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { Account, AccountParams } from './account.js';

export const OneAccount = Type.Object({ account: Account });
export type OneAccount = Static<typeof OneAccount>;

export const adminGetAccount = operation({
  operationId: 'adminGetAccount',
  method: 'GET',
  path: '/admin/v1/accounts/{id}',
  summary: 'One account',
  tags: ['admin'],
  auth: 'admin',
  params: AccountParams,
  responses: { 200: OneAccount },
  errors: [2011],
});
