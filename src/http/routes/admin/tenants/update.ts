import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { tenantView } from '../../../present/admin.js';
import { adminUpdateTenant } from '../../../../contract/admin-tenants-update.js';
import type { AccountsService } from '../../../../domain/accounts-tenants/service.js';

export function adminUpdateTenantRoute(app: TypedApp, deps: { accounts: AccountsService }) {
  route(app, adminUpdateTenant, async (req) => ({ tenant: tenantView(await deps.accounts.updateTenant(req.params.slug, req.body)) }));
}
