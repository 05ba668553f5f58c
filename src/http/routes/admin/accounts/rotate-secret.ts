import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { adminRotateAccountSecret } from '../../../../contract/admin-accounts-rotate-secret.js';
import { isoAt } from '../../../../clock.js';
import type { AccountsService } from '../../../../domain/accounts-tenants/service.js';

export function adminRotateAccountSecretRoute(app: TypedApp, deps: { accounts: AccountsService }) {
  route(app, adminRotateAccountSecret, async (req) => {
    const hours = req.body.overlap_hours;
    const r = await deps.accounts.rotateSecret(req.params.id, hours === undefined ? undefined : hours * 3600_000);
    return { signing_secret: r.signingSecret, previous_secret_expires_at: isoAt(r.previousSecretExpiresAt) };
  });
}
