import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { tenantView } from '../../../present/admin.js';
import { adminCreateTenant } from '../../../../contract/admin-tenants-create.js';
import type { AccountsService } from '../../../../domain/accounts-tenants/service.js';

export function adminCreateTenantRoute(app: TypedApp, deps: { accounts: AccountsService }) {
  route(app, adminCreateTenant, async (req, reply) => reply.status(201).send({ tenant: tenantView(await deps.accounts.createTenant(req.body)) }));
}
