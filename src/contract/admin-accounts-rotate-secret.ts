import { Type } from 'typebox';
import { operation } from './operation.js';
import { AccountParams } from './account.js';
import { OverlapHours, RotatedSigningSecret } from './signing-secret.js';

export const adminRotateAccountSecret = operation({
  operationId: 'adminRotateAccountSecret',
  method: 'POST',
  path: '/admin/v1/accounts/{id}/rotate-secret',
  summary: 'Issue a new signing secret; the old one works until the overlap ends',
  description:
    "The account's console sessions end when the secret they were signed in with does: with overlap 0, every earlier secret " +
    'and every console session of the account end at once (the answer to a leaked secret).',
  tags: ['admin'],
  auth: 'admin',
  params: AccountParams,
  body: Type.Object({ overlap_hours: Type.Optional(OverlapHours) }, { additionalProperties: false }),
  responses: { 200: RotatedSigningSecret },
  errors: [2011],
});
