import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { tenantView } from '../../../present/admin.js';
import { adminListTenants } from '../../../../contract/admin-tenants-list.js';
import type { AccountsService } from '../../../../domain/accounts-tenants/service.js';

export function adminListTenantsRoute(app: TypedApp, deps: { accounts: AccountsService }) {
  route(app, adminListTenants, async () => ({ tenants: (await deps.accounts.listTenants()).map(tenantView) }));
}
