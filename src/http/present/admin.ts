/** Accounts and tenants, as the admin API shows them. */
import { isoAt } from '../../clock.js';
import type { Account as AccountView } from '../../contract/account.js';
import type { Tenant as TenantView } from '../../contract/tenant.js';
import type { Account, Tenant } from '../../store/index.js';

export const accountView = (a: Account): AccountView => ({ ...a, created_at: isoAt(a.created_at) });

export const tenantView = (t: Tenant): TenantView => ({ ...t, crm_install_slots: t.crm_install_slots ?? 1, created_at: isoAt(t.created_at) });
