/**
 * Calls into HubSpot, with plain fetch (docs/decisions.md says why): every call
 * is counted per portal, kind and day (the tenant's timezone) in the database
 * before it is made, and HubSpot's answers are classified here — 401, 429 (with
 * Retry-After / X-HubSpot-RateLimit-*), 5xx and network failures — so the rules
 * for them stay ours. No retries here: callers decide.
 */
import type { HubSpotConfig } from '../../config.js';
import type { Clock } from '../../clock.js';
import type { Store } from '../../store/index.js';
import { localDate } from '../../domain/messaging/local-time.js';

/**
 * What a call is counted as (the spec's table; `token_refresh` and `install` are shown but not
 * counted against the daily limit). `workflow_callback`: completing a held workflow action.
 */
export const CALL_KINDS = ['sidebar_load', 'sidebar_send', 'contact_created', 'reply_push', 'workflow_callback', 'token_refresh', 'install'] as const;
export type CallKind = (typeof CALL_KINDS)[number];

export const HUBSPOT_FAILURES = ['unauthorized', 'forbidden', 'not_found', 'rate_limited', 'server', 'invalid_grant', 'bad_request', 'network'] as const;
export type HubSpotFailure = (typeof HUBSPOT_FAILURES)[number];

/** How a call ended: HubSpot answered 2xx, or the failure it was classified as. */
export const CALL_OUTCOMES = ['ok', ...HUBSPOT_FAILURES] as const;
export type CallOutcome = (typeof CALL_OUTCOMES)[number];

export class HubSpotError extends Error {
  readonly retryable: boolean;
  constructor(
    readonly failure: HubSpotFailure,
    message: string,
    readonly status: number | null = null,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'HubSpotError';
    this.retryable = failure === 'rate_limited' || failure === 'server' || failure === 'network';
  }
}

/** Who a call is counted for. */
export interface CountAs {
  portalId: string;
  timezone: string;
  kind: CallKind;
}

export interface HubSpotTokenSet {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  hub_id?: number;
}

export interface HubSpotContact {
  id: string;
  properties: Record<string, string | null | undefined>;
}

export const CALL_TIMEOUT_MS = 10_000;

/** YYYY-MM-DD of `ms` in `tz` (the one local-time implementation: domain/messaging/local-time.ts). */
export const dayIn = localDate;

function retryAfterOf(h: Headers): number | undefined {
  const ra = h.get('retry-after');
  if (ra && /^\d+$/.test(ra.trim())) return Number(ra.trim());
  const interval = h.get('x-hubspot-ratelimit-interval-milliseconds');
  if (interval && /^\d+$/.test(interval)) return Math.max(1, Math.ceil(Number(interval) / 1000));
  return undefined;
}

/** HubSpot's error body says what went wrong in `message`/`status`; nothing else of it is repeated. */
function describe(body: unknown): string {
  const b = (body ?? {}) as { message?: unknown; status?: unknown };
  const parts = [typeof b.status === 'string' && b.status !== 'error' ? b.status : undefined, typeof b.message === 'string' ? b.message.slice(0, 200) : undefined];
  return parts.filter(Boolean).join(': ') || 'no details';
}

/**
 * A host name under hubspot.com, else null: the console puts it in links sales people follow,
 * so nothing else (a path, a scheme, another site) gets there from an answer.
 */
export function hubspotHost(v: unknown): string | null {
  return typeof v === 'string' && v.length <= 100 && /^[a-z0-9-]+(\.[a-z0-9-]+)*\.hubspot\.com$/i.test(v) ? v.toLowerCase() : null;
}

/** What HubSpot's X-HubSpot-RateLimit-* headers said about a portal's budget. */
export interface RateInfo {
  max: number;
  remaining: number;
  intervalMs: number;
}

export interface ApiHooks {
  /** Called right before a paced call leaves (reply push): waits for room in the portal's budget. */
  pace?: (portalId: string) => Promise<void>;
  /** Every answer's rate-limit headers, per portal. */
  observe?: (portalId: string, info: RateInfo) => void;
  /** Every call once it ended, by what it was counted as (the install's own calls: `install`) and how (metrics). */
  ended?: (kind: CallKind, outcome: CallOutcome) => void;
}

function rateInfoOf(h: Headers): RateInfo | undefined {
  const [max, remaining, interval] = ['max', 'remaining', 'interval-milliseconds'].map((k) => h.get(`x-hubspot-ratelimit-${k}`));
  if (!max || !remaining || !interval) return undefined;
  const info = { max: Number(max), remaining: Number(remaining), intervalMs: Number(interval) };
  return Object.values(info).every(Number.isFinite) ? info : undefined;
}

export function hubspotApi(deps: { config: HubSpotConfig; store: Store; clock: Clock; timeoutMs?: number; hooks?: ApiHooks }) {
  const { config, store, clock } = deps;

  async function count(as: CountAs): Promise<void> {
    await store.hubspot.countCall(as.portalId, dayIn(clock.now(), as.timezone), as.kind);
  }

  type CallInit = { method: string; path: string; token?: string; form?: Record<string, string>; json?: unknown; paced?: boolean };

  /** One HTTP call; `what` names it in errors (never the URL: one path holds a token). */
  async function call(what: string, as: CountAs | undefined, init: CallInit): Promise<unknown> {
    // Uncounted calls are the install's (code exchange, token metadata) before its portal is known.
    const kind = as?.kind ?? 'install';
    try {
      const answer = await callOnce(what, as, init);
      deps.hooks?.ended?.(kind, 'ok');
      return answer;
    } catch (err) {
      if (err instanceof HubSpotError) deps.hooks?.ended?.(kind, err.failure);
      throw err;
    }
  }

  async function callOnce(what: string, as: CountAs | undefined, init: CallInit): Promise<unknown> {
    if (as) await count(as);
    if (as && init.paced) await deps.hooks?.pace?.(as.portalId);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    } else if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    let res: Response;
    try {
      res = await fetch(`${config.apiBase}${init.path}`, { method: init.method, headers, body, redirect: 'error', signal: AbortSignal.timeout(deps.timeoutMs ?? CALL_TIMEOUT_MS) });
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError';
      throw new HubSpotError('network', `HubSpot ${what}: ${timedOut ? 'no answer in time' : 'could not connect'}`);
    }
    // A refusal's headers (429: remaining 0) are the refusal's business: reply push pauses the portal for its window.
    const info = as && res.ok && rateInfoOf(res.headers);
    if (info) deps.hooks?.observe?.(as.portalId, info);
    const text = await res.text().catch(() => '');
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (res.ok) return parsed;
    const detail = `HubSpot ${what} answered ${res.status} (${describe(parsed)})`;
    const s = res.status;
    const b = (parsed ?? {}) as { error?: unknown; status?: unknown };
    if (s === 400 && (b.error === 'invalid_grant' || b.status === 'BAD_REFRESH_TOKEN' || b.status === 'BAD_AUTH_CODE')) throw new HubSpotError('invalid_grant', detail, s);
    if (s === 401) throw new HubSpotError('unauthorized', detail, s);
    if (s === 403) throw new HubSpotError('forbidden', detail, s);
    if (s === 404) throw new HubSpotError('not_found', detail, s);
    if (s === 429) throw new HubSpotError('rate_limited', detail, s, retryAfterOf(res.headers) ?? 10);
    if (s >= 500) throw new HubSpotError('server', detail, s, retryAfterOf(res.headers));
    throw new HubSpotError('bad_request', detail, s);
  }

  const tokenSet = (b: unknown): HubSpotTokenSet => {
    const t = b as HubSpotTokenSet;
    if (!t || typeof t.access_token !== 'string' || typeof t.refresh_token !== 'string' || typeof t.expires_in !== 'number') {
      throw new HubSpotError('server', 'HubSpot token endpoint answered without access_token/refresh_token/expires_in');
    }
    return t;
  };

  return {
    count,

    /** The authorization code for tokens; counted by the caller once the portal is known. */
    async exchangeCode(code: string, redirectUri: string): Promise<HubSpotTokenSet> {
      return tokenSet(
        await call('token exchange', undefined, {
          method: 'POST',
          path: '/oauth/v1/token',
          form: { grant_type: 'authorization_code', client_id: config.clientId, client_secret: config.clientSecret, redirect_uri: redirectUri, code },
        }),
      );
    },

    async refresh(refreshToken: string, as: CountAs): Promise<HubSpotTokenSet> {
      return tokenSet(
        await call('token refresh', as, {
          method: 'POST',
          path: '/oauth/v1/token',
          form: { grant_type: 'refresh_token', client_id: config.clientId, client_secret: config.clientSecret, refresh_token: refreshToken },
        }),
      );
    },

    /** Deletes a refresh token at HubSpot (our uninstall): HubSpot answers 204; the token lives in the path, never in an error. */
    async revokeRefreshToken(refreshToken: string, as?: CountAs): Promise<void> {
      await call('refresh token revoke', as, { method: 'DELETE', path: `/oauth/v1/refresh-tokens/${encodeURIComponent(refreshToken)}` });
    },

    /**
     * Removes the app from the access token's account (HubSpot's app uninstalls API): its features
     * there (card, workflow action, webhook subscriptions) are removed and HubSpot emails the
     * account's super admins. HubSpot answers 204 without a body.
     */
    async uninstallApp(accessToken: string, as: CountAs): Promise<void> {
      await call('app uninstall', as, { method: 'DELETE', path: '/appinstalls/v3/external-install', token: accessToken });
    },

    /** The token's portal (hub_id). */
    async tokenInfo(accessToken: string, as?: CountAs): Promise<{ hub_id: number; app_id?: number; user?: string }> {
      const b = (await call('token metadata', as, { method: 'GET', path: `/oauth/v1/access-tokens/${encodeURIComponent(accessToken)}` })) as { hub_id?: unknown };
      if (typeof b?.hub_id !== 'number') throw new HubSpotError('server', 'HubSpot token metadata answered without hub_id');
      return b as { hub_id: number };
    },

    /** `uiDomain`: where the account's HubSpot UI is (app.hubspot.com, app-eu1.hubspot.com, …); null when absent or not a HubSpot host. */
    async accountDetails(accessToken: string, as: CountAs): Promise<{ portalId: number; accountType: string; uiDomain: string | null }> {
      const b = (await call('account details', as, { method: 'GET', path: '/account-info/v3/details', token: accessToken })) as { portalId?: unknown; accountType?: unknown; uiDomain?: unknown };
      if (typeof b?.accountType !== 'string') throw new HubSpotError('server', 'HubSpot account details answered without accountType');
      return { portalId: Number(b.portalId), accountType: b.accountType, uiDomain: hubspotHost(b.uiDomain) };
    },

    async readContact(accessToken: string, contactId: string, properties: string[], as: CountAs): Promise<HubSpotContact> {
      const path = `/crm/v3/objects/contacts/${encodeURIComponent(contactId)}?properties=${properties.map(encodeURIComponent).join(',')}`;
      const b = (await call('contact read', as, { method: 'GET', path, token: accessToken })) as HubSpotContact;
      return { id: String(b?.id ?? contactId), properties: b?.properties ?? {} };
    },

    /** Reply push: a communication on the timeline, then its association to the contact (paced to the portal's budget). */
    async createCommunication(accessToken: string, properties: Record<string, string>, as: CountAs): Promise<{ id: string }> {
      const b = (await call('communication create', as, { method: 'POST', path: '/crm/v3/objects/communications', token: accessToken, json: { properties }, paced: true })) as { id?: unknown };
      if (b?.id === undefined) throw new HubSpotError('server', 'HubSpot communication create answered without id');
      return { id: String(b.id) };
    },

    async associateCommunication(accessToken: string, communicationId: string, contactId: string, as: CountAs): Promise<void> {
      const path = `/crm/v4/objects/communications/${encodeURIComponent(communicationId)}/associations/default/contacts/${encodeURIComponent(contactId)}`;
      await call('association', as, { method: 'PUT', path, token: accessToken, paced: true });
    },

    /**
     * Completes a workflow action answered BLOCK (HubSpot's asynchronous custom action execution):
     * its outputFields carry hs_execution_state SUCCESS or FAIL_CONTINUE. HubSpot answers 204.
     */
    async completeCallback(accessToken: string, callbackId: string, outputFields: Record<string, string>, as: CountAs): Promise<void> {
      const path = `/automation/v4/actions/callbacks/${encodeURIComponent(callbackId)}/complete`;
      await call('workflow callback complete', as, { method: 'POST', path, token: accessToken, json: { outputFields }, paced: true });
    },

    /** Communications logged at exactly `timestampMs` on `channel` (CRM search): finds a create whose answer was lost. */
    async searchCommunications(accessToken: string, timestampMs: number, channel: string, as: CountAs): Promise<{ id: string; properties: Record<string, string | null> }[]> {
      const json = {
        filterGroups: [{ filters: [
          { propertyName: 'hs_timestamp', operator: 'EQ', value: String(timestampMs) },
          { propertyName: 'hs_communication_channel_type', operator: 'EQ', value: channel },
        ] }],
        properties: ['hs_communication_body', 'hs_timestamp', 'hs_communication_channel_type'],
        limit: 100,
      };
      const b = (await call('communication search', as, { method: 'POST', path: '/crm/v3/objects/communications/search', token: accessToken, json, paced: true })) as { results?: unknown };
      if (!Array.isArray(b?.results)) throw new HubSpotError('server', 'HubSpot communication search answered without results');
      return (b.results as { id: unknown; properties?: Record<string, string | null> }[]).map((r) => ({ id: String(r.id), properties: r.properties ?? {} }));
    },
  };
}

export type HubSpotApi = ReturnType<typeof hubspotApi>;
