import { Type, type Static } from 'typebox';
import { DateTime } from './common.js';
import { operation } from './operation.js';
import { OverlapHours } from './signing-secret.js';

export const RotateSigningSecretResponse = Type.Object({
  signing_secret: Type.String({ description: 'the new bl_sk_…, shown only here' }),
  previous_secret_expires_at: DateTime('until then the replaced secret still works'),
});
export type RotateSigningSecretResponse = Static<typeof RotateSigningSecretResponse>;

export const rotateSigningSecret = operation({
  operationId: 'rotateSigningSecret',
  method: 'POST',
  path: '/api/v1/signing-secret/rotate',
  summary: "Issue a new signing secret for the caller's account; the old one works until the overlap ends",
  description:
    "The secret is the account's: every tenant of the account changes to it. Console sessions stay signed in. " +
    'Not idempotent: a retried rotation issues another secret (both replaced ones work until their overlap ends); ' +
    'no answer is kept for an Idempotency-Key, since the answer is the secret.',
  tags: ['settings'],
  auth: 'tenant',
  body: Type.Object({ overlap_hours: Type.Optional(OverlapHours) }, { additionalProperties: false }),
  responses: { 200: RotateSigningSecretResponse },
  errors: [],
});
