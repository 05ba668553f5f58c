import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { getSigningSecret } from '../../../contract/signing-secret-get.js';
import { isoAt, isoOrNull } from '../../../clock.js';
import type { SigningSecretStatusOf } from '../../../domain/accounts-tenants/signing-secret.js';

export function getSigningSecretRoute(app: TypedApp, deps: { signingSecretStatus: SigningSecretStatusOf }) {
  route(app, getSigningSecret, async (req) => {
    const s = await deps.signingSecretStatus(principalOf(req).account.id);
    return {
      signing_secret: {
        account_id: s.accountId,
        created_at: isoAt(s.createdAt),
        rotated_at: isoOrNull(s.rotatedAt),
        previous_secret_active: s.previous.length > 0,
        previous_secret_expires_at: isoOrNull(s.previous.length ? Math.max(...s.previous.map((p) => p.expiresAt)) : null),
        previous_secrets: s.previous.map((p) => ({ created_at: isoAt(p.createdAt), expires_at: isoAt(p.expiresAt) })),
        shared_with_tenants: s.tenants,
      },
    };
  });
}
