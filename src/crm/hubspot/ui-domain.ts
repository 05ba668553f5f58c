/**
 * Where a portal's HubSpot UI is (account details' `uiDomain`: app.hubspot.com, app-eu1.hubspot.com
 * for a portal hosted in the EU, …), for links from the console to a contact's record there. An
 * install learns it from the account details call it already makes; an install made before that
 * (migration 022) learns it once, the first time its tenant reads it: one account details call with
 * the portal's token (tokens.withToken, counted as `install`: not against the CRM daily limit).
 * No guessed domain: until HubSpot said, the domain is null and the console shows plain ids. A
 * failed try is logged and tried again only after RETRY_MS, not on every read.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { HubSpotInstall, Store } from '../../store/index.js';
import { HubSpotError, type HubSpotApi } from './client.js';
import type { TokenKeeper } from './tokens.js';

export const UI_DOMAIN_RETRY_MS = 10 * 60_000;

export function uiDomains(deps: { store: Store; clock: Clock; api: HubSpotApi; tokens: TokenKeeper; logger?: Logger }) {
  const learning = new Map<string, Promise<string | null>>();
  const failedAt = new Map<string, number>();

  async function learn(portalId: string, timezone: string): Promise<string | null> {
    try {
      const details = await deps.tokens.withToken(portalId, (token) => deps.api.accountDetails(token, { portalId, timezone, kind: 'install' }));
      if (details.uiDomain) await deps.store.hubspot.setUiDomain(portalId, details.uiDomain);
      else failedAt.set(portalId, deps.clock.now());
      return details.uiDomain;
    } catch (err) {
      failedAt.set(portalId, deps.clock.now());
      const failure = err instanceof HubSpotError ? { failure: err.failure, status: err.status } : { failure: 'refused' };
      deps.logger?.warn({ portal_id: portalId, ...failure }, 'HubSpot account details could not be read for the portal\'s UI domain; contact ids show without links until it can');
      return null;
    }
  }

  return {
    /** The install's UI domain, learned now when it is unknown and the install can still call HubSpot. */
    async of(install: HubSpotInstall, timezone: string): Promise<string | null> {
      if (install.ui_domain || install.status !== 'active') return install.ui_domain;
      const portalId = install.portal_id;
      const failed = failedAt.get(portalId);
      if (failed !== undefined && deps.clock.now() - failed < UI_DOMAIN_RETRY_MS) return null;
      let p = learning.get(portalId);
      if (!p) {
        p = learn(portalId, timezone).finally(() => learning.delete(portalId));
        learning.set(portalId, p);
      }
      return p;
    },
  };
}

export type UiDomains = ReturnType<typeof uiDomains>;
