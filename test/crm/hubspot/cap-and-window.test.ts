/**
 * A workflow action when the project's daily first-touch cap is reached and the sending window is
 * closed. The cap counts per calendar day in the project's time zone, so what the action waits for
 * depends on when the window opens again:
 * - later the same local day: the cap is still reached then, so the answer is the cap's, now
 *   (FAIL_CONTINUE "daily cap reached", nothing held). Before, it was BLOCK for the window, and the
 *   workflow sat for hours only to fail with "daily cap reached" when the window opened;
 * - on a later local day (the cap has reset by then): BLOCK until the window opens, then sent.
 * The contact card says the same. All by the test clock, in time zones where the UTC day differs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../../support/stores.js';
import { allDeviceLogs } from '../../support/messaging.js';
import { PORTAL, cardUrl, signed, startPortal, workflowPayload, type HubSpotHarness } from './helpers.js';

const texts = async (h: HubSpotHarness, text: string) => (await allDeviceLogs(h.t)).map((e) => JSON.stringify(e)).filter((x) => x.includes(text));
const send = (h: HubSpotHarness, callbackId: string, phone: string, message: string) =>
  signed(h, 'POST', '/crm/hubspot/workflow/send', workflowPayload(PORTAL, '501', callbackId, { phone, message }), { version: 'v2' });

function localTime(ms: number, tz: string) {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(ms));
  const get = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  return { hour: get('hour'), minute: get('minute'), second: get('second') };
}

/** Moves the test clock forward to the next `hh:mm` in `tz`. */
function moveToLocal(h: HubSpotHarness, tz: string, hhmm: string) {
  const [hh, mm] = hhmm.split(':').map(Number) as [number, number];
  const now = h.t.clock.now();
  const p = localTime(now, tz);
  let minutes = (hh * 60 + mm - (p.hour * 60 + p.minute) + 1440) % 1440;
  if (minutes === 0) minutes = 1440;
  h.t.clock.advance(minutes * 60_000 - p.second * 1000 - (now % 1000));
  const at = localTime(h.t.clock.now(), tz);
  expect(`${String(at.hour).padStart(2, '0')}:${String(at.minute).padStart(2, '0')}`).toBe(hhmm);
}

describe.each(STORE_KINDS)('workflow action with the daily cap reached and the window closed (%s)', (kind) => {
  let h: HubSpotHarness;
  beforeEach(async () => {
    h = await startPortal(kind);
  });
  afterEach(async () => h.close());
  const job = () => h.t.services.hubspot!.heldActions;
  const heldActions = async () => (await h.t.api('GET', `/api/v1/integrations/hubspot/${PORTAL}/held-actions`)).json().held_actions;
  const cardSend = async () => (await signed(h, 'GET', cardUrl(PORTAL, h.hs.addContact(PORTAL, { firstname: 'Bo', mobilephone: '+14155550799' })))).json().send;

  async function project(timezone: string, start: string, end: string) {
    expect((await h.t.admin('PATCH', '/admin/v1/tenants/demo', { timezone, sending_window: { start, end }, daily_first_touch_cap: 1 })).statusCode).toBe(200);
  }

  it('the window opens again later the same local day: FAIL_CONTINUE "daily cap reached" now, nothing held, nothing sent when it opens', async () => {
    const tz = 'America/New_York';
    // The window spans local midnight: 01:00 is inside it and counts for the new day.
    await project(tz, '22:00', '02:00');
    moveToLocal(h, tz, '01:00');
    expect((await send(h, 'cb-first', '+14155550731', 'First hello')).json().outputFields.hs_execution_state).toBe('SUCCESS');

    // 03:00: the window is closed until 22:00 today (already tomorrow in UTC), and today's cap is used up.
    moveToLocal(h, tz, '03:00');
    const capped = await send(h, 'cb-capped', '+14155550732', 'Capped hello');
    expect(capped.json()).toMatchObject({ outputFields: { hs_execution_state: 'FAIL_CONTINUE', error: 'daily cap reached' }, ok: false, error: 'daily cap reached', code: 4002 });
    expect(capped.json().message).toMatch(/daily first-touch cap \(1\)/);
    expect(await heldActions()).toEqual([]);
    expect(await cardSend()).toMatchObject({ would_be_first_touch: true, allowed_now: false, error: 'daily cap reached' });

    // When the window opens, the cap is still reached: nothing is sent, and HubSpot is told nothing more.
    moveToLocal(h, tz, '22:01');
    await job().drain();
    expect(await texts(h, 'Capped hello')).toHaveLength(0);
    expect(h.hs.completions).toEqual([]);
  });

  it('the window opens on the next local day, when the cap has reset: BLOCK, then sent when it opens', async () => {
    const tz = 'America/Los_Angeles';
    await project(tz, '09:00', '17:00');
    moveToLocal(h, tz, '10:00');
    expect((await send(h, 'cb-first', '+14155550741', 'First hello')).json().outputFields.hs_execution_state).toBe('SUCCESS');

    // 18:00: closed until 09:00 tomorrow (the same day in UTC), and today's cap is used up.
    moveToLocal(h, tz, '18:00');
    const held = await send(h, 'cb-tomorrow', '+14155550742', 'Tomorrow hello');
    expect(held.json()).toMatchObject({ outputFields: { hs_execution_state: 'BLOCK' }, ok: true, held: true, reason: 'outside sending window' });
    const wait = Date.parse(held.json().next_attempt_at) - h.t.clock.now();
    expect(wait).toBeGreaterThan(15 * 3_600_000 - 5000);
    expect(wait).toBeLessThanOrEqual(15 * 3_600_000);
    expect(await cardSend()).toMatchObject({ would_be_first_touch: true, allowed_now: false, error: 'outside sending window' });

    moveToLocal(h, tz, '09:01');
    await job().drain();
    await job().drain();
    expect(await texts(h, 'Tomorrow hello')).toHaveLength(1);
    expect(h.hs.completions.map((c) => [c.callbackId, c.outputFields.hs_execution_state])).toEqual([['cb-tomorrow', 'SUCCESS']]);
  });

  it('a window that opens at local midnight opens on the next day: BLOCK, then sent at midnight', async () => {
    const tz = 'Asia/Tokyo';
    await project(tz, '00:00', '08:00');
    moveToLocal(h, tz, '07:00');
    expect((await send(h, 'cb-first', '+14155550751', 'First hello')).json().outputFields.hs_execution_state).toBe('SUCCESS');

    moveToLocal(h, tz, '12:00');
    expect((await send(h, 'cb-midnight', '+14155550752', 'Midnight hello')).json()).toMatchObject({ outputFields: { hs_execution_state: 'BLOCK' }, held: true, reason: 'outside sending window' });

    moveToLocal(h, tz, '00:01');
    await job().drain();
    await job().drain();
    expect(await texts(h, 'Midnight hello')).toHaveLength(1);
    expect(h.hs.completions.map((c) => [c.callbackId, c.outputFields.hs_execution_state])).toEqual([['cb-midnight', 'SUCCESS']]);
  });
});
