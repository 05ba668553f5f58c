import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { updateSettings } from '../../../contract/settings-update.js';
import type { AccountsService } from '../../../domain/accounts-tenants/service.js';
import { settingsView } from '../../present/settings.js';

export function updateSettingsRoute(app: TypedApp, deps: { accounts: AccountsService }) {
  // The body's schema admits only timezone, window and cap: the rate limit stays the operator's.
  route(app, updateSettings, async (req) => settingsView(await deps.accounts.updateTenant(principalOf(req).tenant.slug, req.body)));
}
