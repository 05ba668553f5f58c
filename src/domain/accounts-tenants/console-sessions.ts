/**
 * Console sign-in: a tenant's slug and signing secret, or the operator's admin token, swapped
 * for a session. The browser keeps only a random token (in an HttpOnly cookie); the database
 * keeps its sha256, who it is, its CSRF token and its expiry (12 h), so every process shares
 * sessions and sign-out ends one everywhere at once. Failed sign-ins are counted per client
 * address: the eleventh within a minute is refused (1007) whatever its credentials.
 *
 * An operator's cookie token also carries a MAC of its random part under the admin token, checked
 * on every use: replacing ADMIN_TOKEN (a leaked one, say) ends every operator session opened with
 * the old one at once, not 12 hours later.
 *
 * A tenant's session stands on the signing secret it was signed in with, and lives no longer than
 * that secret (the store's `find` checks it): a rotation with overlap 0 ends every session but the
 * one that rotated (which moves to the new secret), one with an overlap ends them when it ends. A
 * suspension or an account no longer verified deletes the tenant's sessions (service.ts): they
 * do not come back when it is lifted.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { DomainError } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { ConsoleSession, Store } from '../../store/index.js';
import { assertMayAct, type Authenticator, type Principal } from './auth.js';

export const SESSION_TTL_MS = 12 * 3600_000;
export const MAX_FAILED_SIGN_INS = 10;
const FAILURE_WINDOW_MS = 60_000;
/** Bounds the failure table under a flood of addresses. */
const MAX_TRACKED_ADDRESSES = 10_000;

const sha256hex = (s: string) => createHash('sha256').update(s).digest('hex');
const sameSecret = (a: string, b: string) => timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

export type SignIn = { kind: 'tenant'; tenant: string; secret: string } | { kind: 'operator'; adminToken: string };

/** A live session and whom it stands for. */
export type SessionIdentity = { session: ConsoleSession } & ({ kind: 'operator' } | { kind: 'tenant'; principal: Principal });

/** Length of a session token's random part (32 bytes, base64url). */
const RANDOM_PART = 43;

export function consoleSessions(deps: { store: Store; clock: Clock; auth: Authenticator; adminToken: string }) {
  const { store, clock, auth } = deps;
  const failures = new Map<string, number[]>();
  /** The operator session token's second half: its random part, bound to the admin token it was opened with. */
  const operatorMac = (random: string) => createHmac('sha256', deps.adminToken).update('console-operator-session:').update(random).digest('base64url');
  const madeWithAdminToken = (token: string) =>
    token.length === 2 * RANDOM_PART && timingSafeEqual(Buffer.from(operatorMac(token.slice(0, RANDOM_PART))), Buffer.from(token.slice(RANDOM_PART)));

  function recentFailures(address: string, now: number): number[] {
    const list = (failures.get(address) ?? []).filter((t) => t > now - FAILURE_WINDOW_MS);
    if (list.length) failures.set(address, list);
    else failures.delete(address);
    return list;
  }

  function assertNotThrottled(address: string, now: number) {
    const list = recentFailures(address, now);
    if (list.length >= MAX_FAILED_SIGN_INS) {
      const retryAfter = Math.max(1, Math.ceil((list[0]! + FAILURE_WINDOW_MS - now) / 1000));
      throw new DomainError(1007, `too many failed sign-ins from this address; try again in ${retryAfter} s`, { retryAfter });
    }
  }

  function failed(address: string, now: number): never {
    if (failures.size >= MAX_TRACKED_ADDRESSES && !failures.has(address)) failures.delete(failures.keys().next().value!);
    failures.set(address, [...recentFailures(address, now), now]);
    throw new DomainError(2004, 'those credentials are not valid');
  }

  async function tenantPrincipal(tenant: string, secret: string): Promise<Principal> {
    return auth.authenticate({
      authorization: `Bearer ${secret}`,
      tenantSlug: tenant,
      rawBody: Buffer.alloc(0),
      requireTenantHeader: true,
      bearerOnly: true,
    });
  }

  return {
    /** A new session and its cookie token (shown to the browser once, kept only hashed). */
    async signIn(input: SignIn, address: string): Promise<{ token: string; session: ConsoleSession; principal?: Principal }> {
      const now = clock.now();
      assertNotThrottled(address, now);
      let principal: Principal | undefined;
      if (input.kind === 'operator') {
        if (!input.adminToken || !sameSecret(input.adminToken, deps.adminToken)) failed(address, now);
      } else {
        if (!input.secret || !input.tenant) failed(address, now);
        try {
          principal = await tenantPrincipal(input.tenant, input.secret);
        } catch (err) {
          // Wrong secret, unknown slug, another account's slug: one answer, counted.
          if (err instanceof DomainError && (err.code === 2004 || err.code === 2001 || err.code === 2012)) failed(address, now);
          throw err; // suspended (2005) or unverified (2007): the right secret, told why
        }
      }
      const random = randomBytes(32).toString('base64url');
      const token = input.kind === 'operator' ? random + operatorMac(random) : random;
      const session: ConsoleSession = {
        idHash: sha256hex(token),
        kind: input.kind,
        tenantId: principal?.tenant.id ?? null,
        secretId: principal?.credential.kind === 'secret' ? principal.credential.secretId : null,
        csrfToken: randomBytes(24).toString('base64url'),
        createdAt: now,
        expiresAt: now + SESSION_TTL_MS,
      };
      await store.consoleSessions.deleteExpired(now);
      await store.consoleSessions.insert(session);
      failures.delete(address);
      return { token, session, principal };
    },

    /** The live session behind a cookie token, with its principal; undefined when it is gone or expired. */
    async resolve(token: string): Promise<SessionIdentity | undefined> {
      if (!token || token.length > 200) return undefined;
      const session = await store.consoleSessions.find(sha256hex(token), clock.now());
      if (!session) return undefined;
      // Opened with another admin token than this process's (it was replaced): ended.
      if (session.kind === 'operator') return madeWithAdminToken(token) ? { session, kind: 'operator' } : undefined;
      const tenant = session.tenantId ? await store.tenants.getById(session.tenantId) : undefined;
      const account = tenant && (await store.accounts.get(tenant.account_id));
      // No secret: opened before sessions named theirs (migration 031), ended.
      if (!tenant || !account || !session.secretId) return undefined;
      // Suspension deletes the sessions; this holds while a deletion races the request.
      assertMayAct(account, tenant);
      return { session, kind: 'tenant', principal: { account, tenant, credential: { kind: 'session', sessionIdHash: session.idHash, secretId: session.secretId } } };
    },

    /** Ends the session everywhere: its row is deleted. */
    async signOut(token: string): Promise<void> {
      if (token) await store.consoleSessions.delete(sha256hex(token));
    },

    csrfMatches(session: ConsoleSession, presented: string | undefined): boolean {
      return presented !== undefined && presented !== '' && sameSecret(presented, session.csrfToken);
    },
  };
}

export type ConsoleSessions = ReturnType<typeof consoleSessions>;
