/**
 * The test clock dates a file by the wall time it was written (its mtime) as business time: what
 * the housekeeping sweep compares with a day's grace. A file written just before the clock moved
 * a day is a day older, also within the same millisecond as the move (an mtime has fractions of a
 * millisecond, a move's wall time whole ones: a blob sweep test met exactly that on a quiet machine).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock, testClock } from '../../src/clock.js';

const DAY = 86_400_000;

describe('Clock.fromWall', () => {
  afterEach(() => vi.useRealTimers());

  it('is the wall time itself on the system clock', () => {
    expect(systemClock().fromWall(1_700_000_000_123.4)).toBe(1_700_000_000_123.4);
  });

  it('on the test clock: written before a move, older by it; written after, as young as it is', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = 1_700_000_000_000;
    vi.setSystemTime(t0);
    const clock = testClock();
    const before = t0 + 0.6; // written in the millisecond of the move below, before it
    clock.advance(DAY);
    vi.setSystemTime(t0 + 5);
    const after = t0 + 3.2; // written after the move
    expect(clock.now() - clock.fromWall(before)).toBeCloseTo(DAY + 5 - 0.6, 2);
    expect(clock.now() - clock.fromWall(after)).toBeCloseTo(5 - 3.2, 2);
    expect(clock.now() - clock.fromWall(t0 - 1000)).toBe(DAY + 1005);
  });
});
