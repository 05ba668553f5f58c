import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { accountView } from '../../../present/admin.js';
import { adminUpdateAccount } from '../../../../contract/admin-accounts-update.js';
import type { AccountsService } from '../../../../domain/accounts-tenants/service.js';

export function adminUpdateAccountRoute(app: TypedApp, deps: { accounts: AccountsService }) {
  route(app, adminUpdateAccount, async (req) => ({ account: accountView(await deps.accounts.updateAccount(req.params.id, req.body)) }));
}
