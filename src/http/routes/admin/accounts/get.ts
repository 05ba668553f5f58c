import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { accountView } from '../../../present/admin.js';
import { adminGetAccount } from '../../../../contract/admin-accounts-get.js';
import type { AccountsService } from '../../../../domain/accounts-tenants/service.js';

export function adminGetAccountRoute(app: TypedApp, deps: { accounts: AccountsService }) {
  route(app, adminGetAccount, async (req) => ({ account: accountView(await deps.accounts.getAccount(req.params.id)) }));
}
