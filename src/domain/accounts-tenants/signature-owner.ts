/**
 * Who made an HMAC signature, when the request does not say. Two cases:
 * - No tenant header. The spec has only multi-tenant accounts name the tenant (Authentication 3),
 *   so a single-tenant account's signed request may carry no name at all: the signature itself
 *   says who signed, once each candidate secret has been tried (`identify`). A multi-tenant
 *   signer found that way is told to name the tenant (2001), as with a bearer token.
 * - A tenant header whose account did not make the signature (`recognize`, best effort): a
 *   signer found is told the tenant is not one of its own (2001, as a bearer token is), where a
 *   typo in the slug would otherwise read as a bad signature; anyone else gets 2004 whether the
 *   tenant exists or not, so slugs still cannot be probed.
 *
 * Candidates are the live secrets of every account, prepared as HMAC keys and cached like the
 * other credentials (AUTH_CACHE_MS, cleared by any change made through this process; one load at
 * a time). Each candidate's digest is compared in constant time. The list is kept most recently
 * matched first and the search stops at the match, so its time tells only how recently the
 * signer's own key was used; a wrong signature always tries every candidate.
 *
 * Cost: one HMAC over the body per candidate tried (about 4 µs for a small body on the bench
 * machine): an account signing often is found among the first few, an account not seen for a
 * while, like a wrong signature, costs the whole list — linear in the number of accounts
 * (bench/hmac-identify.ts measures it with 1,000: about 4–5 ms). A bodyless request's answer is
 * remembered per signature header (as for named tenants), so polling with GETs pays it about
 * once per second. With many accounts, clients should send the tenant header: then only that
 * account's own secrets are tried.
 *
 * The work is bounded, because it grows with the body too: one HMAC over a 1 MiB body takes
 * ~3 ms, so a wrongly signed 1 MiB request would cost ~3 s of the event loop with 1,000
 * accounts, and anyone can send one. So (IdentifyLimits):
 * - one request hashes at most `perRequestBytes` (candidates × signed bytes); a larger search
 *   tries the most recently matched candidates that fit and, failing those, is answered 2001
 *   asking for the tenant header (a retry could not do better);
 * - every request's hashing draws on one budget of bytes per second; while it is spent, such
 *   requests are answered 1007 with retry_after (a flood of wrong signatures costs at most that
 *   share of the CPU, and tenant-named or bearer requests are not affected);
 * - a long search yields to the event loop every `sliceBytes`, so other requests keep moving.
 * `recognize` has a budget of its own with the same limits and never refuses: a search it cannot
 * afford finds no one (the request keeps its 2004), so wrong signatures naming a tenant never
 * hold up requests without one.
 */
import type { KeyObject } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { realNowMs, type Clock } from '../../clock.js';
import { hmacKey, hmacMatches } from '../../crypto/hmac.js';
import { DomainError } from '../../errors/registry.js';
import type { Account, Store } from '../../store/index.js';
import { andThen, type MaybePromise } from '../maybe-promise.js';

interface Candidate {
  account: Account;
  secretId: string;
  key: KeyObject;
  expires_at: number | null;
}

/** Who signed: the account and which of its secrets. */
export interface Signed {
  account: Account;
  secretId: string;
}

interface Candidates {
  at: number;
  list: Candidate[];
  /** Bodyless signatures already identified: header → the matching candidate. */
  verified: Map<string, Candidate>;
}

const MAX_REMEMBERED_SIGNATURES = 1_000;
const MiB = 1024 * 1024;
const HMAC_FIXED_COST_BYTES = 1024;

export interface IdentifyLimits {
  /** Bytes one request may hash (candidates tried × signed bytes): ~50 ms on a 2-core machine. */
  perRequestBytes: number;
  /** Bytes all such requests may hash per second (~0.1 s of CPU), and at once after a quiet spell. */
  budgetPerSecond: number;
  budgetBurst: number;
  /** A search yields to the event loop after hashing this much. */
  sliceBytes: number;
}

export const IDENTIFY_LIMITS: IdentifyLimits = { perRequestBytes: 16 * MiB, budgetPerSecond: 32 * MiB, budgetBurst: 64 * MiB, sliceBytes: 2 * MiB };

/** A budget of bytes to hash, refilled on the business clock (as rate limits are). */
function hashingBudget(clock: Clock, limits: IdentifyLimits) {
  let left = limits.budgetBurst;
  let at = clock.now();
  return {
    /** What is left now (negative while in debt). */
    now(): number {
      const t = clock.now();
      if (t > at) left = Math.min(limits.budgetBurst, left + ((t - at) / 1000) * limits.budgetPerSecond);
      at = t;
      return left;
    },
    take(bytes: number) {
      left -= bytes;
    },
    giveBack(bytes: number) {
      left += bytes;
    },
  };
}
type HashingBudget = ReturnType<typeof hashingBudget>;

export function signatureOwner(deps: { store: Store; clock: Clock; cacheMs: number; limits?: IdentifyLimits }) {
  const { store, clock } = deps;
  const limits = deps.limits ?? IDENTIFY_LIMITS;
  const identifying = hashingBudget(clock, limits);
  const recognizing = hashingBudget(clock, limits);
  let cached: Candidates | undefined;
  let loading: Promise<Candidates> | undefined;
  // Bumped by invalidate(): a load that started before a change is not kept.
  let generation = 0;

  function candidates(): MaybePromise<Candidates> {
    if (cached && realNowMs() - cached.at < deps.cacheMs) return cached;
    if (loading) return loading;
    const started = generation;
    loading = store.accounts.signerSecrets(clock.now()).then(
      (rows) => {
        const value = { at: realNowMs(), list: rows.map((r) => ({ account: r.account, secretId: r.secret_id, key: hmacKey(r.plain), expires_at: r.expires_at })), verified: new Map() };
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

  function found(c: Candidates, match: Candidate, header: string, rawBody: Buffer): Signed {
    // Most recently matched first: the accounts signing now are found after a few tries.
    const at = c.list.indexOf(match);
    if (at > 0) c.list.copyWithin(1, 0, at)[0] = match;
    if (rawBody.length === 0 && c.verified.size < MAX_REMEMBERED_SIGNATURES) c.verified.set(header, match);
    return { account: match.account, secretId: match.secretId };
  }

  /** `refuse`: a search cut short says why (1007, 2001); without it, it found no one. */
  function search(c: Candidates, budget: HashingBudget, refuse: boolean, header: string, ts: string, hex: string, rawBody: Buffer): MaybePromise<Signed | undefined> {
    const now = clock.now();
    const live = (s: Candidate) => s.expires_at === null || s.expires_at > now;
    const remembered = rawBody.length === 0 ? c.verified.get(header) : undefined;
    if (remembered) return live(remembered) ? { account: remembered.account, secretId: remembered.secretId } : undefined;
    // Per candidate: the signed bytes, and HMAC's fixed cost (its setup, two more blocks, the
    // digest, the comparison: ~3 µs, about what hashing 1 KiB takes).
    const perTry = rawBody.length + ts.length + 1 + HMAC_FIXED_COST_BYTES;
    const needed = Math.min(c.list.length, Math.floor(limits.perRequestBytes / perTry));
    const left = budget.now();
    const busy = (missing: number) =>
      new DomainError(1007, 'too many signed requests without the tenant header to identify now; name the tenant to be served at once', {
        retryAfter: Math.max(1, Math.ceil(missing / limits.budgetPerSecond)),
      });
    if (needed > 0 && left < perTry) {
      if (refuse) throw busy(perTry - left);
      return undefined;
    }
    // Reserved up front, so requests searching at once cannot overdraw the budget; the unused part is given back.
    const tries = Math.min(needed, Math.floor(left / perTry));
    budget.take(tries * perTry);
    const digest = Buffer.from(hex, 'hex');
    const done = (used: number, match?: Candidate): Signed | undefined => {
      budget.giveBack((tries - used) * perTry);
      if (match) return found(c, match, header, rawBody);
      if (!refuse) return undefined;
      if (tries < needed) throw busy((needed - tries) * perTry);
      if (needed < c.list.length) {
        throw new DomainError(2001, `a signed request this large is matched without the tenant header against the ${needed} most recently seen accounts only; name the tenant`);
      }
      return undefined;
    };
    // Short searches stay synchronous (the common case: a recent signer, a small body).
    const perSlice = Math.max(1, Math.floor(limits.sliceBytes / perTry));
    const first = Math.min(tries, perSlice);
    for (let i = 0; i < first; i++) {
      const s = c.list[i]!;
      if (live(s) && hmacMatches(s.key, ts, rawBody, digest)) return done(i + 1, s);
    }
    if (first === tries) return done(tries);
    // The rest in slices, over the list as it is now (a match moves entries; a reload replaces the list).
    const rest = c.list.slice(first, tries);
    return (async () => {
      for (let from = 0; from < rest.length; from += perSlice) {
        await nextTurn();
        for (let i = from; i < Math.min(rest.length, from + perSlice); i++) {
          const s = rest[i]!;
          if (live(s) && hmacMatches(s.key, ts, rawBody, digest)) return done(first + i + 1, s);
        }
      }
      return done(tries);
    })();
  }

  return {
    /**
     * The account whose live secret made this signature, and that secret, if any; a search it
     * cannot finish now is refused (1007, or 2001 for a body too large to try everyone).
     * `sig.ts` as the header carries it: the signed string is `<ts>.<raw body>` with those characters.
     */
    identify(header: string, sig: { ts: string; hex: string }, rawBody: Buffer): MaybePromise<Signed | undefined> {
      return andThen(candidates(), (c) => search(c, identifying, true, header, sig.ts, sig.hex, rawBody));
    },
    /** The same, for a request already refused: best effort on its own budget, never refused. */
    recognize(header: string, sig: { ts: string; hex: string }, rawBody: Buffer): MaybePromise<Signed | undefined> {
      return andThen(candidates(), (c) => search(c, recognizing, false, header, sig.ts, sig.hex, rawBody));
    },
    invalidate() {
      generation++;
      cached = undefined;
      loading = undefined;
    },
  };
}
