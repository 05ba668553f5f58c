import { Type, type Static } from 'typebox';
import { NoQuery } from './common.js';
import { operation } from './operation.js';
import { SigningSecretStatus } from './signing-secret.js';

export const GetSigningSecretResponse = Type.Object({ signing_secret: SigningSecretStatus });
export type GetSigningSecretResponse = Static<typeof GetSigningSecretResponse>;

export const getSigningSecret = operation({
  operationId: 'getSigningSecret',
  method: 'GET',
  path: '/api/v1/signing-secret',
  summary: "When the account's signing secret was issued or rotated, and until when a replaced one still works (never the secret)",
  description: "The secret belongs to the account, not the tenant: an account's tenants share it (shared_with_tenants).",
  tags: ['settings'],
  auth: 'tenant',
  query: NoQuery,
  responses: { 200: GetSigningSecretResponse },
  errors: [],
});
