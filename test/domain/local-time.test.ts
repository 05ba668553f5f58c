/**
 * Local days and the sending window on the days clocks change, at the 2026 changes themselves
 * (instants given, no clock: these dates are behind the test clock, which only moves forward; the
 * same rules are checked through the API at the next changes in test/messaging/dst-window-and-cap).
 * A local day is 23 or 25 hours there, and a wall-clock minute is not a real one across the change.
 */
import { describe, expect, it } from 'vitest';
import { localDayStart, msUntilWindowOpens } from '../../src/domain/messaging/limits.js';
import { localDate, nextLocalDayStart } from '../../src/domain/messaging/local-time.js';
import type { Tenant } from '../../src/store/index.js';

const H = 3_600_000;
const at = (iso: string) => Date.parse(iso);
const tenant = (timezone: string, start: string, end: string) => ({ timezone, sending_window: { start, end } }) as Tenant;
const hours = (ms: number) => ms / H;

describe('localDayStart: the true local midnight', () => {
  it.each([
    // zone, an instant of the day, its local midnight (UTC), the next local midnight (UTC), hours in the day
    ['America/New_York', '2026-03-08T16:00:00Z', '2026-03-08T05:00:00Z', '2026-03-09T04:00:00Z', 23], // 12:00 EDT, clocks went forward at 02:00
    ['America/New_York', '2026-03-08T06:30:00Z', '2026-03-08T05:00:00Z', '2026-03-09T04:00:00Z', 23], // 01:30 EST, before the change
    ['America/New_York', '2026-11-01T17:00:00Z', '2026-11-01T04:00:00Z', '2026-11-02T05:00:00Z', 25], // 12:00 EST, clocks went back at 02:00
    ['America/New_York', '2026-11-01T05:30:00Z', '2026-11-01T04:00:00Z', '2026-11-02T05:00:00Z', 25], // 01:30 EDT, before the change
    ['America/New_York', '2026-11-01T06:30:00Z', '2026-11-01T04:00:00Z', '2026-11-02T05:00:00Z', 25], // 01:30 EST, the repeated hour
    ['Europe/London', '2026-03-29T12:00:00Z', '2026-03-29T00:00:00Z', '2026-03-29T23:00:00Z', 23],
    ['Europe/London', '2026-10-25T12:00:00Z', '2026-10-24T23:00:00Z', '2026-10-26T00:00:00Z', 25],
    // Southern hemisphere: Sydney forward on 2026-10-04, back on 2026-04-05.
    ['Australia/Sydney', '2026-10-04T02:00:00Z', '2026-10-03T14:00:00Z', '2026-10-04T13:00:00Z', 23],
    ['Australia/Sydney', '2026-04-05T02:00:00Z', '2026-04-04T13:00:00Z', '2026-04-05T14:00:00Z', 25],
    // Clocks change at midnight: Santiago's 2026-09-06 has no 00:00 (it begins at 01:00 -03), its 2026-04-04 has 23:00-24:00 twice.
    ['America/Santiago', '2026-09-06T15:00:00Z', '2026-09-06T04:00:00Z', '2026-09-07T03:00:00Z', 23],
    ['America/Santiago', '2026-04-05T03:30:00Z', '2026-04-04T03:00:00Z', '2026-04-05T04:00:00Z', 25], // Sat 23:30 -04, the second time
    // Havana goes back from 01:00 to 00:00: 2026-11-01 has its midnight twice, and begins at the first.
    ['America/Havana', '2026-11-01T17:00:00Z', '2026-11-01T04:00:00Z', '2026-11-02T05:00:00Z', 25],
    // Beirut went back from 00:00 to 23:00 (2022-10-30), and forward from 00:00 to 01:00 (2022-03-27).
    ['Asia/Beirut', '2022-10-29T21:30:00Z', '2022-10-28T21:00:00Z', '2022-10-29T22:00:00Z', 25],
    ['Asia/Beirut', '2022-03-27T12:00:00Z', '2022-03-26T22:00:00Z', '2022-03-27T21:00:00Z', 23],
    // Half-hour DST (Lord Howe, +10:30 / +11) and a quarter-hour offset (Kathmandu, +05:45).
    ['Australia/Lord_Howe', '2026-10-04T05:00:00Z', '2026-10-03T13:30:00Z', '2026-10-04T13:00:00Z', 23.5],
    ['Australia/Lord_Howe', '2026-04-05T05:00:00Z', '2026-04-04T13:00:00Z', '2026-04-05T13:30:00Z', 24.5],
    ['Asia/Kathmandu', '2026-10-04T05:00:00Z', '2026-10-03T18:15:00Z', '2026-10-04T18:15:00Z', 24],
  ])('%s at %s: the day began at %s and ends at %s (%s hours)', (tz, instant, start, next, length) => {
    const ms = at(instant);
    expect(new Date(localDayStart(ms, tz)).toISOString()).toBe(new Date(at(start)).toISOString());
    expect(new Date(nextLocalDayStart(ms, tz)).toISOString()).toBe(new Date(at(next)).toISOString());
    expect(hours(at(next) - at(start))).toBe(length);
    // The day's first instant is on that local date, the instant before it on the one before.
    expect(localDate(at(start), tz)).toBe(localDate(ms, tz));
    expect(localDate(at(start) - 1, tz) < localDate(ms, tz)).toBe(true);
  });
});

describe('msUntilWindowOpens: real time until the wall clock reads a time inside the window', () => {
  it.each([
    // zone, window, now, hours until it opens — with what the clock reads then
    ['America/New_York', '09:00', '17:00', '2026-03-08T01:00:00Z', 12], // Sat 20:00 EST -> Sun 09:00 EDT (not 13: 10:00 EDT)
    ['America/New_York', '09:00', '17:00', '2026-11-01T00:00:00Z', 14], // Sat 20:00 EDT -> Sun 09:00 EST (not 13: 08:00 EST)
    ['America/New_York', '02:30', '10:00', '2026-03-08T06:00:00Z', 1], // 01:00 EST; 02:30 is skipped: opens at the change, 03:00 EDT
    ['America/New_York', '20:00', '01:30', '2026-11-01T05:40:00Z', 1 / 3], // 01:40 EDT; 01:00 EST reads inside again
    ['America/New_York', '20:00', '01:30', '2026-11-01T06:30:00Z', 18.5], // 01:30 EST -> 20:00 EST
    ['America/New_York', '00:00', '24:00', '2026-03-08T06:59:00Z', 0],
    ['Europe/London', '09:00', '17:00', '2026-03-28T20:00:00Z', 12], // Sat 20:00 GMT -> Sun 09:00 BST
    ['Europe/London', '09:00', '17:00', '2026-10-24T19:00:00Z', 14], // Sat 20:00 BST -> Sun 09:00 GMT
    ['Europe/London', '01:15', '08:00', '2026-03-29T00:30:00Z', 0.5], // 00:30 GMT; 01:15 is skipped: opens at 02:00 BST
    ['Australia/Sydney', '09:00', '17:00', '2026-10-03T12:00:00Z', 10], // Sat 22:00 AEST -> Sun 09:00 AEDT
    ['Australia/Sydney', '09:00', '17:00', '2026-04-04T11:00:00Z', 12], // Sat 22:00 AEDT -> Sun 09:00 AEST
    ['America/Santiago', '00:30', '06:00', '2026-09-06T03:00:00Z', 1], // Sat 23:00 -04; Sunday has no 00:30: opens at 01:00 -03
    ['Australia/Lord_Howe', '09:00', '17:00', '2026-10-03T11:30:00Z', 10.5], // Sat 22:00 +10:30 -> Sun 09:00 +11
    ['Asia/Kathmandu', '09:00', '17:00', '2026-10-04T14:15:00Z', 13], // 20:00 +05:45 -> 09:00
  ])('%s %s–%s at %s: opens in %s h', (tz, start, end, now, wait) => {
    expect(hours(msUntilWindowOpens(at(now), tenant(tz, start, end)))).toBeCloseTo(wait, 9);
  });
});
