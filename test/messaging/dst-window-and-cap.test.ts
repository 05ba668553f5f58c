/**
 * The sending window and the daily first-touch cap on the days clocks change, through
 * POST /api/v1/send, by moving the test clock to just before and after the zone's next change
 * (America/New_York, Europe/London, and southern-hemisphere zones: Sydney, Santiago whose clocks
 * change at midnight, Lord Howe's half hour), and in Kathmandu (+05:45).
 *
 * What a user sees: a first touch outside the window is 4002 with retry_after until the window
 * really opens (a local day of 23 or 25 hours is not 24; a wall-clock hour across the change is
 * not a real one), and the cap counts per local calendar day from its true midnight: neither the
 * last hour of the day before nor the first hour of the day itself changes day at the change.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { FIRST_TOUCH_GAP_MS, newRecipient, prepareSandbox } from '../support/messaging.js';
import { HOUR, MINUTE, moveTo, upcomingChange, wall } from './zone-changes.js';

type Reply = Awaited<ReturnType<TestApp['api']>>;

function expectWindowRefusal(res: Reply, retryAfter: number) {
  expect(res.statusCode, res.body).toBe(503);
  expect(res.json()).toMatchObject({ code: 4002, reason: expect.stringContaining('sending window'), retry_after: retryAfter });
  expect(res.headers['retry-after']).toBe(String(retryAfter));
}

function expectCapRefusal(res: Reply, retryAfter: number) {
  expect(res.statusCode, res.body).toBe(503);
  expect(res.json()).toMatchObject({ code: 4002, reason: expect.stringContaining('daily cap reached'), retry_after: retryAfter });
}

describe('the sending window on the days clocks change', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp('sqlite');
    await prepareSandbox(t);
  });
  afterEach(async () => t.close());

  const send = () => t.api('POST', '/api/v1/send', { phone: newRecipient(), body: 'hi' });
  const project = async (timezone: string, start: string, end: string) =>
    expect((await t.api('PATCH', '/api/v1/settings', { timezone, sending_window: { start, end } })).statusCode).toBe(200);

  /** Refused now with `retryAfter`; still refused a second before it ends; sent when it ends. */
  async function opensAfter(retryAfter: number, tz: string, opensAt: string) {
    expectWindowRefusal(await send(), retryAfter);
    t.clock.advance(retryAfter * 1000 - 1000);
    expectWindowRefusal(await send(), 1);
    t.clock.advance(1000);
    expect(wall(t.clock.now(), tz)).toBe(opensAt);
    const sent = await send();
    expect(sent.statusCode, sent.body).toBe(200);
  }

  it.each([
    // zone, clocks go, hours from Saturday 22:00 to the change (by the clock before it), hours until 09:00
    ['America/New_York', 'forward', 4, 10],
    ['America/New_York', 'back', 4, 12],
    ['Europe/London', 'forward', 3, 10],
    ['Europe/London', 'back', 4, 12],
    ['Australia/Sydney', 'forward', 4, 10],
    ['Australia/Sydney', 'back', 5, 12],
    ['Australia/Lord_Howe', 'forward', 4, 10.5],
  ] as const)('%s, 22:00 the evening before clocks go %s (%s h before the change): 09:00–17:00 opens %s hours later, at Sunday 09:00', async (tz, direction, toChange, hours) => {
    await project(tz, '09:00', '17:00');
    const change = upcomingChange(t, tz, direction);
    moveTo(t, change.at - toChange * HOUR, tz, 'Sat 22:00');
    const opensAt = 'Sun 09:00';
    await opensAfter(hours * 3600, tz, opensAt);
  });

  it('America/New_York, a window starting in the skipped hour (02:30): opens when clocks go forward, at 03:00 EDT', async () => {
    const tz = 'America/New_York';
    await project(tz, '02:30', '10:00');
    const change = upcomingChange(t, tz, 'forward');
    moveTo(t, change.at - HOUR, tz, 'Sun 01:00');
    await opensAfter(3600, tz, 'Sun 03:00');
  });

  it('America/New_York, a window ending in the repeated hour (20:00–01:30): the clock reads inside it again at 01:00 EST, and retry_after says so', async () => {
    const tz = 'America/New_York';
    await project(tz, '20:00', '01:30');
    const change = upcomingChange(t, tz, 'back');
    moveTo(t, change.at - 20 * MINUTE, tz, 'Sun 01:40'); // EDT
    await opensAfter(20 * 60, tz, 'Sun 01:00'); // EST
    // 01:30 EST: closed until 20:00 EST, 18.5 hours (the line's 10-minute gap is long over by then).
    t.clock.advance(30 * MINUTE);
    expectWindowRefusal(await send(), 18.5 * 3600);
  });

  it('Asia/Kathmandu (+05:45): 09:00–17:00 opens at 09:00 local, 13 hours after 20:00', async () => {
    const tz = 'Asia/Kathmandu';
    await project(tz, '09:00', '17:00');
    const now = t.clock.now();
    // 20:00 in Kathmandu is 14:15 UTC.
    const next = Math.ceil((now - 14.25 * HOUR) / (24 * HOUR)) * 24 * HOUR + 14.25 * HOUR + 24 * HOUR;
    moveTo(t, next, tz, wall(next, tz).slice(0, 4) + '20:00');
    await opensAfter(13 * 3600, tz, wall(next + 13 * HOUR, tz));
  });
});

describe.each(STORE_KINDS)('the daily first-touch cap on the days clocks change (%s)', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp(kind);
    await prepareSandbox(t);
    expect((await t.api('PATCH', '/api/v1/settings', { daily_first_touch_cap: 1, sending_window: { start: '00:00', end: '24:00' } })).statusCode).toBe(200);
  });
  afterEach(async () => t.close());

  const send = () => t.api('POST', '/api/v1/send', { phone: newRecipient(), body: 'hi' });
  const timezone = async (tz: string) => expect((await t.api('PATCH', '/api/v1/settings', { timezone: tz })).statusCode).toBe(200);
  const sent = async () => {
    const res = await send();
    expect(res.statusCode, res.body).toBe(200);
  };

  it('America/New_York, clocks go forward: a first touch at 23:30 the day before is not Sunday\'s; Sunday\'s cap lasts until Monday 00:00 EDT', async () => {
    const tz = 'America/New_York';
    await timezone(tz);
    const change = upcomingChange(t, tz, 'forward'); // Sun 02:00 EST -> 03:00 EDT
    moveTo(t, change.at - 2.5 * HOUR, tz, 'Sat 23:30');
    await sent();
    // Sunday after the change: Saturday's first touch is not today's.
    moveTo(t, change.at + 7 * HOUR, tz, 'Sun 10:00');
    await sent();
    // Capped until Monday 00:00 EDT: 13.5 hours.
    t.clock.advance(30 * MINUTE);
    expectCapRefusal(await send(), 13.5 * 3600);
    moveTo(t, change.at + 21 * HOUR - 1000, tz, 'Sun 23:59');
    expectCapRefusal(await send(), 1);
    t.clock.advance(1000);
    await sent();
  });

  it('America/New_York, clocks go forward: before the change, retry_after runs to Monday 00:00 EDT (22 hours from 01:00 EST, not 23)', async () => {
    const tz = 'America/New_York';
    await timezone(tz);
    const change = upcomingChange(t, tz, 'forward');
    moveTo(t, change.at - 1.5 * HOUR, tz, 'Sun 00:30');
    await sent();
    moveTo(t, change.at - HOUR, tz, 'Sun 01:00');
    expectCapRefusal(await send(), 22 * 3600);
    t.clock.advance(22 * HOUR);
    expect(wall(t.clock.now(), tz)).toBe('Mon 00:00');
    await sent();
  });

  it('America/New_York, clocks go back: the first touch of 00:30 EDT still counts after 01:00 EST, until Monday 00:00 EST (25-hour day)', async () => {
    const tz = 'America/New_York';
    await timezone(tz);
    const change = upcomingChange(t, tz, 'back'); // Sun 02:00 EDT -> 01:00 EST
    moveTo(t, change.at - 1.5 * HOUR, tz, 'Sun 00:30');
    await sent();
    t.clock.advance(15 * MINUTE); // 00:45 EDT: 24 h 15 min until Monday 00:00 EST
    expectCapRefusal(await send(), 24.25 * 3600);
    moveTo(t, change.at + 30 * MINUTE, tz, 'Sun 01:30'); // EST, the repeated hour
    expectCapRefusal(await send(), 22.5 * 3600);
    moveTo(t, change.at + 8 * HOUR, tz, 'Sun 09:00');
    expectCapRefusal(await send(), 15 * 3600);
    t.clock.advance(15 * HOUR);
    expect(wall(t.clock.now(), tz)).toBe('Mon 00:00');
    await sent();
  });

  it('Europe/London: Saturday 23:30 GMT is not Sunday\'s after clocks go forward; 00:30 BST still counts after they go back', async () => {
    const tz = 'Europe/London';
    await timezone(tz);
    const spring = upcomingChange(t, tz, 'forward'); // Sun 01:00 GMT -> 02:00 BST
    const autumn = upcomingChange(t, tz, 'back'); // Sun 02:00 BST -> 01:00 GMT
    const [first, second] = spring.at < autumn.at ? (['spring', 'autumn'] as const) : (['autumn', 'spring'] as const);
    for (const season of [first, second]) {
      if (season === 'spring') {
        moveTo(t, spring.at - 1.5 * HOUR, tz, 'Sat 23:30');
        await sent();
        moveTo(t, spring.at + 10 * HOUR, tz, 'Sun 12:00');
        await sent();
        t.clock.advance(FIRST_TOUCH_GAP_MS);
        expectCapRefusal(await send(), 11 * 3600 + 50 * 60); // until Monday 00:00 BST
      } else {
        moveTo(t, autumn.at - 1.5 * HOUR, tz, 'Sun 00:30');
        await sent();
        moveTo(t, autumn.at + 11 * HOUR, tz, 'Sun 12:00');
        expectCapRefusal(await send(), 12 * 3600); // until Monday 00:00 GMT
      }
    }
  });

  it('America/Santiago, clocks go forward at midnight: Sunday begins at 01:00 -03, and Saturday 23:30 is not Sunday\'s', async () => {
    const tz = 'America/Santiago';
    await timezone(tz);
    const change = upcomingChange(t, tz, 'forward'); // Sat 24:00 -04 -> Sun 01:00 -03
    moveTo(t, change.at - 30 * MINUTE, tz, 'Sat 23:30');
    await sent();
    t.clock.advance(15 * MINUTE);
    expectCapRefusal(await send(), 15 * 60); // Saturday ends at the change
    moveTo(t, change.at, tz, 'Sun 01:00');
    await sent();
  });

  it('America/Santiago, clocks go back at midnight: Saturday has 25 hours, its 23:00 twice, and a first touch at 00:30 counts all of it', async () => {
    const tz = 'America/Santiago';
    await timezone(tz);
    const change = upcomingChange(t, tz, 'back'); // Sat 24:00 -03 -> Sat 23:00 -04
    moveTo(t, change.at - 23.5 * HOUR, tz, 'Sat 00:30');
    await sent();
    moveTo(t, change.at + 30 * MINUTE, tz, 'Sat 23:30'); // -04, the second time
    expectCapRefusal(await send(), 30 * 60);
    t.clock.advance(30 * MINUTE);
    expect(wall(t.clock.now(), tz)).toBe('Sun 00:00');
    await sent();
  });

  it('Australia/Lord_Howe, half-hour change: Sunday has 23.5 hours', async () => {
    const tz = 'Australia/Lord_Howe';
    await timezone(tz);
    const change = upcomingChange(t, tz, 'forward'); // Sun 02:00 +10:30 -> 02:30 +11
    moveTo(t, change.at - 1.5 * HOUR, tz, 'Sun 00:30');
    await sent();
    t.clock.advance(30 * MINUTE); // 01:00 +10:30: 22.5 hours to Monday 00:00 +11
    expectCapRefusal(await send(), 22.5 * 3600);
  });

  it('Asia/Kathmandu (+05:45): the cap resets at local midnight, 18:15 UTC', async () => {
    const tz = 'Asia/Kathmandu';
    await timezone(tz);
    const now = t.clock.now();
    const midnight = Math.ceil((now - 18.25 * HOUR) / (24 * HOUR)) * 24 * HOUR + 18.25 * HOUR + 24 * HOUR;
    moveTo(t, midnight - 10 * MINUTE, tz, wall(midnight - 10 * MINUTE, tz).slice(0, 4) + '23:50');
    await sent();
    t.clock.advance(5 * MINUTE);
    expectCapRefusal(await send(), 5 * 60);
    t.clock.advance(5 * MINUTE);
    expect(wall(t.clock.now(), tz).slice(4)).toBe('00:00');
    await sent();
  });
});
