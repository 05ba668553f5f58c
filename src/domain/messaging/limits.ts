/**
 * Sending limits: the tenant rate limit (token bucket, 1007), and first-touch
 * rules: per line 10 minutes between first touches and 30 a day, the tenant's
 * daily cap, and the tenant's sending window in its timezone. Days are the
 * tenant's local calendar days.
 */
import { DomainError } from '../../errors/registry.js';
import type { PhoneLine, Tenant } from '../../store/index.js';
import type { MessagingDeps } from './deps.js';
import type { DriverCapability } from '../../drivers/types.js';
import { sendsFrom } from '../lines/service.js';
import { rateTokens } from './rate-tokens.js';
import { localDayStart, msUntilDailyWindow, nextLocalDayStart } from './local-time.js';

/** Local days in the tenant's timezone (local-time.ts, the one implementation; re-exported for the callers of before). */
export { localDayStart, nextLocalDayStart };

export const FIRST_TOUCH_GAP_MS = 10 * 60_000;
export const FIRST_TOUCH_PER_LINE_PER_DAY = 30;
const DAY_MS = 86_400_000;
/**
 * How long a project's daily first-touch count (store/first-touch-days.ts) is kept after its day
 * began; older rows are deleted by the reconciliation sweep (reconcile.ts). A count is taken while
 * its day is "today" in the project's timezone, and today's row began at most a local day ago: 24
 * hours, or 25 on the day a clock goes back (local-time.ts: day_start is the true local midnight).
 * After its day, a slot may still be given back by a reservation taken before local midnight
 * that settles after it (at once, or when the sweep drops a group creation minutes later).
 * Three days covers both with more than a day to spare (for a project whose timezone changed,
 * or a clock moved). A row deleted while its day was still today would be seeded again from the
 * day's messages, missing the reservations under way then: so the margin errs on the long side.
 */
export const FIRST_TOUCH_DAYS_KEPT_MS = 3 * DAY_MS;

/** 0 when `ms` is inside the tenant's sending window (its wall clock), else milliseconds until it opens. */
export function msUntilWindowOpens(ms: number, tenant: Tenant): number {
  return msUntilDailyWindow(ms, tenant.timezone, tenant.sending_window);
}

/**
 * A line taken for a first touch, and a first touch of the project's daily cap; `release()` gives
 * both back when nothing was sent from it.
 */
export interface FirstTouchReservation {
  line: PhoneLine;
  /** When it was taken, and the line's last first touch before it (to give it back later, from another process). */
  reservedAt: number;
  previous: number | null;
  release(): Promise<void>;
}

export function limits(deps: MessagingDeps) {
  const { store, clock } = deps;
  const tokens = rateTokens(store);

  /** The tenant's active lines that can do `need`, least recently used for first touch first. */
  async function candidateLines(tenant: Tenant, need: DriverCapability): Promise<PhoneLine[]> {
    const capable = (await store.lines.listByTenant(tenant.id)).filter(
      (l) => sendsFrom(l) && deps.drivers.has(l.driver) && deps.drivers.forLine(l).capabilities().has(need),
    );
    // A line whose service is down right now (a Mac offline) is not chosen.
    const up = await Promise.all(capable.map(async (l) => (await deps.drivers.forLine(l).available?.()) ?? true));
    const lines = capable.filter((_, i) => up[i]);
    if (lines.length === 0) throw new DomainError(3002, 'no active phone line of this project can send this message right now');
    return lines;
  }

  /** Reserves a line for a first touch at `now` (the cap taken already), or throws 4002 with retry_after. */
  async function reserveLine(tenant: Tenant, need: DriverCapability, now: number, dayStart: number, nextDay: number, preferred?: PhoneLine): Promise<{ line: PhoneLine; previous: number | null }> {
    const lines = preferred ? [preferred] : await candidateLines(tenant, need);
    const scored = await Promise.all(
      lines.map(async (line) => {
        const [today, last] = await Promise.all([
          store.messages.firstTouchStats(line.id, dayStart),
          store.lineRuntime.lastFirstTouch(line.id),
        ]);
        const freeAt = today.count >= FIRST_TOUCH_PER_LINE_PER_DAY ? nextDay : last === null ? now : Math.max(now, last + FIRST_TOUCH_GAP_MS);
        return { line, freeAt, last: last ?? 0, previous: last };
      }),
    );
    // Least recently used first, so first touches spread over the lines.
    scored.sort((a, b) => a.last - b.last);
    for (const s of scored) {
      if (s.freeAt <= now && (await store.lineRuntime.reserveFirstTouch(s.line.id, now, FIRST_TOUCH_GAP_MS))) {
        return { line: s.line, previous: s.previous };
      }
    }
    const earliest = Math.min(...scored.map((s) => (s.freeAt <= now ? now + 1000 : s.freeAt)));
    // A request that names its line waits for that line alone: the refusal speaks of it, not of every line.
    const which = preferred ? `phone line ${preferred.id} (named by phone_line_id) is` : 'every phone line is';
    throw new DomainError(4002, `${which} at its first-touch limit right now`, {
      retryAfter: Math.max(1, Math.ceil((earliest - now) / 1000)),
    });
  }

  return {
    /** Takes one request token from the tenant's bucket, or throws 1007 with retry_after. */
    async takeRateToken(tenant: Tenant): Promise<void> {
      const wait = await tokens.take(tenant.id, tenant.rate_limit.per_second, tenant.rate_limit.burst, clock.now());
      if (wait > 0) {
        const retry_after = Math.max(1, Math.ceil(wait));
        throw new DomainError(1007, `rate limit of ${tenant.rate_limit.per_second}/s (burst ${tenant.rate_limit.burst}) exceeded`, { retryAfter: retry_after });
      }
    },

    candidateLines,

    /**
     * Chooses and reserves a line for a first touch now, or throws 4002 with
     * retry_after until the earliest moment one could take it.
     */
    async reserveFirstTouchLine(tenant: Tenant, need: DriverCapability, preferred?: PhoneLine): Promise<FirstTouchReservation> {
      const now = clock.now();
      const windowWait = msUntilWindowOpens(now, tenant);
      if (windowWait > 0) {
        throw new DomainError(4002, `outside the project's sending window (${tenant.sending_window.start}–${tenant.sending_window.end} ${tenant.timezone}) for first-touch messages`, {
          retryAfter: Math.ceil(windowWait / 1000),
        });
      }
      const dayStart = localDayStart(now, tenant.timezone);
      const nextDay = nextLocalDayStart(now, tenant.timezone);
      // The cap is taken first, atomically (store/first-touch-days.ts): a count of today's
      // messages would let every request racing for the last slot through.
      if (!(await store.firstTouchDays.take(tenant.id, dayStart, tenant.daily_first_touch_cap))) {
        throw new DomainError(4002, `daily cap reached: the project's daily first-touch cap (${tenant.daily_first_touch_cap}) is used up`, {
          retryAfter: Math.ceil((nextDay - now) / 1000),
        });
      }
      try {
        const line = await reserveLine(tenant, need, now, dayStart, nextDay, preferred);
        return {
          line: line.line,
          reservedAt: now,
          previous: line.previous,
          release: async () => {
            await store.lineRuntime.releaseFirstTouch(line.line.id, now, line.previous);
            await store.firstTouchDays.giveBack(tenant.id, now);
          },
        };
      } catch (err) {
        // No line taken: the cap's slot goes back. Should that fail too, the day has one first touch fewer.
        await store.firstTouchDays.giveBack(tenant.id, now).catch(() => undefined);
        throw err;
      }
    },
  };
}

export type Limits = ReturnType<typeof limits>;
