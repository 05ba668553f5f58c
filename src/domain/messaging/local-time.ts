/**
 * Local-time arithmetic in a project's IANA time zone: the one place that turns an instant into
 * wall-clock parts, a local calendar day into the instants it spans, and a daily "HH:MM–HH:MM"
 * window into the wait until it opens. Everything that counts "today" (the daily caps, their
 * retry_after, the HubSpot call counts, metrics) or waits for the sending window reads it here.
 *
 * Nothing here assumes a local day is 24 hours or that a wall-clock minute is a real minute:
 * around a DST change a day is 23 or 25 hours (23.5 or 24.5 on Australia/Lord_Howe), a wall time
 * may not exist (the skipped hour) or exist twice (the repeated hour), and in zones that change
 * at midnight (America/Santiago, America/Havana, Asia/Beirut in some years) a day may have no
 * 00:00 at all: it then begins at the change (01:00).
 *
 * The window is a set of wall-clock readings: an instant is inside when the zone's clock then
 * reads a time in [start, end) (or, for a window spanning midnight, at or after start or before
 * end). So in the skipped hour a window whose start was skipped opens at the change (its first
 * reading at or after start); in the repeated hour a reading inside the window is inside both
 * times. The wait is until the first instant that is inside, in real milliseconds.
 */
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

const mod = (a: number, n: number) => ((a % n) + n) % n;

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(tz, f);
  }
  return f;
}

interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The wall-clock reading of `ms` in `tz`. */
function localParts(ms: number, tz: string): LocalParts {
  const p: Record<string, number> = {};
  for (const part of formatter(tz).formatToParts(new Date(ms))) {
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  }
  return { year: p.year!, month: p.month!, day: p.day!, hour: p.hour!, minute: p.minute!, second: p.second! };
}

/** The wall-clock reading of `ms` in `tz`, as the UTC instant that reads the same (millisecond precision). */
function wallMs(ms: number, tz: string): number {
  const p = localParts(ms, tz);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) + mod(ms, 1000);
}

/** The zone's offset from UTC at `ms` (local minus UTC), in milliseconds. */
function utcOffsetMs(ms: number, tz: string): number {
  return wallMs(ms, tz) - ms;
}

/** The local calendar date of `ms` in `tz`, as days since 1970-01-01. */
const localDayNumber = (ms: number, tz: string) => Math.floor(wallMs(ms, tz) / DAY_MS);

/** YYYY-MM-DD: the local calendar date of `ms` in `tz`. */
export function localDate(ms: number, tz: string): string {
  const p = localParts(ms, tz);
  return `${String(p.year).padStart(4, '0')}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/**
 * The first instant whose local date in `tz` is `day` (days since 1970-01-01) or later: its
 * midnight, or the change that skipped its midnight. `offset`: the zone's offset near it.
 */
function firstInstantOf(day: number, tz: string, offset: number): number {
  const midnight = day * DAY_MS;
  const isFirst = (t: number) => localDayNumber(t, tz) >= day && localDayNumber(t - 1, tz) < day;
  // Midnight at the offset given, then at the offset in effect there: one or two tries on every
  // day, also the ones with a change (a skipped midnight lands on the change).
  let guess = midnight - offset;
  for (let i = 0; i < 3; i++) {
    if (isFirst(guess)) return guess;
    const next = midnight - utcOffsetMs(guess, tz);
    if (next === guess) break;
    guess = next;
  }
  // Otherwise (a midnight repeated by a change back, say): the first instant of the day by bisection.
  let lo = midnight - 2 * DAY_MS;
  let hi = midnight + 2 * DAY_MS;
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (localDayNumber(mid, tz) >= day) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The first instant of the local calendar day in `tz` that contains `ms` (its local midnight). */
export function localDayStart(ms: number, tz: string): number {
  const wall = wallMs(ms, tz);
  return firstInstantOf(Math.floor(wall / DAY_MS), tz, wall - ms);
}

/** The first instant of the local calendar day after the one containing `ms`: when "today" ends. */
export function nextLocalDayStart(ms: number, tz: string): number {
  const wall = wallMs(ms, tz);
  return firstInstantOf(Math.floor(wall / DAY_MS) + 1, tz, wall - ms);
}

/** The first instant in (from, to] whose offset is not `offset`, or null when it stays the same (probed hourly). */
function offsetChange(from: number, to: number, offset: number, tz: string): number | null {
  for (let a = from; a < to; ) {
    const b = Math.min(to, a + HOUR_MS);
    if (utcOffsetMs(b, tz) !== offset) {
      let lo = a;
      let hi = b;
      while (hi - lo > 1) {
        const mid = lo + Math.floor((hi - lo) / 2);
        if (utcOffsetMs(mid, tz) !== offset) hi = mid;
        else lo = mid;
      }
      return hi;
    }
    a = b;
  }
  return null;
}

/** Minutes since local midnight of "HH:MM" (24:00 is 1440). */
const wallMinutes = (hhmm: string): number => {
  const [h, m] = hhmm.split(':').map(Number);
  return h! * 60 + m!;
};

/**
 * 0 when the wall clock of `tz` reads a time inside the daily window [start, end) at `ms` (a window
 * with end before start spans midnight), else the real milliseconds until it first does.
 */
export function msUntilDailyWindow(ms: number, tz: string, window: { start: string; end: string }): number {
  const start = wallMinutes(window.start) * MINUTE_MS;
  const end = wallMinutes(window.end) * MINUTE_MS;
  const inside = (wall: number) => {
    const tod = mod(wall, DAY_MS);
    return start < end ? tod >= start && tod < end : tod >= start || tod < end;
  };
  let t = ms;
  let offset = utcOffsetMs(t, tz);
  if (inside(t + offset)) return 0;
  // Between offset changes the wall clock runs with real time, so it enters the window when it
  // reads `start`; a change may instead put it inside at once (the skipped or repeated hour).
  for (let i = 0; i < 8; i++) {
    const reachesStart = t + mod(start - (t + offset), DAY_MS);
    const change = offsetChange(t, reachesStart, offset, tz);
    if (change === null) return reachesStart - ms;
    t = change;
    offset = utcOffsetMs(t, tz);
    if (inside(t + offset)) return t - ms;
  }
  return t - ms;
}
