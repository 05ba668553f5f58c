/** The tenant's view of its account's signing secret (metadata only: the secret is shown once, when issued). */
import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from './common.js';

/** How long a replaced secret keeps working: the admin route's bounds. */
export const OverlapHours = Type.Number({
  minimum: 0,
  maximum: 24 * 90,
  description:
    'how long the replaced secret still works, in hours (default: the configured overlap, 24 unless the operator changed it); ' +
    'secrets replaced earlier keep their own end, except that 0 ends every earlier secret at once',
});

export const SigningSecretStatus = Type.Object({
  account_id: Type.String({ description: 'the account the secret belongs to (acct_…)' }),
  created_at: DateTime('when the current secret was issued'),
  rotated_at: Nullable(DateTime('when it replaced the previous one; null: never rotated')),
  previous_secret_active: Type.Boolean({ description: 'a replaced secret still works (its overlap has not ended)' }),
  previous_secret_expires_at: Nullable(DateTime('when the last replaced secret stops working; null: none works')),
  previous_secrets: Type.Array(Type.Object({ created_at: DateTime(), expires_at: DateTime() }), { description: 'every replaced secret that still works, newest first' }),
  shared_with_tenants: Type.Array(Type.String(), { description: "slugs of the account's tenants: the one secret signs for all of them" }),
});
export type SigningSecretStatus = Static<typeof SigningSecretStatus>;

/** A new signing secret, from the tenant's rotation or the operator's. */
export const RotatedSigningSecret = Type.Object({
  signing_secret: Type.String({ description: 'the new bl_sk_…, shown only here' }),
  previous_secret_expires_at: DateTime('until then the replaced secret still works'),
});
export type RotatedSigningSecret = Static<typeof RotatedSigningSecret>;
