/**
 * Operator-facing rules for accounts, tenants and their settings. The admin
 * API and the demo sandbox call these; they never touch HTTP.
 */
import { DomainError } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { Store, Account, Tenant } from '../../store/index.js';
import { ids } from '../ids.js';
import type { Credential } from './auth.js';
import { TENANT_DEFAULTS, assertRateLimit, assertSendingWindow, assertSlug, canonicalTimezone, quotedSlug } from './settings.js';

export interface TenantSettingsInput {
  name?: string;
  timezone?: string;
  sending_window?: { start: string; end: string };
  daily_first_touch_cap?: number;
  rate_limit?: { per_second: number; burst: number };
  status?: 'active' | 'suspended';
  crm_install_slots?: number;
}

export function accountsService(deps: {
  store: Store;
  clock: Clock;
  secretOverlapMs: number;
  /** Told after every change, so cached authentication forgets at once. */
  onChange?: () => void;
}) {
  const { store, clock } = deps;
  const changed = () => deps.onChange?.();

  function applySettings(t: Tenant, s: TenantSettingsInput): Tenant {
    const next: Tenant = {
      ...t,
      ...(s.name !== undefined && { name: s.name }),
      ...(s.timezone !== undefined && { timezone: s.timezone }),
      ...(s.sending_window !== undefined && { sending_window: s.sending_window }),
      ...(s.daily_first_touch_cap !== undefined && { daily_first_touch_cap: s.daily_first_touch_cap }),
      ...(s.rate_limit !== undefined && { rate_limit: s.rate_limit }),
      ...(s.status !== undefined && { status: s.status }),
      ...(s.crm_install_slots !== undefined && { crm_install_slots: s.crm_install_slots }),
    };
    next.timezone = canonicalTimezone(next.timezone, s.timezone !== undefined);
    assertSendingWindow(next.sending_window);
    assertRateLimit(next.rate_limit);
    if (!Number.isInteger(next.daily_first_touch_cap) || next.daily_first_touch_cap < 0) {
      throw new DomainError(1002, 'daily_first_touch_cap must be an integer ≥ 0');
    }
    return next;
  }

  return {
    /** A new account and its signing secret, which is shown this once. */
    async createAccount(input: { name: string; multi_tenant?: boolean; email_verified?: boolean }): Promise<{ account: Account; signingSecret: string }> {
      const account: Account = {
        id: ids.account(),
        name: input.name,
        multi_tenant: input.multi_tenant ?? false,
        email_verified: input.email_verified ?? true,
        created_at: clock.now(),
      };
      const signingSecret = ids.signingSecret();
      await store.accounts.insert(account, { id: ids.secret(), plain: signingSecret });
      return { account, signingSecret };
    },

    /**
     * Runs `fn` while no other process runs a `firstStart`: processes starting together on an
     * empty database make one demo sandbox (demo.ts), not one each.
     */
    firstStart: <T>(fn: () => Promise<T>): Promise<T> => store.exclusive('blueline:first-start', fn),

    /** The account's newest live signing secret (the demo sandbox another process made). */
    async liveSigningSecret(accountId: string): Promise<string | undefined> {
      return (await store.accounts.liveSecrets(accountId, clock.now()))[0];
    },

    async getAccount(id: string): Promise<Account> {
      const account = await store.accounts.get(id);
      if (!account) throw new DomainError(2011, `account ${id} not found`);
      return account;
    },

    async updateAccount(id: string, patch: { name?: string; multi_tenant?: boolean; email_verified?: boolean }): Promise<Account> {
      await this.getAccount(id);
      // A single-tenant account's secret names its one tenant: with two, requests without the
      // tenant header would have no tenant to go to.
      if (patch.multi_tenant === false) {
        const count = (await store.tenants.listByAccount(id)).length;
        if (count > 1) throw new DomainError(1012, `account ${id} has ${count} tenants; a single-tenant account has one`);
      }
      const account = await store.transaction(async (tx) => {
        // No longer verified: its console sessions end for good (verifying again revives none).
        if (patch.email_verified === false) await tx.consoleSessions.deleteForTenants((await tx.tenants.listByAccount(id)).map((t) => t.id));
        return (await tx.accounts.update(id, patch))!;
      });
      changed();
      return account;
    },

    /**
     * New secret now. The one it replaces keeps working until the overlap ends; earlier ones keep
     * their own end, except that an overlap of 0 ends every earlier secret at once (a leak
     * response: the caller holds the new one). `by` is the tenant credential asking (none: the
     * operator): a signing secret may rotate only while it is the current one, so a replaced
     * secret still in its overlap (a leaked one, say) cannot issue itself a successor and end
     * the owner's (2005). A console session rotates as the secret it was signed in with.
     */
    async rotateSecret(accountId: string, overlapMs = deps.secretOverlapMs, by?: Credential): Promise<{ signingSecret: string; previousSecretExpiresAt: number }> {
      await this.getAccount(accountId);
      if (by?.kind === 'upload-token') throw new DomainError(2005, 'an upload token cannot rotate the signing secret');
      const signingSecret = ids.signingSecret();
      // Secret lifetimes are business time (the test clock can end an overlap);
      // only the 300 s request-signature window is checked on the real clock.
      const now = clock.now();
      const previousSecretExpiresAt = now + overlapMs;
      const next = { id: ids.secret(), plain: signingSecret };
      const rotated = await store.transaction(async (tx) => {
        const done = await tx.accounts.rotateSecret(accountId, next, now, previousSecretExpiresAt, {
          replacing: by?.kind === 'secret' || by?.kind === 'session' ? by.secretId : undefined,
          endEarlier: overlapMs === 0,
        });
        // The console session that rotated stays signed in, on the new secret; the account's other
        // sessions end with the secrets they were opened with (all at once for an overlap of 0).
        if (done && by?.kind === 'session') await tx.consoleSessions.moveToSecret(by.sessionIdHash, next.id);
        return done;
      });
      if (!rotated) {
        throw new DomainError(
          2005,
          'this signing secret has been replaced: it works until its overlap ends but cannot rotate; rotate with the current secret, from the console, or ask the operator',
        );
      }
      changed();
      return { signingSecret, previousSecretExpiresAt };
    },

    async createTenant(input: TenantSettingsInput & { account_id: string; slug: string }): Promise<Tenant> {
      const account = await this.getAccount(input.account_id);
      assertSlug(input.slug);
      if (!account.multi_tenant && (await store.tenants.listByAccount(account.id)).length > 0) {
        throw new DomainError(2008, `account ${account.id} is single-tenant and has its tenant; make it multi_tenant to add more`);
      }
      if (await store.tenants.getBySlug(input.slug)) {
        throw new DomainError(1012, `tenant slug "${input.slug}" is already taken`);
      }
      const base: Tenant = {
        id: ids.tenant(),
        account_id: input.account_id,
        slug: input.slug,
        name: input.name ?? input.slug,
        ...TENANT_DEFAULTS,
        created_at: clock.now(),
      };
      const tenant = applySettings(base, input);
      await store.tenants.insert(tenant);
      changed();
      return tenant;
    },

    async getTenant(slug: string): Promise<Tenant> {
      const tenant = await store.tenants.getBySlug(slug);
      if (!tenant) throw new DomainError(2001, `tenant ${quotedSlug(slug)} not found`);
      return tenant;
    },

    async updateTenant(slug: string, patch: TenantSettingsInput): Promise<Tenant> {
      const next = applySettings(await this.getTenant(slug), patch);
      await store.transaction(async (tx) => {
        await tx.tenants.replace(next);
        // Suspended: its console sessions end for good (reactivating it revives none).
        if (next.status === 'suspended') await tx.consoleSessions.deleteForTenants([next.id]);
      });
      changed();
      return next;
    },

    listTenants: (): Promise<Tenant[]> => store.tenants.list(),
    listAccounts: (): Promise<Account[]> => store.accounts.list(),
  };
}

export type AccountsService = ReturnType<typeof accountsService>;
