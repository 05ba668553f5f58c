/** The tenant resource of the admin API and the settings it can change. */
import { Type, type Static } from 'typebox';
import { DateTime, DisplayName } from './common.js';
import { HHMM, SLUG } from '../domain/accounts-tenants/settings.js';

const SendingWindow = Type.Object(
  {
    start: Type.String({ pattern: HHMM.source, description: 'HH:MM from 00:00 to 23:59, tenant timezone' }),
    end: Type.String({ pattern: HHMM.source, description: 'HH:MM from 00:00 to 24:00 (end of day), not equal to start' }),
  },
  { additionalProperties: false },
);
/** The largest value the stores' integer columns hold (PostgreSQL `integer`): past it is 1002, not a failed write. */
const INT32_MAX = 2_147_483_647;

const RateLimit = Type.Object(
  {
    // Below one request in 1,000 s a limit is a suspension (PATCH status), and its Retry-After grew past any clock.
    per_second: Type.Number({ minimum: 0.001, description: 'requests per second the bucket refills' }),
    burst: Type.Integer({ minimum: 1, maximum: INT32_MAX }),
  },
  { additionalProperties: false },
);
export const TenantStatus = Type.Enum(['active', 'suspended'], { type: 'string', description: 'a suspended tenant\'s requests are 403 / 2005' });

/** Every setting a tenant has; each optional where a request sets some of them. */
export const TenantSettings = {
  name: Type.Optional(DisplayName()),
  timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'an IANA time zone, e.g. America/New_York (else 1002)' })),
  sending_window: Type.Optional(SendingWindow),
  daily_first_touch_cap: Type.Optional(Type.Integer({ minimum: 0, maximum: INT32_MAX })),
  rate_limit: Type.Optional(RateLimit),
  status: Type.Optional(TenantStatus),
  crm_install_slots: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, description: 'production HubSpot portals the tenant may connect; sandbox portals take none (default 1)' })),
};

export const Tenant = Type.Object({
  id: Type.String({ description: 'ten_…' }),
  account_id: Type.String(),
  slug: Type.String({ description: 'what x-service-tenant names' }),
  name: Type.String(),
  timezone: Type.String(),
  sending_window: SendingWindow,
  daily_first_touch_cap: Type.Integer(),
  rate_limit: RateLimit,
  status: TenantStatus,
  crm_install_slots: Type.Integer(),
  created_at: DateTime(),
});
export type Tenant = Static<typeof Tenant>;

/** 1-63 lowercase letters, digits and inner dashes. */
export const Slug = Type.String({ minLength: 1, maxLength: 63, pattern: SLUG.source, description: '1-63 lowercase letters, digits and inner dashes' });

export const TenantParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) });
export const OneTenant = Type.Object({ tenant: Tenant });
export type OneTenant = Static<typeof OneTenant>;
