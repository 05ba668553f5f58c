import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { Account } from './account.js';

export const ListAccountsResponse = Type.Object({ accounts: Type.Array(Account) });
export type ListAccountsResponse = Static<typeof ListAccountsResponse>;

export const adminListAccounts = operation({
  operationId: 'adminListAccounts',
  method: 'GET',
  path: '/admin/v1/accounts',
  summary: 'Every account (never a secret)',
  tags: ['admin'],
  auth: 'admin',
  responses: { 200: ListAccountsResponse },
  errors: [],
});
