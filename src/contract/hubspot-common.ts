/** Shapes shared by the HubSpot operations: an install as the tenant sees it, and the CRM routes' failure body. */
import { Type, type Static } from 'typebox';
import { ERROR_CODES, type ErrorCode } from '../errors/registry.js';
import { codeOf, codeSchema } from './common.js';

export const HubSpotInstallView = Type.Object({
  portal_id: Type.String(),
  account_type: Type.String({ description: "HubSpot's accountType: STANDARD, SANDBOX, DEVELOPER_TEST, APP_DEVELOPER" }),
  sandbox: Type.Boolean({ description: 'sandbox portals take no install slot' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('uninstalled'), Type.Literal('token_invalid')]),
  installed_at: Type.String({ format: 'date-time' }),
  ui_domain: Type.Union([Type.String(), Type.Null()], {
    description:
      "where the portal's HubSpot UI is, as HubSpot's account details say (app.hubspot.com; app-eu1.hubspot.com for a portal hosted in the EU): a contact's record is https://{ui_domain}/contacts/{portal_id}/record/0-1/{contact id}. null until HubSpot said (an install from before it was kept, not reachable yet)",
  }),
  auto_send: Type.Object({ enabled: Type.Boolean(), template: Type.Union([Type.String(), Type.Null()]), line_id: Type.Union([Type.String(), Type.Null()]) }),
  calls_today: Type.Object(
    {
      sidebar_load: Type.Integer(),
      sidebar_send: Type.Integer(),
      contact_created: Type.Integer(),
      reply_push: Type.Integer(),
      workflow_callback: Type.Integer({ description: 'completions of workflow actions held for time (1 call each; a synchronous workflow action makes none)' }),
      token_refresh: Type.Integer({ description: 'shown, not counted in total_counted' }),
      total_counted: Type.Integer(),
    },
    { description: "HubSpot calls today, in the tenant's timezone" },
  ),
  first_touch_cap_reached_today: Type.Boolean(),
  held_actions: Type.Object(
    {
      held: Type.Integer({ description: 'waiting for the sending window or a free line; answered BLOCK to HubSpot' }),
      completing: Type.Integer({ description: 'sent or refused; HubSpot not yet told (retried with backoff)' }),
      completed: Type.Integer({ description: 'HubSpot told the outcome (SUCCESS, or FAIL_CONTINUE with the reason)' }),
      abandoned: Type.Integer({ description: 'given up without telling HubSpot (portal uninstalled, project deleted, or HubSpot refused the completion)' }),
      next_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'the earliest next try of a held action' }),
    },
    { description: 'Workflow actions refused only for time and held, all time, by state' },
  ),
});
export type HubSpotInstallView = Static<typeof HubSpotInstallView>;

export const PortalParams = Type.Object({ portal_id: Type.String({ pattern: '^[0-9]{1,20}$' }) });

const crmFailureFields = (codes: readonly ErrorCode[]) => ({
  ok: Type.Literal(false),
  error: Type.String({ description: 'short name; "daily cap reached" when the project daily first-touch cap is used up' }),
  code: codeSchema(codes),
  message: Type.String(),
  retryable: Type.Boolean({ description: 'authoritative: branch on it' }),
  retry_after: Type.Optional(Type.Integer({ minimum: 0, description: 'seconds' })),
  replayed: Type.Optional(Type.Boolean({ description: 'the recorded failure of the same card send second or callbackId, answered again (`duplicate: true` marks replayed successes only)' })),
  trace_id: Type.String(),
});

/**
 * Every CRM-route failure but a refused signature is HTTP 200 with this body (spec: Errors,
 * Limits); a refused signature is 401 with it. `codes`: the ones the answer can carry.
 */
export function CrmFailure(codes: readonly ErrorCode[] = Object.keys(ERROR_CODES).map(codeOf)) {
  return Type.Object(crmFailureFields(codes), { description: 'CRM failure: ok false' });
}
export type CrmFailureBody = Static<ReturnType<typeof CrmFailure>>;

/** The workflow action's failure: the CRM failure plus the outputFields HubSpot reads (FAIL_CONTINUE: the workflow goes on). */
export function CrmWorkflowFailure(codes: readonly ErrorCode[] = Object.keys(ERROR_CODES).map(codeOf)) {
  return Type.Object(
    {
      outputFields: Type.Object({ hs_execution_state: Type.Literal('FAIL_CONTINUE'), error: Type.String({ description: 'the same short name as `error`' }) }),
      ...crmFailureFields(codes),
    },
    { description: 'Workflow action failure: ok false, FAIL_CONTINUE' },
  );
}
export type CrmWorkflowFailureBody = Static<ReturnType<typeof CrmWorkflowFailure>>;

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
