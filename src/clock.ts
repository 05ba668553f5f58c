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
  /**
   * The business time of a past wall-clock instant (a file's mtime, an object's LastModified): the
   * same instant, moved as far as the test clock had been moved by then. So a file written before
   * the test clock moved a day is a day older, and one written after it is as young as it is.
   */
  fromWall(wallMs: number): number;
}

export const realNowMs = (): number => Date.now();

export function systemClock(): Clock {
  return {
    now: realNowMs,
    adjustable: false,
    advance() {
      throw new Error('the system clock cannot be moved; start with BLUELINE_TEST_CLOCK=1');
    },
    fromWall: (wallMs) => wallMs,
  };
}

export function testClock(startOffsetMs = 0): Clock & { offsetMs(): number } {
  let offset = startOffsetMs;
  /** Each move: from which wall time on the new offset applies (kept for fromWall; a handful per test). */
  const moves: { wallAt: number; offset: number }[] = [];
  return {
    now: () => Date.now() + offset,
    adjustable: true,
    advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError('clock can only move forward');
      offset += ms;
      moves.push({ wallAt: Date.now(), offset });
      return Date.now() + offset;
    },
    fromWall(wallMs: number) {
      let then = startOffsetMs;
      for (const m of moves) {
        // A move's wall time has whole milliseconds and an mtime fractions of one: a file written
        // in the millisecond the clock moved counts as written before the move (a test writes,
        // then moves the clock, often within one millisecond).
        if (m.wallAt >= Math.floor(wallMs)) break;
        then = m.offset;
      }
      return wallMs + then;
    },
    offsetMs: () => offset,
  };
}

export const isoAt = (ms: number): string => new Date(ms).toISOString();

/** isoAt for optional times (delivered_at, read_at, …). */
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : isoAt(ms));
