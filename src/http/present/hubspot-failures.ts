/**
 * A CRM route's failure as HubSpot gets it: HTTP 200 (401 for a refused signature, chosen by the
 * CRM context) with `{ok:false, …}`; the workflow action's also in HubSpot's outputFields.
 */
import type { DomainError } from '../../errors/registry.js';
import type { CrmFailureBody, CrmWorkflowFailureBody } from '../../contract/hubspot-common.js';
import { ReplayedFailure } from '../../crm/hubspot/once.js';
import { crmErrorName } from '../../crm/hubspot/errors.js';

export function crmFailure(err: DomainError, traceId: string): CrmFailureBody {
  const internal = err.code === 3001;
  return {
    ok: false as const,
    error: crmErrorName(err),
    code: err.code,
    message: internal ? 'internal error; quote the trace_id to support' : err.message,
    retryable: err.retryable,
    ...(err.details.retryAfter !== undefined && { retry_after: Math.ceil(err.details.retryAfter) }),
    // A recorded failure answered again says so, but not as `duplicate`: that marks a success (spec).
    ...(err instanceof ReplayedFailure && { replayed: true }),
    trace_id: traceId,
  };
}

export function workflowFailure(err: DomainError, traceId: string): CrmWorkflowFailureBody {
  const body = crmFailure(err, traceId);
  return { outputFields: { hs_execution_state: 'FAIL_CONTINUE' as const, error: body.error }, ...body };
}
