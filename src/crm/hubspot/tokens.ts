/**
 * Access tokens, refreshed before they expire (HubSpot gives 30 minutes; we
 * refresh within the last 5). One refresh serves every concurrent request: in a
 * process through one shared promise, across processes through a lease on the
 * install row (compare-and-set on token_version). A process that loses the race
 * waits for the winner's tokens instead of spending the (rotating) refresh token.
 * HubSpot refusing the refresh token (invalid_grant / BAD_REFRESH_TOKEN) marks the
 * install token_invalid.
 *
 * HubSpot can also refuse an access token before its recorded expiry (access removed, token
 * revoked): `withToken` is the one way calls use a token — on 401 one forced refresh (counted
 * as token_refresh) and the same call once more; a second 401 marks the install token_invalid.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { Store, HubSpotTokens } from '../../store/index.js';
import { DomainError } from '../../errors/registry.js';
import { HubSpotError, type HubSpotApi } from './client.js';
import { notConnected } from './errors.js';

/** HubSpot refused the install's tokens for good (the refresh token, or a freshly refreshed access token): reconnect. */
export class TokenInvalid extends DomainError {
  constructor(message: string) {
    super(2010, message);
  }
}

const isUnauthorized = (err: unknown) => err instanceof HubSpotError && err.failure === 'unauthorized';

export const REFRESH_MARGIN_MS = 5 * 60_000;
const LEASE_MS = 30_000;
const WAIT_LIMIT_MS = 15_000;
const WAIT_POLL_MS = 25;

export function tokenKeeper(deps: { store: Store; clock: Clock; api: HubSpotApi; logger?: Logger }) {
  const { store, clock, api } = deps;
  const refreshing = new Map<string, Promise<string>>();

  async function waitForOther(portalId: string, version: number): Promise<string> {
    const deadline = Date.now() + WAIT_LIMIT_MS;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
      const install = await store.hubspot.getInstall(portalId);
      if (!install || install.status === 'uninstalled') throw notConnected(portalId);
      if (install.status === 'token_invalid') throw tokenInvalid(portalId);
      if (install.token_version !== version) {
        const t = await store.hubspot.tokens(portalId);
        if (t) return t.access_token;
      }
      // The holder died: its lease runs out and we may take it.
      if (await store.hubspot.takeRefreshLease(portalId, version, Date.now(), LEASE_MS)) return refreshHolding(portalId, version);
    }
    throw new DomainError(3004, 'HubSpot token refresh is taking too long; retry shortly');
  }

  const tokenInvalid = (portalId: string) =>
    new TokenInvalid(`HubSpot refused portal ${portalId}'s refresh token: reconnect HubSpot (POST /api/v1/integrations/hubspot/install)`);

  /** We hold the lease for `version`: one refresh call, stored by compare-and-set. */
  async function refreshHolding(portalId: string, version: number): Promise<string> {
    const t = await store.hubspot.tokens(portalId);
    if (!t || t.token_version !== version) {
      await store.hubspot.releaseRefreshLease(portalId);
      if (t) return t.access_token;
      throw notConnected(portalId);
    }
    const install = (await store.hubspot.getInstall(portalId))!;
    const tenant = await store.tenants.getById(install.tenant_id);
    try {
      const fresh = await api.refresh(t.refresh_token, { portalId, timezone: tenant?.timezone ?? 'UTC', kind: 'token_refresh' });
      const next = { access_token: fresh.access_token, refresh_token: fresh.refresh_token, expires_at: clock.now() + fresh.expires_in * 1000 };
      if (!(await store.hubspot.saveRefreshed(portalId, version, next, clock.now()))) throw notConnected(portalId);
      return next.access_token;
    } catch (err) {
      if (err instanceof HubSpotError && err.failure === 'invalid_grant') {
        await store.hubspot.markTokenInvalid(portalId, version, clock.now());
        deps.logger?.warn({ portal_id: portalId, tenant_id: install.tenant_id }, 'HubSpot refused the refresh token; the install is token_invalid until reinstalled');
        throw tokenInvalid(portalId);
      }
      await store.hubspot.releaseRefreshLease(portalId);
      throw err;
    }
  }

  async function refresh(portalId: string, t: HubSpotTokens): Promise<string> {
    if (await store.hubspot.takeRefreshLease(portalId, t.token_version, Date.now(), LEASE_MS)) return refreshHolding(portalId, t.token_version);
    return waitForOther(portalId, t.token_version);
  }

  function shared(portalId: string, work: () => Promise<string>): Promise<string> {
    const running = refreshing.get(portalId);
    if (running) return running;
    const p = work().finally(() => refreshing.delete(portalId));
    refreshing.set(portalId, p);
    return p;
  }

  /** A usable access token for the portal, refreshed first when it expires within 5 minutes. */
  async function accessToken(portalId: string): Promise<string> {
    const t = await store.hubspot.tokens(portalId);
    if (!t) {
      const install = await store.hubspot.getInstall(portalId);
      throw install?.status === 'token_invalid' ? tokenInvalid(portalId) : notConnected(portalId);
    }
    if (t.expires_at - REFRESH_MARGIN_MS > clock.now()) return t.access_token;
    return shared(portalId, () => refresh(portalId, t));
  }

  /**
   * A refresh whatever the expiry (issue 18: after a 401), unless the tokens already moved past
   * `staleToken` (another request refreshed them meanwhile).
   */
  async function forceRefresh(portalId: string, staleToken: string): Promise<string> {
    return shared(portalId, async () => {
      const t = await store.hubspot.tokens(portalId);
      if (!t) throw notConnected(portalId);
      if (t.access_token !== staleToken) return t.access_token;
      return refresh(portalId, t);
    });
  }

  /** A refreshed token refused too: HubSpot will not take this install's tokens any more. */
  async function refusedTwice(portalId: string, err: HubSpotError): Promise<TokenInvalid> {
    const t = await store.hubspot.tokens(portalId);
    if (t) await store.hubspot.markTokenInvalid(portalId, t.token_version, clock.now());
    const install = await store.hubspot.getInstall(portalId);
    deps.logger?.warn({ tenant_id: install?.tenant_id, portal_id: portalId }, 'HubSpot refused a freshly refreshed token (401 twice); the install is token_invalid until reinstalled');
    return new TokenInvalid(`${err.message}: HubSpot refused a freshly refreshed token; reconnect HubSpot (POST /api/v1/integrations/hubspot/install)`);
  }

  return {
    accessToken,

    /**
     * `call` with the portal's access token. HubSpot answering 401 (a token refused before its
     * expiry): one forced refresh and `call` once more with the new token; a second 401 marks the
     * install token_invalid (TokenInvalid, 2010), as does HubSpot refusing the refresh token.
     * Each attempt is counted by the call itself (the repeat too); the refresh as token_refresh.
     */
    async withToken<T>(portalId: string, call: (token: string) => Promise<T>): Promise<T> {
      const token = await accessToken(portalId);
      try {
        return await call(token);
      } catch (err) {
        if (!isUnauthorized(err)) throw err;
      }
      const fresh = await forceRefresh(portalId, token);
      try {
        return await call(fresh);
      } catch (err) {
        if (isUnauthorized(err)) throw await refusedTwice(portalId, err as HubSpotError);
        throw err;
      }
    },
  };
}

export type TokenKeeper = ReturnType<typeof tokenKeeper>;
