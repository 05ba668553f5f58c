/**
 * PATCH /api/v1/settings: the project's timezone and sending window. Invalid values are 400 with
 * 1002 (1001 for a window missing a field) and change nothing; IANA names in any letter case, its
 * links (US/Eastern) and its Etc/GMT±N zones (sign inverted: Etc/GMT+5 is UTC-5) are taken and
 * computed in, a zone's name stored in its own letter case (America/New_York), a link as given
 * (Asia/Kolkata, not ICU's Asia/Calcutta); names the runtime takes that are not IANA's (Java's "BST" is Asia/Dhaka, SystemV/…)
 * are refused as a new setting, while a project saved with one before keeps working.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { newRecipient, prepareSandbox } from '../support/messaging.js';
import { DAY, HOUR, moveTo, upcomingChange } from '../messaging/zone-changes.js';

describe('PATCH /api/v1/settings: timezone and sending window', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp('sqlite');
    await prepareSandbox(t);
  });
  afterEach(async () => t.close());

  const patch = (body: unknown) => t.api('PATCH', '/api/v1/settings', body);
  const settings = async () => (await t.api('GET', '/api/v1/settings')).json().settings;
  const send = () => t.api('POST', '/api/v1/send', { phone: newRecipient(), body: 'hi' });
  /** Moves the test clock to the next 08:00 UTC. */
  const toNext0800Utc = () => {
    const now = t.clock.now();
    t.clock.advance(Math.floor(now / DAY) * DAY + DAY + 8 * HOUR - now);
  };

  it.each([
    [{ timezone: 'Mars/Olympus' }, 1002, /timezone "Mars\/Olympus" is not an IANA time zone/],
    [{ timezone: '+05:00' }, 1002, /not an IANA time zone/],
    [{ timezone: 'BST' }, 1002, /timezone "BST" is not an IANA time zone/], // the runtime would take it as Asia/Dhaka
    [{ timezone: 'ist' }, 1002, /not an IANA time zone/],
    [{ timezone: 'SystemV/EST5' }, 1002, /not an IANA time zone/],
    [{ timezone: '' }, 1002, /timezone/],
    [{ sending_window: { start: '9:00', end: '17:00' } }, 1002, /sending_window\.start/],
    [{ sending_window: { start: '24:00', end: '17:00' } }, 1002, /sending_window\.start "24:00"/],
    [{ sending_window: { start: '09:00', end: '24:01' } }, 1002, /sending_window\.end/],
    [{ sending_window: { start: '09:00', end: '09:00' } }, 1002, /equal/],
    [{ sending_window: { start: '09:00' } }, 1001, /sending_window\.end/],
  ])('%j: 400 / %s, and nothing changes', async (body, code, message) => {
    const before = await settings();
    const res = await patch(body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toMatchObject({ code, retryable: false, message: expect.stringMatching(message) });
    expect(await settings()).toEqual(before);
  });

  it('takes "utc", "etc/gmt+5" (UTC-5) and "US/Eastern", zones in their own letter case and links as given, and computes the window in them', async () => {
    toNext0800Utc();
    for (const [timezone, canonical, retryAfter] of [
      ['utc', 'UTC', 3600], // 08:00: opens at 09:00
      ['etc/gmt+5', 'Etc/GMT+5', 6 * 3600], // 03:00 at UTC-5
      ['Etc/GMT-5', 'Etc/GMT-5', 20 * 3600], // 13:00 at UTC+5: closed at 12:00, opens at 09:00 tomorrow
      ['america/new_york', 'America/New_York', 0], // checked below, across a change of its clocks
      ['Asia/Kolkata', 'Asia/Kolkata', 0], // a link the runtime's data would name Asia/Calcutta
    ] as const) {
      const res = await patch({ timezone, sending_window: { start: '09:00', end: '12:00' } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().settings).toMatchObject({ timezone: canonical, sending_window: { start: '09:00', end: '12:00' } });
      expect((await settings()).timezone).toBe(canonical);
      if (!retryAfter) continue;
      const refused = await send();
      expect(refused.json(), timezone).toMatchObject({ code: 4002, retry_after: retryAfter });
    }
    // A link: US/Eastern is America/New_York, its clocks change included.
    expect((await patch({ timezone: 'US/Eastern', sending_window: { start: '09:00', end: '17:00' } })).json().settings.timezone).toBe('US/Eastern');
    const change = upcomingChange(t, 'America/New_York', 'forward');
    moveTo(t, change.at - 4 * HOUR, 'US/Eastern', 'Sat 22:00');
    expect((await send()).json()).toMatchObject({ code: 4002, retry_after: 10 * 3600 });
  });

  it('a project saved with a non-IANA name before keeps it, and its other settings can still change', async () => {
    const tenant = (await t.testStore.store.tenants.getBySlug('demo'))!;
    await t.testStore.store.tenants.replace({ ...tenant, timezone: 'PST', sending_window: { start: '09:00', end: '17:00' } });
    const res = await patch({ daily_first_touch_cap: 7 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().settings).toMatchObject({ timezone: 'PST', daily_first_touch_cap: 7 });
    // Setting it anew is refused.
    expect((await patch({ timezone: 'PST' })).json().error).toMatchObject({ code: 1002 });
    expect((await patch({ timezone: 'America/Los_Angeles' })).statusCode).toBe(200);
  });
});
