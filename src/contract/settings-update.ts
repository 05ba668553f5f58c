import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { TenantSettings } from './tenant.js';
import { SettingsResponse } from './settings-get.js';

export const UpdateSettingsRequest = Type.Object(
  { timezone: TenantSettings.timezone, sending_window: TenantSettings.sending_window, daily_first_touch_cap: TenantSettings.daily_first_touch_cap },
  { additionalProperties: false, description: 'any of the three; the rate limit stays the operator\'s' },
);
export type UpdateSettingsRequest = Static<typeof UpdateSettingsRequest>;

export const updateSettings = operation({
  operationId: 'updateSettings',
  method: 'PATCH',
  path: '/api/v1/settings',
  summary: "Change the project's timezone, sending window or daily first-touch cap",
  tags: ['settings'],
  auth: 'tenant',
  body: UpdateSettingsRequest,
  responses: { 200: SettingsResponse },
  errors: [],
});
