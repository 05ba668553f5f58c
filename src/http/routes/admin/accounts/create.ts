import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { accountView } from '../../../present/admin.js';
import { adminCreateAccount } from '../../../../contract/admin-accounts-create.js';
import type { AccountsService } from '../../../../domain/accounts-tenants/service.js';

export function adminCreateAccountRoute(app: TypedApp, deps: { accounts: AccountsService }) {
  route(app, adminCreateAccount, async (req, reply) => {
    const { account, signingSecret } = await deps.accounts.createAccount(req.body);
    return reply.status(201).send({ account: accountView(account), signing_secret: signingSecret });
  });
}
