/**
 * Installing HubSpot for a tenant: a single-use OAuth state (10 minutes, by the
 * clock; only its hash is stored), the callback (code → tokens → hub_id → account
 * type → install, within the tenant's slots: sandbox portals take none, a
 * reinstall replaces the tokens), and the tenant's view of its installs.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { DomainError } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { HubSpotConfig } from '../../config.js';
import type { Store, Tenant, HubSpotInstall, HubSpotAutoSend, HeldAction, HeldActionCounts } from '../../store/index.js';
import { localDayStart } from '../../domain/messaging/limits.js';
import { sendsFrom } from '../../domain/lines/service.js';
import { dayIn, HubSpotError, type CallKind, type HubSpotApi } from './client.js';
import { fromHubSpot } from './errors.js';
import type { ReplyPushJob, ReplyPushStatus } from './push-job.js';
import type { TokenKeeper } from './tokens.js';
import { uiDomains } from './ui-domain.js';

export const STATE_TTL_MS = 10 * 60_000;
export const SANDBOX_ACCOUNT_TYPES = new Set(['SANDBOX', 'DEVELOPER_TEST', 'APP_DEVELOPER']);
/**
 * Counted against the CRM daily limit: every call into HubSpot but a token refresh (the spec's one
 * exception), so also a held workflow action's completion (the synchronous action makes none).
 */
const COUNTED_KINDS = ['sidebar_load', 'sidebar_send', 'contact_created', 'reply_push', 'workflow_callback'] as const satisfies readonly CallKind[];
type CountedKind = (typeof COUNTED_KINDS)[number];

/** HubSpot calls of a portal today, in the tenant's timezone: the kinds counted against its budget, and token refreshes apart. */
export interface CallsToday {
  counted: Record<CountedKind, number>;
  tokenRefresh: number;
  totalCounted: number;
}

/** An install as its tenant sees it (never its tokens). */
export interface InstallSummary {
  install: HubSpotInstall;
  callsToday: CallsToday;
  firstTouchCapReachedToday: boolean;
  heldActions: HeldActionCounts;
}

/** The tenant's installs and its reply push. */
export interface InstallsOverview {
  installs: InstallSummary[];
  replyPush: ReplyPushStatus;
}

/** Where to send the browser to install: HubSpot's authorize URL with a single-use state. */
export interface InstallStart {
  installUrl: string;
  expiresAt: number;
}

/** A portal the OAuth callback connected, and to which tenant. */
export interface PortalConnected {
  tenantSlug: string;
  portalId: string;
  accountType: string;
  sandbox: boolean;
}

/** An uninstall: the install as it now is, and whether HubSpot removed the app from the portal. */
export interface Uninstalled {
  summary: InstallSummary;
  appRemoved: boolean;
  /** It was uninstalled before (another tab, an API call): nothing was done. */
  alreadyUninstalled: boolean;
}

/** A page of a portal's workflow actions held for time, newest first. */
export interface HeldActionPage {
  heldActions: HeldAction[];
  /** The chat of each sent message on the page (message id → chat id), for a link to the conversation. */
  chats: Map<string, string>;
  nextCursor: string | null;
}

/** A page of a portal's contact-creation records, newest first. */
export interface AutoSendPage {
  autoSends: HubSpotAutoSend[];
  /** The chat of each sent message on the page (message id → chat id), for a link to the conversation. */
  chats: Map<string, string>;
  nextCursor: string | null;
}

const hashState = (state: string) => createHash('sha256').update(state).digest('hex');

export function hubspotInstalls(deps: { store: Store; clock: Clock; config: HubSpotConfig; api: HubSpotApi; tokens: TokenKeeper; redirectUri: string; logger?: Logger; replyPush: Pick<ReplyPushJob, 'status'> }) {
  const { store, clock, config, api } = deps;
  const domains = uiDomains({ store, clock, api, tokens: deps.tokens, logger: deps.logger });

  /** What kind of failure a HubSpot call met, for a log line: never HubSpot's text (it may quote a token). */
  const failureOf = (err: unknown) =>
    err instanceof HubSpotError ? { failure: err.failure, status: err.status } : err instanceof DomainError ? { failure: 'refused', code: err.code } : { failure: 'unexpected' };

  /**
   * HubSpot's app uninstall with the portal's access token (refreshed first when it expired, and
   * once more on 401: tokens.withToken), best effort: whether HubSpot took it.
   */
  async function removeApp(tenant: Tenant, portalId: string): Promise<boolean> {
    try {
      await deps.tokens.withToken(portalId, (token) => api.uninstallApp(token, { portalId, timezone: tenant.timezone, kind: 'install' }));
      return true;
    } catch (err) {
      deps.logger?.warn({ tenant: tenant.slug, portal_id: portalId, ...failureOf(err) }, 'HubSpot did not remove the app from the portal; the uninstall stands (a portal admin can remove it in HubSpot)');
      return false;
    }
  }

  const chatsOf = (tenant: Tenant, rows: readonly { message_id: string | null }[]) =>
    store.messages.chatsOf(tenant.id, rows.flatMap((r) => (r.message_id ? [r.message_id] : [])));

  async function ownInstall(tenant: Tenant, portalId: string): Promise<HubSpotInstall> {
    const install = await store.hubspot.getInstall(portalId);
    if (!install || install.tenant_id !== tenant.id) throw new DomainError(2011, `this project has no HubSpot install for portal ${portalId}`);
    return install;
  }

  async function summary(tenant: Tenant, install: HubSpotInstall, capReached: boolean): Promise<InstallSummary> {
    const counts = await store.hubspot.callCounts(install.portal_id, dayIn(clock.now(), tenant.timezone));
    const counted = Object.fromEntries(COUNTED_KINDS.map((k) => [k, counts[k] ?? 0])) as Record<CountedKind, number>;
    return {
      install: { ...install, ui_domain: await domains.of(install, tenant.timezone) },
      callsToday: { counted, tokenRefresh: counts.token_refresh ?? 0, totalCounted: COUNTED_KINDS.reduce((n, k) => n + counted[k], 0) },
      firstTouchCapReachedToday: capReached,
      heldActions: await store.hubspotHeld.counts(tenant.id, install.portal_id),
    };
  }

  async function capReached(tenant: Tenant): Promise<boolean> {
    const since = localDayStart(clock.now(), tenant.timezone);
    return (await store.messages.tenantFirstTouches(tenant.id, since)) >= tenant.daily_first_touch_cap;
  }

  return {
    async startInstall(tenant: Tenant): Promise<InstallStart> {
      const state = randomBytes(24).toString('base64url');
      const now = clock.now();
      await store.hubspot.insertState({ state_hash: hashState(state), tenant_id: tenant.id, created_at: now, expires_at: now + STATE_TTL_MS });
      const q = [
        ['client_id', config.clientId],
        ['redirect_uri', deps.redirectUri],
        ['scope', config.scopes],
        ['state', state],
      ].map(([k, v]) => `${k}=${encodeURIComponent(v!)}`);
      return { installUrl: `${config.authBase}/oauth/authorize?${q.join('&')}`, expiresAt: now + STATE_TTL_MS };
    },

    /** The OAuth callback; answers which portal is now connected to which tenant. */
    async completeInstall(q: { code?: string; state?: string; error?: string; errorDescription?: string }): Promise<PortalConnected> {
      if (q.error) throw new DomainError(1002, `HubSpot did not authorize the install: ${q.error}${q.errorDescription ? ` (${q.errorDescription.slice(0, 300)})` : ''}`);
      const tenantId = q.state ? await store.hubspot.consumeState(hashState(q.state), clock.now()) : undefined;
      if (!tenantId) throw new DomainError(2014, 'OAuth state is unknown, expired (10 minutes) or already used: start the install again');
      const tenant = await store.tenants.getById(tenantId);
      if (!tenant) throw new DomainError(2014, 'OAuth state belongs to a project that no longer exists');
      if (!q.code) throw new DomainError(1001, 'missing required query field \'code\'');
      try {
        const tokens = await api.exchangeCode(q.code, deps.redirectUri);
        const info = await api.tokenInfo(tokens.access_token);
        const portalId = String(info.hub_id);
        const as = { portalId, timezone: tenant.timezone, kind: 'install' as const };
        // The exchange and the metadata read happened before the portal was known: counted now.
        await api.count(as);
        await api.count(as);
        const details = await api.accountDetails(tokens.access_token, as);
        const sandbox = SANDBOX_ACCOUNT_TYPES.has(details.accountType);
        const existing = await store.hubspot.getInstall(portalId);
        if (existing && existing.tenant_id !== tenant.id && existing.status !== 'uninstalled') {
          throw new DomainError(1012, `HubSpot portal ${portalId} is connected to another project; uninstall it there first`);
        }
        if (!sandbox) {
          const used = await store.hubspot.productionInstalls(tenant.id, portalId);
          const slots = tenant.crm_install_slots ?? 1;
          if (used >= slots) throw new DomainError(2008, `project "${tenant.slug}" uses ${used} of ${slots} HubSpot install slot(s); sandbox portals take none. Uninstall a portal or ask the operator for more slots`);
        }
        const now = clock.now();
        const saved = await store.hubspot.saveInstall({
          portal_id: portalId,
          tenant_id: tenant.id,
          account_type: details.accountType,
          sandbox,
          ui_domain: details.uiDomain,
          tokens: { access_token: tokens.access_token, refresh_token: tokens.refresh_token, expires_at: now + tokens.expires_in * 1000 },
          now,
        });
        // Another project's install of the portal got there between our read above and our write: it keeps the portal.
        if (saved === 'taken') throw new DomainError(1012, `HubSpot portal ${portalId} is connected to another project; uninstall it there first`);
        deps.logger?.info({ tenant: tenant.slug, portal_id: portalId, account_type: details.accountType, reinstall: saved === 'reinstalled', moved: saved === 'moved' }, 'HubSpot portal connected');
        return { tenantSlug: tenant.slug, portalId, accountType: details.accountType, sandbox };
      } catch (err) {
        if (err instanceof HubSpotError && err.failure === 'invalid_grant') throw new DomainError(1002, 'HubSpot refused the authorization code (used, expired or for another redirect URL): start the install again');
        throw fromHubSpot(err);
      }
    },

    async list(tenant: Tenant): Promise<InstallsOverview> {
      const installs = await store.hubspot.listInstalls(tenant.id);
      const reached = await capReached(tenant);
      return { installs: await Promise.all(installs.map((i) => summary(tenant, i, reached))), replyPush: await deps.replyPush.status(tenant.id) };
    },

    async get(tenant: Tenant, portalId: string): Promise<InstallSummary> {
      return summary(tenant, await ownInstall(tenant, portalId), await capReached(tenant));
    },

    /** Auto-send is off until configured: enabling it needs a non-empty template. */
    async update(tenant: Tenant, portalId: string, patch: { autoSend?: { enabled?: boolean; template?: string; lineId?: string | null } }): Promise<InstallSummary> {
      const install = await ownInstall(tenant, portalId);
      if (install.status === 'uninstalled') throw new DomainError(1012, `HubSpot portal ${portalId} is uninstalled; install it again first`);
      const a = patch.autoSend ?? {};
      const next = {
        enabled: a.enabled ?? install.auto_send.enabled,
        template: a.template !== undefined ? a.template : install.auto_send.template,
        line_id: a.lineId !== undefined ? a.lineId : install.auto_send.line_id,
      };
      if (next.enabled && !next.template?.trim()) throw new DomainError(1002, 'auto_send.enabled needs a non-empty auto_send.template (auto-send is off until configured)');
      if (next.line_id) {
        const line = await store.lines.get(next.line_id);
        if (!line || line.tenant_id !== tenant.id) throw new DomainError(2006, `line_id ${next.line_id} is not assigned to this project`);
        if (!sendsFrom(line)) throw new DomainError(1002, `line ${next.line_id} cannot send (inactive or without the send capability)`);
      }
      await store.hubspot.setAutoSend(portalId, next, clock.now());
      return this.get(tenant, portalId);
    },

    /**
     * First the app is removed from the HubSpot portal (HubSpot's app uninstall API, with the
     * portal's access token: so while we still hold it), best effort: a failure is logged and the
     * uninstall stands. Then our tokens are deleted, not just flagged (later CRM calls for the
     * portal answer 2001), and the refresh token is revoked at HubSpot, best effort too (a failure
     * logged, never the token). Once HubSpot removed the app, a revoke refused because the token
     * is already gone is what we expect, not a failure.
     */
    async uninstall(tenant: Tenant, portalId: string): Promise<Uninstalled> {
      const install = await ownInstall(tenant, portalId);
      // A repeat (another tab or an API call got there first): the same answer, saying so, and nothing done again.
      if (install.status === 'uninstalled') return { summary: await this.get(tenant, portalId), appRemoved: false, alreadyUninstalled: true };
      const appRemoved = install.status === 'active' ? await removeApp(tenant, portalId) : false;
      // Read after the app uninstall: a refresh on its way rotated the refresh token.
      const tokens = await store.hubspot.tokens(portalId);
      await store.hubspot.uninstall(portalId, clock.now());
      deps.logger?.info({ tenant: tenant.slug, portal_id: portalId, app_removed: appRemoved }, 'HubSpot portal uninstalled');
      if (tokens) {
        try {
          await api.revokeRefreshToken(tokens.refresh_token, { portalId, timezone: tenant.timezone, kind: 'install' });
        } catch (err) {
          const gone = appRemoved && err instanceof HubSpotError && (err.failure === 'not_found' || err.failure === 'bad_request' || err.failure === 'invalid_grant');
          if (!gone) deps.logger?.warn({ tenant: tenant.slug, portal_id: portalId, ...failureOf(err) }, 'HubSpot refresh token could not be revoked at HubSpot; the uninstall stands (our tokens are deleted)');
        }
      }
      return { summary: await this.get(tenant, portalId), appRemoved, alreadyUninstalled: false };
    },

    /** The portal's workflow actions held for time, newest first; the cursor is the last row's id. */
    async heldActions(tenant: Tenant, portalId: string, q: { state?: HeldAction['state']; cursor?: string; limit?: number }): Promise<HeldActionPage> {
      await ownInstall(tenant, portalId);
      const limit = q.limit ?? 50;
      const { page, nextCursor } = pageOf(await store.hubspotHeld.list(tenant.id, portalId, { state: q.state, before: q.cursor, limit: limit + 1 }), limit);
      return { heldActions: page, chats: await chatsOf(tenant, page), nextCursor };
    },

    /** The portal's contact-creation records, newest first; the cursor is the last row's id. */
    async autoSends(tenant: Tenant, portalId: string, q: { status?: HubSpotAutoSend['status']; cursor?: string; limit?: number }): Promise<AutoSendPage> {
      await ownInstall(tenant, portalId);
      const limit = q.limit ?? 50;
      const { page, nextCursor } = pageOf(await store.hubspot.listAutoSends(tenant.id, portalId, { status: q.status, before: q.cursor, limit: limit + 1 }), limit);
      return { autoSends: page, chats: await chatsOf(tenant, page), nextCursor };
    },
  };
}

export type HubSpotInstalls = ReturnType<typeof hubspotInstalls>;

/** One page of `limit` from rows fetched `limit + 1` at a time, newest first: the cursor is the page's last id when more remain. */
function pageOf<R extends { id: string }>(rows: R[], limit: number): { page: R[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  return { page, nextCursor: rows.length > limit ? page[page.length - 1]!.id : null };
}
