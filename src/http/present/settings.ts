import type { SettingsResponse } from '../../contract/settings-get.js';
import { FIRST_TOUCH_PER_LINE_PER_DAY } from '../../domain/messaging/limits.js';
import type { Tenant } from '../../store/index.js';

export const settingsView = (t: Tenant): SettingsResponse => ({
  settings: {
    timezone: t.timezone,
    sending_window: t.sending_window,
    daily_first_touch_cap: t.daily_first_touch_cap,
    first_touches_per_line_per_day: FIRST_TOUCH_PER_LINE_PER_DAY,
    rate_limit: t.rate_limit,
  },
});
