/**
 * A stand-in HubSpot on loopback, written from HubSpot's public developer docs:
 * OAuth (authorize, POST /oauth/v1/token with a form body, single-use codes,
 * rotating refresh tokens, `BAD_AUTH_CODE` / `BAD_REFRESH_TOKEN` as 400 with
 * `error: "invalid_grant"`), token metadata (GET /oauth/v1/access-tokens/{token}),
 * account details (GET /account-info/v3/details), contacts (GET
 * /crm/v3/objects/contacts/{id}?properties=…), communications (POST
 * /crm/v3/objects/communications; POST …/communications/search with EQ filters,
 * datetime values compared as instants) and their default association (PUT
 * /crm/v4/objects/communications/{id}/associations/default/contacts/{contactId}), the completion
 * of a workflow action answered BLOCK (POST /automation/v4/actions/callbacks/{callbackId}/complete
 * with `{outputFields}`, 204; a second completion of a callback is refused 400 here: HubSpot
 * documents no answer for it), refresh-token deletion (DELETE /oauth/v1/refresh-tokens/{token},
 * no authorization, 204; the token no longer refreshes) and the app uninstalling itself from the
 * account of the bearer token (DELETE /appinstalls/v3/external-install, 204 without a body; the
 * app is removed and the account's tokens stop working).
 * An access token refused before its expiry (revoked, access removed) answers 401 with
 * `category: "INVALID_AUTHENTICATION"`, an expired one `EXPIRED_AUTHENTICATION`.
 * Error bodies take HubSpot's `{status: "error", message, correlationId, category}`.
 *
 * Every request is counted per portal and route; faults (401, 429 with the
 * X-HubSpot-RateLimit-* and Retry-After headers, 5xx, slow answers) are queued per
 * route. Token expiry reads `now()`, so a test clock given here moves it too.
 */
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo, Socket } from 'node:net';

export type AccountType = 'STANDARD' | 'SANDBOX' | 'DEVELOPER_TEST' | 'APP_DEVELOPER';

/** Route keys the counters and faults use. */
export type RouteKey =
  | 'authorize'
  | 'token:authorization_code'
  | 'token:refresh_token'
  | 'token-metadata'
  | 'account-details'
  | 'contact-read'
  | 'communication-create'
  | 'communication-search'
  | 'association-put'
  | 'callback-complete'
  | 'refresh-token-delete'
  | 'app-uninstall';

/**
 * A status fault refuses the request before any work (as HubSpot does for 401/429/…); with
 * `afterWork` the work is done and the answer is replaced (a lost or failed answer after the fact).
 */
export type Fault = { status: 401 | 403 | 404 | 429 | 500 | 502 | 503 | 504; retryAfterSeconds?: number; afterWork?: boolean } | { delayMs: number };

interface Gate {
  headers: Record<string, string>;
  over: boolean;
  fault?: Fault;
}

interface Portal {
  portalId: number;
  accountType: AccountType;
  timeZone: string;
  /**
   * Where HubSpot hosts the account (account details' `dataHostingLocation`, e.g. na1, eu1); its
   * `uiDomain` follows (app.hubspot.com for na1, app-eu1.hubspot.com for eu1, as HubSpot's example shows).
   */
  dataHostingLocation: string;
  contacts: Map<string, Record<string, string | null>>;
  communications: Map<string, Record<string, string>>;
  /** communication id → contact ids */
  associations: Map<string, Set<string>>;
}

interface Grant {
  portalId: number;
  user: string;
  userId: number;
  scopes: string[];
}

export interface StandinOptions {
  clientId: string;
  clientSecret: string;
  appId?: number;
  /** Milliseconds since the epoch; token expiry follows it. */
  now?: () => number;
  /** Per-portal request budget (HubSpot's public-app limit is 110 per 10 s); unset → no limit. */
  rateLimit?: { max: number; intervalMs: number };
}

const correlationId = () => randomUUID();
const hubError = (message: string, category?: string, extra: Record<string, unknown> = {}) => ({ status: 'error', message, correlationId: correlationId(), ...(category && { category }), ...extra });

export async function startHubSpotStandin(opts: StandinOptions) {
  const now = opts.now ?? Date.now;
  const appId = opts.appId ?? 4242;
  /** How long a created communication stays out of search results (HubSpot's index lags its writes); 0 unless a test sets it. */
  let searchLagMs = 0;
  const portals = new Map<number, Portal>();
  const codes = new Map<string, Grant & { redirectUri: string; expiresAt: number; used: boolean }>();
  const refreshTokens = new Map<string, Grant>();
  const accessTokens = new Map<string, Grant & { expiresAt: number }>();
  /** Access tokens HubSpot no longer takes though they have not expired (kept to attribute their requests). */
  const refusedAccess = new Set<string>();
  /** Portals the app was removed from by DELETE /appinstalls/v3/external-install, in order. */
  const appUninstalls: { portalId: number; at: number }[] = [];
  /** Portals where the app is installed (an authorization code exchanged; removed by an app uninstall). */
  const appInstalled = new Set<number>();
  const counts = new Map<string, number>();
  const faults: { route: RouteKey; portalId?: number; fault: Fault }[] = [];
  const windows = new Map<number, number[]>();
  /** Workflow actions completed (asynchronous execution), in order. */
  const completions: { portalId: number; callbackId: string; outputFields: Record<string, unknown>; at: number }[] = [];
  const requests: { route: RouteKey; portalId: number; method: string; url: string; body: string; at: number }[] = [];
  /** 429s the per-portal budget answered. */
  const overBudget = new Map<number, number>();
  let nextPortal: number | undefined;
  let denyNext: { error: string; description: string } | undefined;
  let nextId = 1000;

  const state = {
    /** Seconds an access token lives (HubSpot: 1800). */
    expiresIn: 1800,
    scopes: ['oauth', 'crm.objects.contacts.read', 'crm.objects.contacts.write', 'automation'],
  };

  function addPortal(portalId: number, accountType: AccountType = 'STANDARD', timeZone = 'US/Eastern'): Portal {
    const p: Portal = { portalId, accountType, timeZone, dataHostingLocation: 'na1', contacts: new Map(), communications: new Map(), associations: new Map() };
    portals.set(portalId, p);
    return p;
  }

  function count(portalId: number, route: RouteKey) {
    const key = `${portalId}:${route}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }

  function takeFault(route: RouteKey, portalId: number): Fault | undefined {
    const i = faults.findIndex((f) => f.route === route && (f.portalId === undefined || f.portalId === portalId));
    return i < 0 ? undefined : faults.splice(i, 1)[0]!.fault;
  }

  function issueTokens(grant: Grant) {
    const access = `acc-${grant.portalId}-${randomBytes(16).toString('hex')}`;
    const refresh = `ref-${grant.portalId}-${randomBytes(16).toString('hex')}`;
    accessTokens.set(access, { ...grant, expiresAt: now() + state.expiresIn * 1000 });
    refreshTokens.set(refresh, grant);
    return { token_type: 'bearer', refresh_token: refresh, access_token: access, expires_in: state.expiresIn, hub_id: grant.portalId, scopes: grant.scopes };
  }

  /** HubSpot's rolling per-portal limit: headers on every answer, 429 over it. */
  function rateHeaders(portalId: number): { headers: Record<string, string>; over: boolean } {
    if (!opts.rateLimit) return { headers: {}, over: false };
    const { max, intervalMs } = opts.rateLimit;
    const t = Date.now();
    const w = (windows.get(portalId) ?? []).filter((x) => x > t - intervalMs);
    const over = w.length >= max;
    if (!over) w.push(t);
    windows.set(portalId, w);
    const headers = {
      'X-HubSpot-RateLimit-Max': String(max),
      'X-HubSpot-RateLimit-Remaining': String(Math.max(0, max - w.length)),
      'X-HubSpot-RateLimit-Interval-Milliseconds': String(intervalMs),
    };
    return { headers, over };
  }

  type Answer = { status: number; body?: unknown; headers?: Record<string, string>; gate?: Gate };

  /** Rate limit and faults decided before the work of an API route (a refused request changes nothing). */
  function gateFor(route: RouteKey, portalId: number): Gate & { refusal?: Answer } {
    const limit = rateHeaders(portalId);
    const fault = takeFault(route, portalId);
    if (limit.over) overBudget.set(portalId, (overBudget.get(portalId) ?? 0) + 1);
    if (limit.over) return { ...limit, fault, refusal: { status: 429, headers: { 'Retry-After': '1' }, body: hubError('You have reached your ten_secondly_rolling limit.', undefined, { errorType: 'RATE_LIMIT', policyName: 'TEN_SECONDLY_ROLLING' }) } };
    if (fault && 'status' in fault && !fault.afterWork) return { ...limit, fault, refusal: faultAnswer(fault) };
    return { ...limit, fault };
  }

  /** The bearer token's grant, or why it is refused (with its portal when the token was ever issued). */
  function bearer(req: http.IncomingMessage): { grant: Grant & { expiresAt: number }; token: string } | { refused: 'expired' | 'invalid'; portalId: number } {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const t = token ? accessTokens.get(token) : undefined;
    if (!token || !t) return { refused: 'invalid', portalId: 0 };
    if (refusedAccess.has(token)) return { refused: 'invalid', portalId: t.portalId };
    if (t.expiresAt <= now()) return { refused: 'expired', portalId: t.portalId };
    return { grant: t, token };
  }

  /** Every access token of the portal issued so far is refused from now on (refresh tokens unchanged). */
  function refuseAccessTokens(portalId: number) {
    for (const [t, g] of accessTokens) if (g.portalId === portalId) refusedAccess.add(t);
  }

  const unauthorized = (expired: boolean): Answer => ({
    status: 401,
    body: expired
      ? hubError('The OAuth token used to make this call expired 0 second(s) ago.', 'EXPIRED_AUTHENTICATION')
      : hubError('Authentication credentials not found. This API supports OAuth 2.0 authentication.', 'INVALID_AUTHENTICATION'),
  });

  function route(method: string, path: string): { key: RouteKey; params: string[] } | undefined {
    let m: RegExpExecArray | null;
    if (method === 'GET' && path === '/oauth/authorize') return { key: 'authorize', params: [] };
    if (method === 'POST' && path === '/oauth/v1/token') return { key: 'token:authorization_code', params: [] };
    if (method === 'GET' && (m = /^\/oauth\/v1\/access-tokens\/([^/]+)$/.exec(path))) return { key: 'token-metadata', params: [decodeURIComponent(m[1]!)] };
    if (method === 'DELETE' && (m = /^\/oauth\/v1\/refresh-tokens\/([^/]+)$/.exec(path))) return { key: 'refresh-token-delete', params: [decodeURIComponent(m[1]!)] };
    if (method === 'DELETE' && path === '/appinstalls/v3/external-install') return { key: 'app-uninstall', params: [] };
    if (method === 'POST' && (m = /^\/automation\/v4\/actions\/callbacks\/([^/]+)\/complete$/.exec(path))) return { key: 'callback-complete', params: [decodeURIComponent(m[1]!)] };
    if (method === 'GET' && path === '/account-info/v3/details') return { key: 'account-details', params: [] };
    if (method === 'GET' && (m = /^\/crm\/v3\/objects\/contacts\/([^/]+)$/.exec(path))) return { key: 'contact-read', params: [m[1]!] };
    if (method === 'POST' && path === '/crm/v3/objects/communications') return { key: 'communication-create', params: [] };
    if (method === 'POST' && path === '/crm/v3/objects/communications/search') return { key: 'communication-search', params: [] };
    if (method === 'PUT' && (m = /^\/crm\/v4\/objects\/communications\/([^/]+)\/associations\/default\/contacts\/([^/]+)$/.exec(path))) {
      return { key: 'association-put', params: [m[1]!, m[2]!] };
    }
    return undefined;
  }

  function handle(req: http.IncomingMessage, raw: string): Answer & { portalId: number; route?: RouteKey } {
    const url = new URL(req.url ?? '/', 'http://standin');
    const r = route(req.method ?? 'GET', url.pathname);
    if (!r) return { status: 404, body: hubError(`no route ${req.method} ${url.pathname}`), portalId: 0 };
    const q = url.searchParams;

    if (r.key === 'authorize') {
      const redirect = q.get('redirect_uri');
      if (q.get('client_id') !== opts.clientId || !redirect) return { status: 400, body: hubError('invalid client_id or redirect_uri'), portalId: 0, route: r.key };
      const target = new URL(redirect);
      if (denyNext) {
        target.searchParams.set('error', denyNext.error);
        target.searchParams.set('error_description', denyNext.description);
        denyNext = undefined;
      } else {
        const portalId = nextPortal ?? [...portals.keys()][0]!;
        const code = `code-${randomBytes(12).toString('hex')}`;
        codes.set(code, { portalId, user: 'rep@example.com', userId: 77, scopes: (q.get('scope') ?? '').split(' ').filter(Boolean), redirectUri: redirect, expiresAt: now() + 10 * 60_000, used: false });
        target.searchParams.set('code', code);
      }
      if (q.get('state') !== null) target.searchParams.set('state', q.get('state')!);
      return { status: 302, headers: { location: target.toString() }, portalId: 0, route: r.key };
    }

    if (r.key === 'token:authorization_code') {
      const form = new URLSearchParams(raw);
      const grantType = form.get('grant_type');
      const key: RouteKey = grantType === 'refresh_token' ? 'token:refresh_token' : 'token:authorization_code';
      if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
        return { status: 400, body: hubError('the token endpoint takes a form body', 'VALIDATION_ERROR'), portalId: 0, route: key };
      }
      if (form.get('client_id') !== opts.clientId || form.get('client_secret') !== opts.clientSecret) {
        return { status: 400, body: { status: 'BAD_CLIENT_ID', message: 'missing or invalid client id / secret', correlationId: correlationId(), error: 'invalid_client' }, portalId: 0, route: key };
      }
      if (grantType === 'authorization_code') {
        const c = codes.get(form.get('code') ?? '');
        if (!c || c.used || c.expiresAt <= now() || c.redirectUri !== form.get('redirect_uri')) {
          return { status: 400, body: { status: 'BAD_AUTH_CODE', message: 'missing or unknown auth code', correlationId: correlationId(), error: 'invalid_grant', error_description: 'missing or unknown auth code' }, portalId: c?.portalId ?? 0, route: key };
        }
        c.used = true;
        appInstalled.add(c.portalId);
        return { status: 200, body: issueTokens(c), portalId: c.portalId, route: key };
      }
      if (grantType === 'refresh_token') {
        const token = form.get('refresh_token') ?? '';
        const g = refreshTokens.get(token);
        const portalId = g?.portalId ?? Number(/^ref-(\d+)-/.exec(token)?.[1] ?? 0);
        if (!g) {
          return { status: 400, body: { status: 'BAD_REFRESH_TOKEN', message: 'missing or unknown refresh token', correlationId: correlationId(), error: 'invalid_grant', error_description: 'missing or unknown refresh token' }, portalId, route: key };
        }
        // Rotation: the old refresh token is spent.
        refreshTokens.delete(token);
        return { status: 200, body: issueTokens(g), portalId, route: key };
      }
      return { status: 400, body: hubError(`unsupported grant_type ${grantType}`, 'VALIDATION_ERROR'), portalId: 0, route: key };
    }

    if (r.key === 'token-metadata') {
      const t = accessTokens.get(r.params[0]!);
      if (!t || t.expiresAt <= now() || refusedAccess.has(r.params[0]!)) return { status: 404, body: hubError('access token not found or expired', 'OBJECT_NOT_FOUND'), portalId: t?.portalId ?? 0, route: r.key };
      const body = { token: r.params[0], user: t.user, hub_domain: `portal-${t.portalId}.example.com`, scopes: t.scopes, scope_to_scope_group_pks: [], hub_id: t.portalId, app_id: appId, expires_in: Math.round((t.expiresAt - now()) / 1000), user_id: t.userId, token_type: 'access' };
      return { status: 200, body, portalId: t.portalId, route: r.key };
    }

    if (r.key === 'refresh-token-delete') {
      const g = refreshTokens.get(r.params[0]!);
      if (!g) return { status: 404, body: hubError('refresh token not found', 'OBJECT_NOT_FOUND'), portalId: 0, route: r.key };
      const fault = takeFault(r.key, g.portalId);
      if (fault && 'status' in fault) return { ...faultAnswer(fault), portalId: g.portalId, route: r.key, gate: { headers: {}, over: false } };
      refreshTokens.delete(r.params[0]!);
      return { status: 204, portalId: g.portalId, route: r.key, gate: { headers: {}, over: false } };
    }

    const auth = bearer(req);
    if ('refused' in auth) return { ...unauthorized(auth.refused === 'expired'), portalId: auth.portalId, route: r.key };
    const portal = portals.get(auth.grant.portalId)!;
    const gate = gateFor(r.key, portal.portalId);
    if (gate.refusal) return { ...gate.refusal, portalId: portal.portalId, route: r.key, gate };
    if (r.key === 'app-uninstall') {
      // The app leaves the account: its card and webhooks go, and the account's tokens stop working.
      appInstalled.delete(portal.portalId);
      appUninstalls.push({ portalId: portal.portalId, at: now() });
      refuseAccessTokens(portal.portalId);
      for (const [t, g] of refreshTokens) if (g.portalId === portal.portalId) refreshTokens.delete(t);
      return { status: 204, portalId: portal.portalId, route: r.key, gate };
    }
    return { ...apiAnswer(r, portal, raw, q), gate };
  }

  function apiAnswer(r: { key: RouteKey; params: string[] }, portal: Portal, raw: string, q: URLSearchParams): Answer & { portalId: number; route: RouteKey } {
    if (r.key === 'account-details') {
      const body = { portalId: portal.portalId, accountType: portal.accountType, timeZone: portal.timeZone, companyCurrency: 'USD', additionalCurrencies: [], utcOffset: '-05:00', utcOffsetMilliseconds: -18_000_000, uiDomain: uiDomainOf(portal.dataHostingLocation), dataHostingLocation: portal.dataHostingLocation };
      return { status: 200, body, portalId: portal.portalId, route: r.key };
    }
    if (r.key === 'contact-read') {
      const c = portal.contacts.get(r.params[0]!);
      if (!c) return { status: 404, body: hubError('resource not found', 'OBJECT_NOT_FOUND'), portalId: portal.portalId, route: r.key };
      const wanted = (q.get('properties') ?? '').split(',').filter(Boolean);
      const properties: Record<string, string | null> = { createdate: c.createdate!, hs_object_id: r.params[0]!, lastmodifieddate: c.lastmodifieddate! };
      for (const p of wanted) properties[p] = c[p] ?? null;
      return { status: 200, body: { id: r.params[0], properties, createdAt: c.createdate, updatedAt: c.lastmodifieddate, archived: false }, portalId: portal.portalId, route: r.key };
    }
    if (r.key === 'communication-create') {
      let input: { properties?: Record<string, string> };
      try {
        input = JSON.parse(raw);
      } catch {
        return { status: 400, body: hubError('Invalid input JSON', 'VALIDATION_ERROR'), portalId: portal.portalId, route: r.key };
      }
      const id = String(nextId++);
      const at = new Date(now()).toISOString();
      const properties = { ...input.properties, hs_createdate: at, hs_lastmodifieddate: at, hs_object_id: id };
      portal.communications.set(id, properties);
      return { status: 201, body: { id, properties, createdAt: at, updatedAt: at, archived: false }, portalId: portal.portalId, route: r.key };
    }
    if (r.key === 'communication-search') {
      let input: { filterGroups?: { filters?: { propertyName: string; operator: string; value?: string }[] }[]; properties?: string[]; limit?: number };
      try {
        input = JSON.parse(raw);
      } catch {
        return { status: 400, body: hubError('Invalid input JSON', 'VALIDATION_ERROR'), portalId: portal.portalId, route: r.key };
      }
      // HubSpot datetimes are compared as instants: ms or ISO on either side.
      const same = (a: string | undefined, b: string | undefined) => {
        if (a === b) return true;
        const ms = (v?: string) => (v === undefined ? NaN : /^\d+$/.test(v) ? Number(v) : Date.parse(v));
        return !Number.isNaN(ms(a)) && ms(a) === ms(b);
      };
      const groups = input.filterGroups ?? [];
      const hits = [...portal.communications].filter(([, props]) =>
        now() - Date.parse(props.hs_createdate!) >= searchLagMs && (groups.length === 0 || groups.some((g) => (g.filters ?? []).every((f) => f.operator === 'EQ' && same(props[f.propertyName], f.value)))),
      );
      const wanted = input.properties ?? [];
      const results = hits.slice(0, input.limit ?? 10).map(([id, props]) => ({
        id,
        properties: Object.fromEntries([...wanted, 'hs_object_id'].map((k) => [k, props[k] ?? null])),
        createdAt: props.hs_createdate,
        updatedAt: props.hs_lastmodifieddate,
        archived: false,
      }));
      return { status: 200, body: { total: hits.length, results }, portalId: portal.portalId, route: r.key };
    }
    if (r.key === 'callback-complete') {
      let input: { outputFields?: Record<string, unknown> };
      try {
        input = JSON.parse(raw);
      } catch {
        return { status: 400, body: hubError('Invalid input JSON', 'VALIDATION_ERROR'), portalId: portal.portalId, route: r.key };
      }
      const state = input.outputFields?.hs_execution_state;
      if (state !== 'SUCCESS' && state !== 'FAIL_CONTINUE') return { status: 400, body: hubError('outputFields.hs_execution_state must be SUCCESS or FAIL_CONTINUE', 'VALIDATION_ERROR'), portalId: portal.portalId, route: r.key };
      if (completions.some((c) => c.callbackId === r.params[0])) return { status: 400, body: hubError(`callback ${r.params[0]} is already completed`, 'VALIDATION_ERROR'), portalId: portal.portalId, route: r.key };
      completions.push({ portalId: portal.portalId, callbackId: r.params[0]!, outputFields: input.outputFields!, at: now() });
      return { status: 204, portalId: portal.portalId, route: r.key };
    }
    // association-put
    const [commId, contactId] = r.params as [string, string];
    if (!portal.communications.has(commId) || !portal.contacts.has(contactId)) {
      return { status: 404, body: hubError('resource not found', 'OBJECT_NOT_FOUND'), portalId: portal.portalId, route: r.key };
    }
    const set = portal.associations.get(commId) ?? new Set<string>();
    set.add(contactId);
    portal.associations.set(commId, set);
    const at = new Date(now()).toISOString();
    const body = { status: 'COMPLETE', results: [{ from: { id: commId }, to: { id: contactId }, associationSpec: { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 81 } }], startedAt: at, completedAt: at };
    return { status: 200, body, portalId: portal.portalId, route: r.key };
  }

  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const answer = handle(req, raw);
      const key = answer.route;
      const portalId = answer.portalId;
      let out: Answer = answer;
      if (key) {
        count(portalId, key);
        requests.push({ route: key, portalId, method: req.method ?? '', url: req.url ?? '', body: raw, at: Date.now() });
        const gated = answer.gate !== undefined;
        const gate: Gate = answer.gate ?? { ...rateHeaders(portalId), fault: takeFault(key, portalId) };
        const fault = gate.fault;
        if (fault && 'delayMs' in fault) await new Promise((r) => setTimeout(r, fault.delayMs));
        if (!gated && gate.over) {
          overBudget.set(portalId, (overBudget.get(portalId) ?? 0) + 1);
          out = { status: 429, headers: { 'Retry-After': '1' }, body: hubError('You have reached your ten_secondly_rolling limit.', undefined, { errorType: 'RATE_LIMIT', policyName: 'TEN_SECONDLY_ROLLING' }) };
        } else if (fault && 'status' in fault && (!gated || fault.afterWork)) {
          out = faultAnswer(fault);
        }
        out = { status: out.status, body: out.body, headers: { ...gate.headers, ...out.headers } };
      }
      if (res.destroyed) return;
      res.writeHead(out.status, { ...(out.body !== undefined && { 'content-type': 'application/json;charset=utf-8' }), ...out.headers });
      res.end(out.body === undefined ? undefined : JSON.stringify(out.body));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    state,
    addPortal,
    portal: (id: number) => portals.get(id),
    /** A contact in `portalId`; returns its id. */
    addContact(portalId: number, properties: Record<string, string | null>, id = String(nextId++)): string {
      const at = new Date(now()).toISOString();
      portals.get(portalId)!.contacts.set(id, { createdate: at, lastmodifieddate: at, ...properties });
      return id;
    },
    deleteContact: (portalId: number, id: string) => portals.get(portalId)!.contacts.delete(id),
    /** Hosts the portal elsewhere (e.g. 'eu1'): account details answer that location and its uiDomain. */
    hostIn(portalId: number, location: string) {
      portals.get(portalId)!.dataHostingLocation = location;
    },
    /** The portal the next authorize grants (else the first portal added). */
    authorizeAs(portalId: number) {
      nextPortal = portalId;
    },
    /** The next authorize redirects back with `error` (the user clicked "deny"). */
    denyNextAuthorize(error = 'access_denied', description = 'The user denied access') {
      denyNext = { error, description };
    },
    /** Search finds a communication only this long (the clock given as `now`) after its creation, as HubSpot's index lags. */
    setSearchLag(ms: number) {
      searchLagMs = ms;
    },
    /** Queues a fault for the next request on `route` (optionally only for one portal); `times` copies. */
    fault(route: RouteKey, fault: Fault, opts: { portalId?: number; times?: number } = {}) {
      for (let i = 0; i < (opts.times ?? 1); i++) faults.push({ route, portalId: opts.portalId, fault });
    },
    /** Requests received for `portalId` on `route` (every route when omitted). */
    calls(portalId: number, route?: RouteKey): number {
      if (route) return counts.get(`${portalId}:${route}`) ?? 0;
      let n = 0;
      for (const [k, v] of counts) if (k.startsWith(`${portalId}:`)) n += v;
      return n;
    },
    resetCalls() {
      counts.clear();
      requests.length = 0;
    },
    requests,
    /** Workflow actions completed through the callbacks API, in order. */
    completions,
    /** Whether a refresh token still refreshes (a deleted one does not). */
    refreshTokenLive: (token: string) => refreshTokens.has(token),
    /** How many requests the per-portal budget (rateLimit) refused with 429. */
    overBudget: (portalId: number) => overBudget.get(portalId) ?? 0,
    /** Every token issued so far (access and refresh), to look for them where they must not be. */
    issuedTokens: () => [...accessTokens.keys(), ...refreshTokens.keys()],
    /** Revokes every refresh token of a portal (an uninstall on HubSpot's side). */
    revokeRefreshTokens(portalId: number) {
      for (const [t, g] of refreshTokens) if (g.portalId === portalId) refreshTokens.delete(t);
    },
    /** HubSpot stops taking the portal's access tokens issued so far, before their expiry (access removed, token revoked): 401 INVALID_AUTHENTICATION. A refresh still works. */
    refuseAccessTokens,
    /** Whether the app is installed in the portal (an install completed, not removed since by the app uninstall API). */
    appInstalled: (portalId: number) => appInstalled.has(portalId),
    /** The app uninstalls HubSpot took (DELETE /appinstalls/v3/external-install), in order. */
    appUninstalls,
    expireAccessTokens(portalId: number) {
      for (const t of accessTokens.values()) if (t.portalId === portalId) t.expiresAt = 0;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function faultAnswer(fault: { status: number; retryAfterSeconds?: number }): { status: number; body: unknown; headers?: Record<string, string> } {
  if (fault.status === 401) return { status: 401, body: hubError('Authentication credentials not found.', 'INVALID_AUTHENTICATION') };
  if (fault.status === 429) {
    return {
      status: 429,
      headers: { 'Retry-After': String(fault.retryAfterSeconds ?? 10), 'X-HubSpot-RateLimit-Max': '110', 'X-HubSpot-RateLimit-Remaining': '0', 'X-HubSpot-RateLimit-Interval-Milliseconds': '10000' },
      body: hubError('You have reached your ten_secondly_rolling limit.', undefined, { errorType: 'RATE_LIMIT', policyName: 'TEN_SECONDLY_ROLLING' }),
    };
  }
  if (fault.status === 403) return { status: 403, body: hubError('This app hasn\'t been granted all required scopes to make this call.', 'MISSING_SCOPES') };
  if (fault.status === 404) return { status: 404, body: hubError('resource not found', 'OBJECT_NOT_FOUND') };
  return { status: fault.status, body: hubError('internal error', 'INTERNAL_ERROR') };
}

export type HubSpotStandin = Awaited<ReturnType<typeof startHubSpotStandin>>;

/** The UI domain HubSpot answers for a hosting location: app.hubspot.com in na1, app-<location>.hubspot.com elsewhere (its docs' eu1 example). */
const uiDomainOf = (location: string) => (location === 'na1' ? 'app.hubspot.com' : `app-${location}.hubspot.com`);
