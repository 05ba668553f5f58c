/**
 * HubSpot's contact card and workflow action on the days clocks change in America/New_York (the
 * next changes after the test clock): the card's retry_after, a held action's next attempt, and
 * whether the daily cap is what a closed window's send meets, all by the project's true local day
 * (23 or 25 hours), not by "24 hours from a midnight off by the change".
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { allDeviceLogs } from '../../support/messaging.js';
import { HOUR, MINUTE, moveTo, upcomingChange, wall } from '../../messaging/zone-changes.js';
import { PORTAL, cardUrl, signed, startPortal, workflowPayload, type HubSpotHarness } from './helpers.js';

const tz = 'America/New_York';

describe('HubSpot on the days clocks change (America/New_York)', () => {
  let h: HubSpotHarness;
  beforeEach(async () => {
    h = await startPortal('sqlite');
  });
  afterEach(async () => h.close());

  const project = async (settings: Record<string, unknown>) => expect((await h.t.api('PATCH', '/api/v1/settings', { timezone: tz, ...settings })).statusCode).toBe(200);
  let contacts = 0;
  const card = async () => (await signed(h, 'GET', cardUrl(PORTAL, h.hs.addContact(PORTAL, { firstname: 'Bo', mobilephone: `+1415555${String(7000 + contacts++)}` })))).json().send;
  const workflow = (callbackId: string, phone: string, message: string) =>
    signed(h, 'POST', '/crm/hubspot/workflow/send', workflowPayload(PORTAL, '501', callbackId, { phone, message }), { version: 'v2' });
  const texts = async (text: string) => (await allDeviceLogs(h.t)).filter((e) => JSON.stringify(e).includes(text));

  it('clocks go back: the cap of 00:30 EDT holds through the repeated hour until Monday 00:00 EST, and the card counts it so', async () => {
    await project({ sending_window: { start: '00:00', end: '24:00' }, daily_first_touch_cap: 1 });
    const change = upcomingChange(h.t, tz, 'back'); // Sun 02:00 EDT -> 01:00 EST
    moveTo(h.t, change.at - 1.5 * HOUR, tz, 'Sun 00:30');
    expect((await workflow('cb-first', '+14155550731', 'First hello')).json().outputFields.hs_execution_state).toBe('SUCCESS');

    h.t.clock.advance(15 * MINUTE); // 00:45 EDT: the day has 25 hours, 24 h 15 min of them left
    expect(await card()).toMatchObject({ would_be_first_touch: true, allowed_now: false, error: 'daily cap reached', code: 4002, retry_after: 24.25 * 3600 });

    moveTo(h.t, change.at + 8 * HOUR, tz, 'Sun 09:00'); // EST
    expect(await card()).toMatchObject({ allowed_now: false, error: 'daily cap reached', retry_after: 15 * 3600 });
    const capped = await workflow('cb-capped', '+14155550732', 'Capped hello');
    expect(capped.json()).toMatchObject({ outputFields: { hs_execution_state: 'FAIL_CONTINUE', error: 'daily cap reached' }, ok: false, code: 4002 });
    expect(await texts('Capped hello')).toHaveLength(0);

    h.t.clock.advance(15 * HOUR);
    expect(wall(h.t.clock.now(), tz)).toBe('Mon 00:00');
    expect(await card()).toMatchObject({ would_be_first_touch: true, allowed_now: true });
  });

  it('clocks go back, window 20:00–01:00: at 01:30 EST the window opens again the same local day, so the cap is the answer (not a hold that sends a second first touch at 20:00)', async () => {
    await project({ sending_window: { start: '20:00', end: '01:00' }, daily_first_touch_cap: 1 });
    const change = upcomingChange(h.t, tz, 'back');
    moveTo(h.t, change.at - 1.5 * HOUR, tz, 'Sun 00:30');
    expect((await workflow('cb-first', '+14155550741', 'First hello')).json().outputFields.hs_execution_state).toBe('SUCCESS');

    moveTo(h.t, change.at + 30 * MINUTE, tz, 'Sun 01:30'); // EST: closed until 20:00 today
    const capped = await workflow('cb-evening', '+14155550742', 'Evening hello');
    expect(capped.json()).toMatchObject({ outputFields: { hs_execution_state: 'FAIL_CONTINUE', error: 'daily cap reached' }, ok: false, code: 4002 });
    expect(await card()).toMatchObject({ allowed_now: false, error: 'daily cap reached', retry_after: 22.5 * 3600 });

    moveTo(h.t, change.at + 19 * HOUR, tz, 'Sun 20:00');
    await h.t.services.hubspot!.heldActions.drain();
    expect(await texts('Evening hello')).toHaveLength(0);
  });

  it('clocks go forward: an action at 22:00 EST the evening before is held until 09:00 EDT (11 hours less the skipped one), and sent then', async () => {
    await project({ sending_window: { start: '09:00', end: '17:00' } });
    const change = upcomingChange(h.t, tz, 'forward'); // Sun 02:00 EST -> 03:00 EDT
    moveTo(h.t, change.at - 4 * HOUR, tz, 'Sat 22:00');
    const held = await workflow('cb-morning', '+14155550751', 'Morning hello');
    expect(held.json()).toMatchObject({ outputFields: { hs_execution_state: 'BLOCK' }, ok: true, held: true, reason: 'outside sending window' });
    // retry_after is whole seconds from the moment of the answer: within a second of the window's opening.
    expect(Date.parse(held.json().next_attempt_at) - (change.at + 6 * HOUR)).toBeGreaterThanOrEqual(0);
    expect(Date.parse(held.json().next_attempt_at) - (change.at + 6 * HOUR)).toBeLessThan(1000);
    expect(wall(Date.parse(held.json().next_attempt_at), tz)).toBe('Sun 09:00');
    expect(await card()).toMatchObject({ allowed_now: false, error: 'outside sending window', retry_after: 10 * 3600 });

    moveTo(h.t, change.at + 6 * HOUR + 1000, tz, 'Sun 09:00');
    await h.t.services.hubspot!.heldActions.drain();
    expect(await texts('Morning hello')).toHaveLength(1);
    expect(h.hs.completions.map((c) => [c.callbackId, c.outputFields.hs_execution_state])).toEqual([['cb-morning', 'SUCCESS']]);
  });
});
