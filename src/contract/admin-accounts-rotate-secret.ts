import { Type, type Static } from 'typebox';
import { DateTime } from './common.js';
import { operation } from './operation.js';
import { AccountParams } from './account.js';

export const RotateAccountSecretResponse = Type.Object({
  signing_secret: Type.String({ description: 'the new bl_sk_…, shown only here' }),
  previous_secret_expires_at: DateTime('until then the replaced secret still works'),
});
export type RotateAccountSecretResponse = Static<typeof RotateAccountSecretResponse>;

export const adminRotateAccountSecret = operation({
  operationId: 'adminRotateAccountSecret',
  method: 'POST',
  path: '/admin/v1/accounts/{id}/rotate-secret',
  summary: 'Issue a new signing secret; the old one works until the overlap ends',
  tags: ['admin'],
  auth: 'admin',
  params: AccountParams,
  body: Type.Object(
    { overlap_hours: Type.Optional(Type.Number({ minimum: 0, maximum: 24 * 90, description: 'how long the replaced secret still works (default: the configured overlap)' })) },
    { additionalProperties: false },
  ),
  responses: { 200: RotateAccountSecretResponse },
  errors: [2011],
});
