import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { getSettings } from '../../../contract/settings-get.js';
import { settingsView } from '../../present/settings.js';

export function getSettingsRoute(app: TypedApp) {
  route(app, getSettings, async (req) => settingsView(principalOf(req).tenant));
}
