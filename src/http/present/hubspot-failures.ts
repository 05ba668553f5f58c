/**
 * A CRM route's failure as HubSpot gets it: HTTP 200 (401 for a refused signature, chosen by the
 * CRM context) with `{ok:false, …}`; the workflow action's also in HubSpot's outputFields.
 */
import type { DomainError } from '../../errors/registry.js';
import type { CrmFailureBody, CrmWorkflowFailureBody } from '../../contract/hubspot-common.js';
import { FirstTouchLimitReached } from '../../crm/hubspot/send.js';
import { ReplayedFailure } from '../../crm/hubspot/once.js';

const ERROR_NAMES: Record<string, string> = {
  1001: 'missing field', 1002: 'invalid request', 1003: 'invalid phone', 1004: 'invalid json', 1005: 'url in first message', 1007: 'rate limited',
  1009: 'text too long', 1012: 'in progress', 1013: 'no usable phone', 2001: 'not connected', 2004: 'invalid signature', 2005: 'forbidden',
  2006: 'line not assigned', 2010: 'reconnect hubspot', 2011: 'not found', 3001: 'internal error', 3002: 'no line available', 3004: 'hubspot unavailable',
  4001: 'send failed', 4002: 'limit reached', 4099: 'unsupported',
};

/** The short name: the first-touch limit a send hit ("daily cap reached": the spec's), else the code's. */
function errorName(err: DomainError): string {
  if (err instanceof FirstTouchLimitReached) return err.limit;
  return ERROR_NAMES[String(err.code)] ?? 'failed';
}

export function crmFailure(err: DomainError, traceId: string): CrmFailureBody {
  const internal = err.code === 3001;
  return {
    ok: false as const,
    error: errorName(err),
    code: err.code,
    message: internal ? 'internal error; quote the trace_id to support' : err.message,
    retryable: err.retryable,
    ...(err.details.retryAfter !== undefined && { retry_after: Math.ceil(err.details.retryAfter) }),
    ...(err instanceof ReplayedFailure && { duplicate: true }),
    trace_id: traceId,
  };
}

export function workflowFailure(err: DomainError, traceId: string): CrmWorkflowFailureBody {
  const body = crmFailure(err, traceId);
  return { outputFields: { hs_execution_state: 'FAIL_CONTINUE' as const, error: body.error }, ...body };
}
