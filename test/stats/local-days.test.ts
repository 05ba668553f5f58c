/**
 * GET /api/v1/stats counts messages per local calendar day of the project (its time zone), the
 * same "today" as the first-touch cap: a Los Angeles project's evening messages are that
 * evening's, a Tokyo project's morning messages are that morning's, and on the days clocks
 * change (23 or 25 hours) every message of the day counts on it, and none of the next day's.
 * Through the API, with the test clock moved (never slept), on SQLite and PostgreSQL.
 *
 * Local dates and instants are computed here with Intl (test/messaging/zone-changes.ts), not with
 * the service's local-time.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { newRecipient, prepareSandbox } from '../support/messaging.js';
import { DAY, HOUR, MINUTE, at, dateIn, moveTo, upcomingChange, wall } from '../messaging/zone-changes.js';

interface Daily {
  date: string;
  phone_line_id: string | null;
  sent: number;
  received: number;
  failed: number;
}

/** Messages per local date, all lines together. */
const perDate = (daily: Daily[]) => {
  const out: Record<string, number> = {};
  for (const d of daily) out[d.date] = (out[d.date] ?? 0) + d.sent + d.received + d.failed;
  return out;
};

describe.each(STORE_KINDS)('stats per local day of the project (%s)', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp(kind);
    await prepareSandbox(t);
    const res = await t.api('PATCH', '/api/v1/settings', { daily_first_touch_cap: 1000, sending_window: { start: '00:00', end: '24:00' } });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterEach(async () => t.close());

  const timezone = async (tz: string) => expect((await t.api('PATCH', '/api/v1/settings', { timezone: tz })).statusCode).toBe(200);
  const stats = async (days: number) => {
    const res = await t.api('GET', `/api/v1/stats?days=${days}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { days: number; daily: Daily[]; first_touches_today: { used: number; cap: number } };
  };
  /** Moves the test clock forward to `ms`, where `tz`'s clock reads `hhmm`. */
  const moveToTime = (ms: number, tz: string, hhmm: string) => moveTo(t, ms, tz, `${wall(ms, tz).slice(0, 3)} ${hhmm}`);
  /** Sends to `phone` (a first touch the first time, a follow-up after). */
  const send = async (phone: string) => {
    const res = await t.api('POST', '/api/v1/send', { phone, body: 'hi' });
    expect(res.statusCode, res.body).toBe(200);
  };

  it('America/Los_Angeles: messages at 09:00, 17:00 and 23:00 local all count on that local date, the one the first-touch cap calls today', async () => {
    const tz = 'America/Los_Angeles';
    await timezone(tz);
    const day = dateIn(t.clock.now() + 2 * DAY, tz);
    const contact = newRecipient();
    moveToTime(at(day, '09:00', tz), tz, '09:00');
    await send(contact); // the day's first touch
    moveToTime(at(day, '17:00', tz), tz, '17:00'); // 00:00 or 01:00 UTC the next day
    await send(contact);
    moveToTime(at(day, '23:00', tz), tz, '23:00');
    await send(contact);
    t.clock.advance(30 * MINUTE);

    const s = await stats(2);
    expect(perDate(s.daily)).toEqual({ [day]: 3 });
    expect(s.daily).toEqual([{ date: day, phone_line_id: expect.any(String), sent: 3, received: 0, failed: 0 }]);
    // "Today" of the chart is the cap's today: the first touch of 09:00 is in both.
    expect(s.first_touches_today.used).toBe(1);
    const today = await stats(1);
    expect(today.daily.map((d) => d.date)).toEqual([day]);
    expect(today.daily[0]!.sent).toBe(3);

    // Just after local midnight: a new day in the chart as in the cap; yesterday's three stay yesterday's.
    moveToTime(at(dateIn(t.clock.now() + HOUR, tz), '00:00', tz), tz, '00:00');
    await send(contact);
    const next = dateIn(t.clock.now(), tz);
    expect(perDate((await stats(2)).daily)).toEqual({ [day]: 3, [next]: 1 });
    expect((await stats(1)).daily.map((d) => [d.date, d.sent])).toEqual([[next, 1]]);
    expect((await stats(1)).first_touches_today.used).toBe(0);
  });

  it('Asia/Tokyo (+09:00): a message at 08:00 local (23:00 UTC the day before) counts on the local date', async () => {
    const tz = 'Asia/Tokyo';
    await timezone(tz);
    const day = dateIn(t.clock.now() + 2 * DAY, tz);
    const contact = newRecipient();
    moveToTime(at(day, '08:00', tz), tz, '08:00');
    await send(contact);
    moveToTime(at(day, '20:00', tz), tz, '20:00');
    await send(contact);
    const s = await stats(1);
    expect(s.daily.map((d) => [d.date, d.sent])).toEqual([[day, 2]]);
    expect(s.first_touches_today.used).toBe(1);
  });

  it('America/Los_Angeles, clocks go forward: the 23-hour day counts its messages from 00:00 PST to 23:59 PDT, and only those', async () => {
    const tz = 'America/Los_Angeles';
    await timezone(tz);
    const change = upcomingChange(t, tz, 'forward'); // Sun 02:00 PST -> 03:00 PDT (2027-03-14 the first time)
    const contact = newRecipient();
    const day = dateIn(change.at, tz);
    const before = dateIn(change.at - 3 * HOUR, tz);
    const after = dateIn(change.at + 22 * HOUR, tz);
    moveTo(t, change.at - 2 * HOUR - MINUTE, tz, 'Sat 23:59');
    await send(contact);
    moveTo(t, change.at - 2 * HOUR, tz, 'Sun 00:00'); // PST: 08:00 UTC
    await send(contact);
    moveTo(t, change.at - 1 * MINUTE, tz, 'Sun 01:59');
    await send(contact);
    moveTo(t, change.at, tz, 'Sun 03:00'); // PDT
    await send(contact);
    moveTo(t, change.at + 21 * HOUR - MINUTE, tz, 'Sun 23:59'); // PDT: 06:59 UTC on Monday
    await send(contact);
    const sunday = await stats(2);
    expect(perDate(sunday.daily)).toEqual({ [before]: 1, [day]: 4 });
    expect(sunday.daily.at(-1)!.date).toBe(day);
    moveTo(t, change.at + 21 * HOUR, tz, 'Mon 00:00'); // 23 hours after Sunday began
    await send(contact);
    moveTo(t, change.at + 22 * HOUR, tz, 'Mon 01:00');
    await send(contact);
    expect(perDate((await stats(3)).daily)).toEqual({ [before]: 1, [day]: 4, [after]: 2 });
    // The window of 2 days is Sunday and Monday: Saturday's 23:59 is left out, Sunday's 00:00 is in.
    expect(perDate((await stats(2)).daily)).toEqual({ [day]: 4, [after]: 2 });
  });

  it('America/Los_Angeles, clocks go back: the 25-hour day counts both of its 01:30s and ends at 00:00 PST', async () => {
    const tz = 'America/Los_Angeles';
    await timezone(tz);
    const change = upcomingChange(t, tz, 'back'); // Sun 02:00 PDT -> 01:00 PST
    const contact = newRecipient();
    const day = dateIn(change.at, tz);
    const after = dateIn(change.at + 24 * HOUR, tz);
    moveTo(t, change.at - 2 * HOUR, tz, 'Sun 00:00'); // PDT
    await send(contact);
    moveTo(t, change.at - 30 * MINUTE, tz, 'Sun 01:30'); // PDT
    await send(contact);
    moveTo(t, change.at + 30 * MINUTE, tz, 'Sun 01:30'); // PST
    await send(contact);
    moveTo(t, change.at + 23 * HOUR - MINUTE, tz, 'Sun 23:59'); // PST: 25 hours after Sunday began, less a minute
    await send(contact);
    moveTo(t, change.at + 23 * HOUR, tz, 'Mon 00:00');
    await send(contact);
    expect(perDate((await stats(2)).daily)).toEqual({ [day]: 4, [after]: 1 });
  });
});
