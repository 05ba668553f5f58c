/** Shapes shared by the HubSpot operations: an install as the tenant sees it, and the CRM routes' failure body. */
import { Type, type Static } from 'typebox';

export const HubSpotInstallView = Type.Object({
  portal_id: Type.String(),
  account_type: Type.String({ description: "HubSpot's accountType: STANDARD, SANDBOX, DEVELOPER_TEST, APP_DEVELOPER" }),
  sandbox: Type.Boolean({ description: 'sandbox portals take no install slot' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('uninstalled'), Type.Literal('token_invalid')]),
  installed_at: Type.String({ format: 'date-time' }),
  auto_send: Type.Object({ enabled: Type.Boolean(), template: Type.Union([Type.String(), Type.Null()]), line_id: Type.Union([Type.String(), Type.Null()]) }),
  calls_today: Type.Object(
    {
      sidebar_load: Type.Integer(),
      sidebar_send: Type.Integer(),
      contact_created: Type.Integer(),
      reply_push: Type.Integer(),
      token_refresh: Type.Integer({ description: 'shown, not counted in total_counted' }),
      total_counted: Type.Integer(),
    },
    { description: "HubSpot calls today, in the tenant's timezone" },
  ),
  first_touch_cap_reached_today: Type.Boolean(),
});
export type HubSpotInstallView = Static<typeof HubSpotInstallView>;

export const PortalParams = Type.Object({ portal_id: Type.String({ pattern: '^[0-9]{1,20}$' }) });

/** Every CRM-route failure but a bad signature is HTTP 200 with this body (spec: Errors, Limits). */
export const CrmFailure = Type.Object({
  ok: Type.Literal(false),
  error: Type.String({ description: 'short name; "daily cap reached" when the project daily first-touch cap is used up' }),
  code: Type.Union([Type.Integer(), Type.String()]),
  message: Type.String(),
  retryable: Type.Boolean(),
  retry_after: Type.Optional(Type.Integer()),
  duplicate: Type.Optional(Type.Boolean()),
  trace_id: Type.String(),
});
export type CrmFailure = Static<typeof CrmFailure>;

/** What a CRM send answers on success. */
export const CrmSent = {
  ok: Type.Literal(true),
  duplicate: Type.Optional(Type.Boolean({ description: 'a replay: the original result' })),
  message_id: Type.String(),
  lead_id: Type.String(),
  chat_id: Type.String(),
  lead_created: Type.Boolean(),
  phone_line_id: Type.String(),
  phone: Type.String(),
  trace_id: Type.String(),
};
