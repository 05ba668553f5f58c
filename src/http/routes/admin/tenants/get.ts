import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { tenantView } from '../../../present/admin.js';
import { adminGetTenant } from '../../../../contract/admin-tenants-get.js';
import type { AccountsService } from '../../../../domain/accounts-tenants/service.js';

export function adminGetTenantRoute(app: TypedApp, deps: { accounts: AccountsService }) {
  route(app, adminGetTenant, async (req) => ({ tenant: tenantView(await deps.accounts.getTenant(req.params.slug)) }));
}
