import { Type, type Static } from 'typebox';
import { DisplayName } from './common.js';
import { operation } from './operation.js';
import { Account } from './account.js';

export const CreateAccountRequest = Type.Object(
  {
    name: DisplayName(),
    multi_tenant: Type.Optional(Type.Boolean({ description: 'default false: one tenant, named by the secret alone' })),
    email_verified: Type.Optional(Type.Boolean({ description: 'default true' })),
  },
  { additionalProperties: false },
);

export const CreateAccountResponse = Type.Object({ account: Account, signing_secret: Type.String({ description: 'bl_sk_…; shown only in this answer' }) });
export type CreateAccountResponse = Static<typeof CreateAccountResponse>;

export const adminCreateAccount = operation({
  operationId: 'adminCreateAccount',
  method: 'POST',
  path: '/admin/v1/accounts',
  summary: 'Create an account; its signing secret is shown only in this response',
  tags: ['admin'],
  auth: 'admin',
  body: CreateAccountRequest,
  responses: { 201: CreateAccountResponse },
  errors: [],
});
