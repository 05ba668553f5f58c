/**
 * Test helpers for time-zone rules: a zone's next offset change after now (so a test that moves
 * the forward-only test clock keeps working in later years), and the wall clock an instant reads.
 * An implementation of their own (Intl, scanned and bisected), not the service's local-time.ts.
 */
import { expect } from 'vitest';
import type { TestApp } from '../support/app.js';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

const formats = new Map<string, Intl.DateTimeFormat>();
function parts(ms: number, tz: string): Record<string, number> {
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', weekday: 'short' });
    formats.set(tz, f);
  }
  const out: Record<string, number> = {};
  for (const p of f.formatToParts(new Date(ms))) {
    if (p.type === 'weekday') out.weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(p.value);
    else if (p.type !== 'literal') out[p.type] = Number(p.value);
  }
  return out;
}

/** Minutes the zone is ahead of UTC at `ms`. */
export function offsetMinutes(ms: number, tz: string): number {
  const p = parts(ms, tz);
  const wall = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return Math.round((wall - (ms - (ms % 1000))) / MINUTE);
}

/** "Sat 23:30" — what the zone's clock reads at `ms` (weekday, hours and minutes). */
export function wall(ms: number, tz: string): string {
  const p = parts(ms, tz);
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][p.weekday!];
  return `${day} ${String(p.hour).padStart(2, '0')}:${String(p.minute).padStart(2, '0')}`;
}

/**
 * The next change of `tz`'s offset after `after` that moves its clocks `forward` (spring) or back
 * (autumn): the instant it happens, and the offsets (minutes) before and after it.
 */
export function nextChange(tz: string, after: number, direction: 'forward' | 'back'): { at: number; before: number; after: number } {
  let t = Math.ceil(after / 1000) * 1000; // changes happen on whole seconds: bisect over them
  let off = offsetMinutes(t, tz);
  for (let i = 0; i < 800; i++) {
    const next = t + DAY / 2;
    const o = offsetMinutes(next, tz);
    if (o !== off) {
      let lo = t;
      let hi = next;
      while (hi - lo > 1000) {
        const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
        if (offsetMinutes(mid, tz) !== off) hi = mid;
        else lo = mid;
      }
      if ((o > off) === (direction === 'forward')) return { at: hi, before: off, after: o };
      off = o;
    }
    t = next;
  }
  throw new Error(`no ${direction} change of ${tz} within a year`);
}

/** Moves the test clock forward to `ms`, and checks the zone's clock reads `expected` there. */
export function moveTo(t: Pick<TestApp, 'clock'>, ms: number, tz: string, expected: string): void {
  const now = t.clock.now();
  expect(ms, 'the test clock only moves forward').toBeGreaterThan(now);
  t.clock.advance(ms - now);
  expect(wall(ms, tz)).toBe(expected);
}

/** A change at least two days ahead of the test clock (so the evening before it is still ahead too). */
export const upcomingChange = (t: Pick<TestApp, 'clock'>, tz: string, direction: 'forward' | 'back') => nextChange(tz, t.clock.now() + 2 * DAY, direction);

/** YYYY-MM-DD: the date `tz`'s calendar shows at `ms`. */
export const dateIn = (ms: number, tz: string) => new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(ms));

/** The instant `tz`'s clock reads `hhmm` on the local date `date` (a time that exists once that day). */
export function at(date: string, hhmm: string, tz: string): number {
  const [y, m, d] = date.split('-').map(Number);
  const [h, mi] = hhmm.split(':').map(Number);
  const wallMs = Date.UTC(y!, m! - 1, d!, h!, mi!);
  let ms = wallMs;
  for (let i = 0; i < 3; i++) ms = wallMs - offsetMinutes(ms, tz) * MINUTE;
  return ms;
}
