/**
 * HMAC without a tenant header. The spec has only multi-tenant accounts name the tenant
 * (Authentication 3), so a single-tenant account's signed request may carry no name at all:
 * the signature itself says who signed, once each candidate secret has been tried.
 *
 * Candidates are the live secrets of every single-tenant account, prepared as HMAC keys and
 * cached like the other credentials (AUTH_CACHE_MS, cleared by any change made through this
 * process; one load at a time). Each candidate's digest is compared in constant time. The list
 * is kept most recently matched first and the search stops at the match, so its time tells only
 * how recently the signer's own key was used; a wrong signature always tries every candidate.
 *
 * Cost: one HMAC over the body per candidate tried (about 4 µs for a small body on the bench
 * machine): an account signing often is found among the first few, an account not seen for a
 * while, like a wrong signature, costs the whole list — linear in the number of single-tenant
 * accounts (bench/hmac-identify.ts measures it with 1,000: about 4–5 ms). A bodyless request's
 * answer is remembered per signature header (as for named tenants), so polling with GETs pays
 * it about once per second. With many accounts, clients should send the tenant header: then
 * only that account's own secrets are tried.
 */
import type { KeyObject } from 'node:crypto';
import { realNowMs, type Clock } from '../../clock.js';
import { hmacKey, hmacMatches } from '../../crypto/hmac.js';
import type { Account, Store } from '../../store/index.js';
import type { MaybePromise } from '../maybe-promise.js';

interface Candidate {
  account: Account;
  key: KeyObject;
  expires_at: number | null;
}

interface Candidates {
  at: number;
  list: Candidate[];
  /** Bodyless signatures already identified: header → the matching candidate. */
  verified: Map<string, Candidate>;
}

const MAX_REMEMBERED_SIGNATURES = 1_000;

export function signatureOwner(deps: { store: Store; clock: Clock; cacheMs: number }) {
  const { store, clock } = deps;
  let cached: Candidates | undefined;
  let loading: Promise<Candidates> | undefined;
  // Bumped by invalidate(): a load that started before a change is not kept.
  let generation = 0;

  function candidates(): MaybePromise<Candidates> {
    if (cached && realNowMs() - cached.at < deps.cacheMs) return cached;
    if (loading) return loading;
    const started = generation;
    loading = store.accounts.singleTenantSecrets(clock.now()).then(
      (rows) => {
        const value = { at: realNowMs(), list: rows.map((r) => ({ account: r.account, key: hmacKey(r.plain), expires_at: r.expires_at })), verified: new Map() };
        if (started === generation) cached = value;
        loading = undefined;
        return value;
      },
      (err) => {
        loading = undefined;
        throw err;
      },
    );
    return loading;
  }

  function search(c: Candidates, header: string, ts: number, hex: string, rawBody: Buffer): Account | undefined {
    const now = clock.now();
    const live = (s: Candidate) => s.expires_at === null || s.expires_at > now;
    const remembered = rawBody.length === 0 ? c.verified.get(header) : undefined;
    if (remembered) return live(remembered) ? remembered.account : undefined;
    const digest = Buffer.from(hex, 'hex');
    const at = c.list.findIndex((s) => live(s) && hmacMatches(s.key, ts, rawBody, digest));
    const match = at < 0 ? undefined : c.list[at]!;
    // Most recently matched first: the accounts signing now are found after a few tries.
    if (match && at > 0) c.list.copyWithin(1, 0, at)[0] = match;
    if (match && rawBody.length === 0 && c.verified.size < MAX_REMEMBERED_SIGNATURES) c.verified.set(header, match);
    return match?.account;
  }

  return {
    /** The single-tenant account whose live secret made this signature, if any. */
    identify(header: string, sig: { ts: number; hex: string }, rawBody: Buffer): MaybePromise<Account | undefined> {
      const c = candidates();
      return c instanceof Promise ? c.then((v) => search(v, header, sig.ts, sig.hex, rawBody)) : search(c, header, sig.ts, sig.hex, rawBody);
    },
    invalidate() {
      generation++;
      cached = undefined;
      loading = undefined;
    },
  };
}
