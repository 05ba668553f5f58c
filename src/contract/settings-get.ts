/** The tenant's own sending settings (the spec's "configurable in the console"). */
import { Type, type Static } from 'typebox';
import { NoQuery } from './common.js';
import { operation } from './operation.js';
import { Tenant } from './tenant.js';

export const TenantSelfSettings = Type.Object({
  timezone: Type.String({ description: 'IANA time zone of the sending window and of "today" for the caps; taken in any letter case, a zone\'s name stored in its own ("america/new_york" is "America/New_York"), a link (US/Eastern) as given' }),
  sending_window: Tenant.properties.sending_window,
  daily_first_touch_cap: Type.Integer({ description: 'first touches per day across the project' }),
  first_touches_per_line_per_day: Type.Integer({ description: 'fixed by the service (30)' }),
  rate_limit: Type.Object({ per_second: Type.Number(), burst: Type.Integer() }, { description: 'set by the operator; read-only here' }),
});
export type TenantSelfSettings = Static<typeof TenantSelfSettings>;
export const SettingsResponse = Type.Object({ settings: TenantSelfSettings });
export type SettingsResponse = Static<typeof SettingsResponse>;

export const getSettings = operation({
  operationId: 'getSettings',
  method: 'GET',
  path: '/api/v1/settings',
  summary: "The project's timezone, sending window and daily first-touch cap",
  tags: ['settings'],
  auth: 'tenant',
  query: NoQuery,
  responses: { 200: SettingsResponse },
  errors: [],
});
