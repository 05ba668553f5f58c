/**
 * HubSpot's failures in the spec's codes: 429/5xx/network are retryable (3004,
 * with retry_after when HubSpot said), a refused token is 2010 (reinstall), a
 * missing contact 2011. Never a 500 of ours.
 */
import { DomainError } from '../../errors/registry.js';
import { HubSpotError } from './client.js';
import { FirstTouchLimitReached } from './send.js';
import { ReplayedFailure } from './once.js';

const ERROR_NAMES: Record<string, string> = {
  1001: 'missing field', 1002: 'invalid request', 1003: 'invalid phone', 1004: 'invalid json', 1005: 'url in first message', 1007: 'rate limited',
  1009: 'text too long', 1012: 'in progress', 1013: 'no usable phone', 2001: 'not connected', 2004: 'invalid signature', 2005: 'forbidden',
  2006: 'line not assigned', 2010: 'reconnect hubspot', 2011: 'not found', 3001: 'internal error', 3002: 'no line available', 3004: 'hubspot unavailable',
  4001: 'send failed', 4002: 'limit reached', 4099: 'unsupported',
};

/** A CRM failure's short name (`error`, and HubSpot's outputFields.error): the first-touch limit a send hit ("daily cap reached": the spec's), else the code's. */
export function crmErrorName(err: DomainError): string {
  if (err instanceof FirstTouchLimitReached) return err.limit;
  if (err instanceof ReplayedFailure && err.shortName) return err.shortName;
  return ERROR_NAMES[String(err.code)] ?? 'failed';
}

export function fromHubSpot(err: unknown): unknown {
  if (!(err instanceof HubSpotError)) return err;
  switch (err.failure) {
    case 'rate_limited':
      return new DomainError(3004, `${err.message}; retry after ${err.retryAfterSeconds ?? 10} s`, { variant: 'upstream_rate_limited', retryAfter: err.retryAfterSeconds ?? 10 });
    case 'server':
    case 'network':
      return new DomainError(3004, err.message, err.retryAfterSeconds !== undefined ? { retryAfter: err.retryAfterSeconds } : {});
    case 'unauthorized':
    case 'invalid_grant':
      return new DomainError(2010, `${err.message}: reconnect HubSpot (POST /api/v1/integrations/hubspot/install)`);
    case 'forbidden':
      return new DomainError(2005, `${err.message}: the app lacks a scope it needs; reinstall it with HUBSPOT_SCOPES`);
    case 'not_found':
      return new DomainError(2011, err.message);
    default:
      return new DomainError(3004, err.message);
  }
}

export const notConnected = (portalId: string) =>
  new DomainError(2001, `no project is connected to HubSpot portal ${portalId} (never installed, or uninstalled)`);
