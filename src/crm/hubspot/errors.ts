/**
 * HubSpot's failures in the spec's codes: 429/5xx/network are retryable (3004,
 * with retry_after when HubSpot said), a refused token is 2010 (reinstall), a
 * missing contact 2011. Never a 500 of ours.
 */
import { DomainError } from '../../errors/registry.js';
import { HubSpotError } from './client.js';

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
