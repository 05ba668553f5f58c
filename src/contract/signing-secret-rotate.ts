import { Type } from 'typebox';
import { operation } from './operation.js';
import { OverlapHours, RotatedSigningSecret } from './signing-secret.js';

export const rotateSigningSecret = operation({
  operationId: 'rotateSigningSecret',
  method: 'POST',
  path: '/api/v1/signing-secret/rotate',
  summary: "Issue a new signing secret for the caller's account; the old one works until the overlap ends",
  description:
    "The secret is the account's: every tenant of the account changes to it. A console session that rotates stays signed in, " +
    'on the new secret; the account\'s other console sessions end when the secret they were signed in with does (at once with overlap 0). ' +
    'Only the current secret may rotate: a replaced secret, though it works until its overlap ends, is 403 / 2005 here ' +
    '(so a leaked one cannot issue itself a successor and end the owner\'s); the operator can always rotate (admin API). ' +
    'Not idempotent: a rotation whose answer was lost cannot be repeated with the secret it replaced (2005); ' +
    'no answer is kept for an Idempotency-Key, since the answer is the secret.',
  tags: ['settings'],
  auth: 'tenant-bearer',
  body: Type.Object({ overlap_hours: Type.Optional(OverlapHours) }, { additionalProperties: false }),
  responses: { 200: RotatedSigningSecret },
  errors: [],
});
