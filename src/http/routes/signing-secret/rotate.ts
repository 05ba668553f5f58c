import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { rotateSigningSecret } from '../../../contract/signing-secret-rotate.js';
import { isoAt } from '../../../clock.js';
import type { AccountsService } from '../../../domain/accounts-tenants/service.js';

export function rotateSigningSecretRoute(app: TypedApp, deps: { accounts: AccountsService }) {
  route(app, rotateSigningSecret, async (req) => {
    const hours = req.body?.overlap_hours;
    const { account, credential } = principalOf(req);
    const r = await deps.accounts.rotateSecret(account.id, hours === undefined ? undefined : hours * 3600_000, credential);
    return { signing_secret: r.signingSecret, previous_secret_expires_at: isoAt(r.previousSecretExpiresAt) };
  });
}
