/**
 * Request tokens for the tenant's rate limit, drawn from its bucket in the database.
 *
 * The bucket is shared by every process, so each token is a write to one row per tenant: for a
 * tenant making hundreds of requests a second, the hottest row in the database. So a process takes
 * tokens ahead: as many as it was asked for in the last slice of time (at most a slice's worth of the
 * tenant's rate and never more than the bucket holds), in one statement, and hands them out until
 * the slice ends. Tokens are always taken from the bucket before they are used, so the limit holds
 * across processes; tokens left at the end of a slice are dropped, never used later: when a busy
 * tenant's traffic stops, at most one slice's worth is lost. A tenant making a few requests a
 * second takes one token per request, as without this.
 *
 * A refusal is remembered until the moment the bucket said its next token would be there: no
 * process ever puts tokens back, so until then every request is refused here, with the wait
 * left, at no statement. Without this a tenant past its limit cost a locking transaction per
 * refused request, so the requests the limit refuses were the database's heaviest.
 */
import type { Store } from '../../store/index.js';

/** How long tokens taken ahead stay usable, and the window whose demand sizes the next take. */
export const RATE_SLICE_MS = 50;
/** The most tokens one statement takes ahead. */
const MAX_AHEAD = 1_000;

interface Reservoir {
  left: number;
  until: number;
  /** Requests in the demand window starting at `windowStart`, and in the window before it. */
  windowStart: number;
  count: number;
  lastCount: number;
  /** The take in flight, which requests arriving meanwhile wait for rather than start their own. */
  refill?: Promise<number>;
  /** Refused until then (ms), under this limit: the bucket's next token is not there before. */
  emptyUntil: number;
  emptyUnder: string;
}

/** A refusal holds only under the limit it was computed with (a raised rate refills sooner). */
const limitKey = (perSecond: number, burst: number) => `${perSecond}/${burst}`;

export function rateTokens(store: Pick<Store, 'rateBuckets'>) {
  const reservoirs = new Map<string, Reservoir>();

  function reservoirOf(tenantId: string, nowMs: number): Reservoir {
    let r = reservoirs.get(tenantId);
    if (!r) reservoirs.set(tenantId, (r = { left: 0, until: 0, windowStart: nowMs, count: 0, lastCount: 0, emptyUntil: 0, emptyUnder: '' }));
    if (nowMs >= r.windowStart + RATE_SLICE_MS) {
      r.lastCount = nowMs < r.windowStart + 2 * RATE_SLICE_MS ? r.count : 0;
      r.windowStart = nowMs;
      r.count = 0;
    }
    return r;
  }

  /** Takes tokens into the reservoir; resolves to 0, or to the seconds until the bucket has one. */
  async function refill(r: Reservoir, tenantId: string, perSecond: number, burst: number, nowMs: number): Promise<number> {
    const slice = Math.floor((perSecond * RATE_SLICE_MS) / 1000);
    // This window's demand so far counts too: a tenant getting busy doubles its take each time.
    const want = Math.max(1, Math.min(Math.max(r.lastCount, r.count), slice, Math.floor(burst), MAX_AHEAD));
    const { taken, wait } = await store.rateBuckets.takeTokens(tenantId, perSecond, burst, nowMs, want);
    if (taken === 0) {
      r.emptyUntil = nowMs + wait * 1000;
      r.emptyUnder = limitKey(perSecond, burst);
      return wait;
    }
    r.left = taken;
    r.until = nowMs + RATE_SLICE_MS;
    return 0;
  }

  return {
    /** Takes one token for the tenant: 0 when taken, else the seconds until one is free. */
    async take(tenantId: string, perSecond: number, burst: number, nowMs: number): Promise<number> {
      const r = reservoirOf(tenantId, nowMs);
      r.count++;
      for (;;) {
        if (r.left > 0 && nowMs < r.until) {
          r.left--;
          return 0;
        }
        if (nowMs < r.emptyUntil && r.emptyUnder === limitKey(perSecond, burst)) return (r.emptyUntil - nowMs) / 1000;
        if (r.refill) {
          await r.refill.catch(() => undefined);
          continue;
        }
        const mine = refill(r, tenantId, perSecond, burst, nowMs).finally(() => {
          if (r.refill === mine) r.refill = undefined;
        });
        r.refill = mine;
        const wait = await mine;
        if (wait > 0) return wait;
      }
    },
  };
}
