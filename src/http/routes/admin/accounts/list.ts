import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { accountView } from '../../../present/admin.js';
import { adminListAccounts } from '../../../../contract/admin-accounts-list.js';
import type { AccountsService } from '../../../../domain/accounts-tenants/service.js';

export function adminListAccountsRoute(app: TypedApp, deps: { accounts: AccountsService }) {
  route(app, adminListAccounts, async () => ({ accounts: (await deps.accounts.listAccounts()).map(accountView) }));
}
