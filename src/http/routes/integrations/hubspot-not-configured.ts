/** Without HUBSPOT_CLIENT_ID/SECRET every HubSpot route answers 404 saying so; nothing else changes. */
import { DomainError } from '../../../errors/registry.js';
import type { TypedApp } from '../../typed.js';

const MESSAGE = 'the HubSpot integration is not configured on this server (the operator sets HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET)';

export function hubspotNotConfigured(app: TypedApp) {
  const refuse = async () => {
    throw new DomainError(2011, MESSAGE);
  };
  for (const url of ['/api/v1/integrations/hubspot', '/api/v1/integrations/hubspot/*', '/crm/hubspot/*']) {
    app.all(url, { config: { auth: 'none' }, schema: { hide: true } }, refuse);
  }
}
