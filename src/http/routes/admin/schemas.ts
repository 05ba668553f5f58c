import { Type } from 'typebox';

export const AccountSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  multi_tenant: Type.Boolean(),
  email_verified: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
});

const SendingWindow = Type.Object(
  {
    start: Type.String({ pattern: '^\\d{2}:\\d{2}$', description: 'HH:MM, tenant timezone' }),
    end: Type.String({ pattern: '^\\d{2}:\\d{2}$', description: 'HH:MM; 24:00 means end of day' }),
  },
  { additionalProperties: false },
);
const RateLimit = Type.Object(
  { per_second: Type.Number({ exclusiveMinimum: 0 }), burst: Type.Integer({ minimum: 1 }) },
  { additionalProperties: false },
);
const Status = Type.Union([Type.Literal('active'), Type.Literal('suspended')]);

export const TenantSettings = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  sending_window: Type.Optional(SendingWindow),
  daily_first_touch_cap: Type.Optional(Type.Integer({ minimum: 0 })),
  rate_limit: Type.Optional(RateLimit),
  status: Type.Optional(Status),
  crm_install_slots: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, description: 'production HubSpot portals the tenant may connect; sandbox portals take none (default 1)' })),
};

export const TenantSchema = Type.Object({
  id: Type.String(),
  account_id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  timezone: Type.String(),
  sending_window: SendingWindow,
  daily_first_touch_cap: Type.Integer(),
  rate_limit: RateLimit,
  status: Status,
  crm_install_slots: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
});

export const AdminPhoneLineSchema = Type.Object({
  id: Type.String(),
  phone_line_id: Type.String(),
  phone_number: Type.String(),
  service: Type.Literal('imessage'),
  is_active: Type.Boolean(),
  capabilities: Type.Array(Type.String()),
  tenant: Type.String(),
  driver: Type.String(),
  driver_config_keys: Type.Array(Type.String(), { description: 'values are never shown' }),
  created_at: Type.String({ format: 'date-time' }),
});

