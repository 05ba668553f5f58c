/**
 * The one clock every business-time rule reads (edit window, expiries,
 * first-touch gaps and caps, sending window, idempotency lifetime, response
 * timestamps). With the test clock on, the admin API can move it forward.
 *
 * Request-signature windows and outgoing webhook signatures deliberately use
 * `realNowMs()` so clients keep working while a test moves business time.
 */
export interface Clock {
  now(): number;
  readonly adjustable: boolean;
  /** Moves business time forward; only the test clock allows it. */
  advance(ms: number): number;
}

export const realNowMs = (): number => Date.now();

export function systemClock(): Clock {
  return {
    now: realNowMs,
    adjustable: false,
    advance() {
      throw new Error('the system clock cannot be moved; start with BLUELINE_TEST_CLOCK=1');
    },
  };
}

export function testClock(startOffsetMs = 0): Clock & { offsetMs(): number } {
  let offset = startOffsetMs;
  return {
    now: () => Date.now() + offset,
    adjustable: true,
    advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError('clock can only move forward');
      offset += ms;
      return Date.now() + offset;
    },
    offsetMs: () => offset,
  };
}

export const isoAt = (ms: number): string => new Date(ms).toISOString();

/** isoAt for optional times (delivered_at, read_at, …). */
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : isoAt(ms));
