/**
 * Request authentication per the spec: bearer signing secret, or HMAC v1
 * (`x-<brand>-signature: v1,<ts>,<hex>` over `<ts>.<raw body>`), then tenant
 * resolution and account/tenant state checks. Returns the principal or throws
 * the spec's code.
 *
 * Successful lookups are cached for a short time (real time), since every API
 * request authenticates. Changes made through this process clear the cache
 * at once; other processes see them within AUTH_CACHE_MS.
 */
import { DomainError } from '../../errors/registry.js';
import { realNowMs, type Clock } from '../../clock.js';
import { hmacKey, hmacMatches } from '../../crypto/hmac.js';
import type { KeyObject } from 'node:crypto';
import type { Store, Account, Tenant } from '../../store/index.js';
import { isValidSlug, quotedSlug } from './settings.js';
import { ttlCache } from '../ttl-cache.js';
import { andThen, type MaybePromise } from '../maybe-promise.js';
import { signatureOwner, type IdentifyLimits } from './signature-owner.js';

export const SIGNATURE_WINDOW_SECONDS = 300;
export const AUTH_CACHE_MS = 2_000;

/**
 * What a request authenticated with, kept so it can be judged again later (a stream re-checks
 * it, a rotation asks whether it is the current secret): a signing secret (bearer or HMAC), a
 * console session, or an upload slot's token.
 */
export type Credential =
  | { kind: 'secret'; secretId: string }
  | { kind: 'session'; sessionIdHash: string; secretId: string }
  | { kind: 'upload-token'; attachmentId: string };

export interface Principal {
  account: Account;
  tenant: Tenant;
  credential: Credential;
}

export interface RequestCredentials {
  authorization?: string;
  signature?: string;
  tenantSlug?: string;
  /** The exact bytes received; empty for a request without a body. */
  rawBody: Buffer;
  /** Event endpoints need the tenant header even for single-tenant accounts. */
  requireTenantHeader: boolean;
  /** The binary upload route accepts bearer only. */
  bearerOnly: boolean;
}

/**
 * A well-formed signature header; its digest is decoded only when it must be checked. `ts` is
 * the timestamp exactly as sent: the signed string is `<ts>.<raw body>` with these characters
 * (leading zeros included), and its value is judged against the window only.
 */
type ParsedSignature = { ts: string; hex: string };

/** The account behind a tenant slug, its live secrets prepared for HMAC, and signatures already checked. */
interface Signer {
  account: Account | undefined;
  secrets: SignerSecret[];
  /** Bodyless signatures already checked: header → the secret that made it. */
  verified: Map<string, SignerSecret>;
}

interface SignerSecret {
  id: string;
  key: KeyObject;
  expires_at: number | null;
}

const MAX_REMEMBERED_SIGNATURES = 1_000;

/**
 * `v1,<digits>,<64 hex>` exactly; anything else is malformed. Any run of digits is a timestamp:
 * one too far from now (milliseconds, say) is outside the window (2013), not malformed.
 */
export function parseRequestSignature(header: string): ParsedSignature | undefined {
  const m = /^v1,(\d+),([0-9a-fA-F]{64})$/.exec(header.trim());
  if (!m) return undefined;
  return { ts: m[1]!, hex: m[2]! };
}

/** Seconds between a signature's timestamp and now; Infinity for one no clock could mean. */
function signatureSkew(ts: string, nowSeconds: number): number {
  const digits = ts.replace(/^0+(?=\d)/, '');
  return digits.length > 15 ? Infinity : Math.abs(nowSeconds - Number(digits));
}

/** The token of `Authorization: Bearer <token>`, if the header has that form. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return authorization ? /^Bearer[ ]+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
}

/**
 * A refusal of an authenticated account's request for one of its tenants: the request's log line
 * names the tenant (an operator looking at a suspended tenant's 403s finds them by it), though the
 * request never got a principal. The answer is the DomainError's alone.
 */
export class TenantRefusal extends DomainError {
  constructor(
    code: 2005 | 2007,
    message: string,
    readonly tenant: string,
  ) {
    super(code, message);
  }
}

/** Whether an authenticated account may act for its tenant now: 2007 unverified, 2005 suspended. */
export function assertMayAct(account: Account, tenant: Tenant): void {
  if (!account.email_verified) throw new TenantRefusal(2007, 'the account email address is not verified', tenant.slug);
  if (tenant.status === 'suspended') throw new TenantRefusal(2005, `tenant "${tenant.slug}" is suspended`, tenant.slug);
}

export function authenticator(deps: { store: Store; clock: Clock; brand: string; identifyLimits?: IdentifyLimits }) {
  const { store, clock, brand } = deps;
  const tenantHeader = `x-${brand}-tenant`;
  const signatureHeader = `x-${brand}-signature`;
  // A secret's owner and expiry; a tenant slug's account and live secrets; an account's tenants.
  const bearerCache = ttlCache<{ account: Account; secret_id: string; expires_at: number | null } | undefined>(AUTH_CACHE_MS);
  const signerCache = ttlCache<Signer>(AUTH_CACHE_MS);
  const tenantCache = ttlCache<Tenant[]>(AUTH_CACHE_MS);
  const signers = signatureOwner({ store, clock, cacheMs: AUTH_CACHE_MS, limits: deps.identifyLimits });

  // Synchronous while everything is cached (maybe-promise.ts): the common case, once per request.
  function bearerOwner(token: string): MaybePromise<{ account: Account; secret_id: string } | undefined> {
    return andThen(bearerCache.get(token, () => store.accounts.findSecretOwner(token)), (found) =>
      found && (found.expires_at === null || found.expires_at > clock.now()) ? found : undefined,
    );
  }

  /** The account behind a tenant slug and its secrets, for HMAC checks. */
  function signerFor(slug: string) {
    return signerCache.get(slug, async () => {
      const tenant = isValidSlug(slug) ? await store.tenants.getBySlug(slug) : undefined;
      const account = tenant && (await store.accounts.get(tenant.account_id));
      const secrets = account ? await store.accounts.secretsWithExpiry(account.id, clock.now()) : [];
      return { account, secrets: secrets.map((s) => ({ id: s.id, key: hmacKey(s.plain), expires_at: s.expires_at })), verified: new Map() };
    });
  }

  const tenantsOf = (accountId: string) => tenantCache.get(accountId, () => store.tenants.listByAccount(accountId));

  const resolveTenant = (account: Account, slug: string | undefined, requireHeader: boolean): MaybePromise<Tenant> =>
    andThen(tenantsOf(account.id), (tenants) => tenantNamed(account, tenants, slug, requireHeader));

  function tenantNamed(account: Account, tenants: Tenant[], slug: string | undefined, requireHeader: boolean): Tenant {
    if (slug === undefined) {
      if (requireHeader) throw new DomainError(2001, `this endpoint requires the ${tenantHeader} header`);
      if (account.multi_tenant) {
        throw new DomainError(2001, `multi-tenant accounts must name the tenant in ${tenantHeader}`);
      }
      const [only] = tenants;
      if (!only) throw new DomainError(2001, 'this account has no tenant yet');
      return only;
    }
    // Another account's tenant reads exactly like a missing one: nothing leaks.
    const tenant = tenants.find((t) => t.slug === slug);
    if (!tenant) throw new DomainError(2001, `tenant ${quotedSlug(slug)} not found`);
    return tenant;
  }

  /**
   * Whether a live secret of the signer made this signature. A bodyless request's
   * signature depends on nothing but its header, so the answer is remembered for
   * the signer entry's short life (with the matching secret's expiry): a client
   * polling with GETs signs once per second, not once per request.
   */
  function verifySignature(signer: Signer, header: string, sig: ParsedSignature, rawBody: Buffer): SignerSecret | undefined {
    const now = clock.now();
    const live = (s: SignerSecret) => s.expires_at === null || s.expires_at > now;
    const remembered = rawBody.length === 0 ? signer.verified.get(header) : undefined;
    if (remembered !== undefined) return live(remembered) ? remembered : undefined;
    const digest = Buffer.from(sig.hex, 'hex');
    const match = signer.secrets.find((s) => live(s) && hmacMatches(s.key, sig.ts, rawBody, digest));
    if (match && rawBody.length === 0 && signer.verified.size < MAX_REMEMBERED_SIGNATURES) signer.verified.set(header, match);
    return match;
  }

  /** The principal, once the account's tenant is resolved and both may act. */
  const principal = (account: Account, secretId: string, slug: string | undefined, requireHeader: boolean): MaybePromise<Principal> =>
    andThen(resolveTenant(account, slug, requireHeader), (tenant) => {
      assertMayAct(account, tenant);
      return { account, tenant, credential: { kind: 'secret', secretId } };
    });

  return {
    tenantHeader,
    signatureHeader,

    /** Forget cached lookups: called after any change to accounts, secrets or tenants. */
    invalidate() {
      bearerCache.clear();
      signerCache.clear();
      tenantCache.clear();
      signers.invalidate();
    },

    /** Throws the spec's error, at once or through the promise. */
    authenticate(c: RequestCredentials): MaybePromise<Principal> {
      const slug = c.tenantSlug?.trim() || undefined;
      if (c.authorization !== undefined && c.authorization.trim() !== '') {
        const token = bearerToken(c.authorization);
        if (!token) throw new DomainError(2004, 'Authorization must be "Bearer <signing secret>"');
        return andThen(bearerOwner(token), (found) => {
          if (!found) throw new DomainError(2004, 'invalid bearer token');
          return principal(found.account, found.secret_id, slug, c.requireTenantHeader);
        });
      }
      if (c.signature !== undefined && c.signature.trim() !== '') {
        // Credentials were sent, just not a kind this route takes: invalid, not missing.
        if (c.bearerOnly) throw new DomainError(2004, 'this route accepts bearer authentication only');
        const sig = parseRequestSignature(c.signature);
        if (!sig) {
          throw new DomainError(2004, `malformed ${signatureHeader}: expected v1,<unix seconds>,<64 hex chars>`);
        }
        const skew = signatureSkew(sig.ts, Math.floor(realNowMs() / 1000));
        if (skew > SIGNATURE_WINDOW_SECONDS) {
          throw new DomainError(
            2013,
            skew < 1e9
              ? `signature timestamp is ${skew} s from server time; the window is 300 s`
              : 'signature timestamp is nowhere near server time: it must be Unix seconds (not milliseconds); the window is 300 s',
          );
        }
        const signature = c.signature.trim();
        // No tenant named: the signature identifies its account (signature-owner.ts); a multi-tenant one is then told to name it.
        if (!slug) {
          return andThen(signers.identify(signature, sig, c.rawBody), (found) => {
            if (!found) throw new DomainError(2004, 'signature does not match');
            return principal(found.account, found.secretId, undefined, c.requireTenantHeader);
          });
        }
        return andThen(signerFor(slug), (signer) => {
          const { account } = signer;
          const secret = account && verifySignature(signer, signature, sig, c.rawBody);
          if (account && secret) return principal(account, secret.id, slug, c.requireTenantHeader);
          // Not made by the tenant's account (or no such tenant). Its own signer is told the tenant
          // is not one of its own (2001, as with a bearer token: a typo in the slug is not a bad
          // signature); to anyone else an unknown tenant and a bad signature answer alike (2004),
          // so slugs can't be probed.
          return andThen(signers.recognize(signature, sig, c.rawBody), (found) => {
            if (!found) throw new DomainError(2004, 'signature does not match');
            return principal(found.account, found.secretId, slug, c.requireTenantHeader);
          });
        });
      }
      throw new DomainError(2012, c.bearerOnly ? 'send Authorization: Bearer <secret>' : `send Authorization: Bearer <secret> or ${signatureHeader}`);
    },
  };
}

export type Authenticator = ReturnType<typeof authenticator>;
