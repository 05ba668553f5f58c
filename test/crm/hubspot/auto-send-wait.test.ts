/**
 * A contact-creation auto-send refused only for time (outside the sending window, every line at
 * its first-touch gap) waits and is sent when allowed, once, without reading the contact again;
 * the tenant's list says it is waiting and until when; after seven days it is recorded failed.
 * Before, it was recorded failed at once and the contact was never texted. The project's daily
 * cap still records failed and skips the send (spec). All by the test clock.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../../support/stores.js';
import { allDeviceLogs, moveToNextNoonUtc } from '../../support/messaging.js';
import { PORTAL, closeWindowForTwoHours, signed, startPortal, webhookEvent, type HubSpotHarness } from './helpers.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const texts = async (h: HubSpotHarness, text: string) => (await allDeviceLogs(h.t)).map((e) => JSON.stringify(e)).filter((x) => x.includes(text));

describe.each(STORE_KINDS)('auto-sends waiting for time (%s)', (kind) => {
  let h: HubSpotHarness;
  beforeEach(async () => {
    h = await startPortal(kind);
    await h.t.api('PATCH', `/api/v1/integrations/hubspot/${PORTAL}`, { auto_send: { enabled: true, template: 'Morning {{firstname}}' } });
    h.hs.resetCalls();
  });
  afterEach(async () => h.close());
  const job = () => h.t.services.hubspot!.autoSends;
  const created = async (firstname: string, phone: string) => {
    const id = h.hs.addContact(PORTAL, { firstname, mobilephone: phone });
    expect((await signed(h, 'POST', '/crm/hubspot/webhook', [webhookEvent(PORTAL, id)])).statusCode).toBe(200);
    await job().drain();
    return id;
  };
  const row = async (id: string) => (await h.t.api('GET', `/api/v1/integrations/hubspot/${PORTAL}/auto-sends`)).json().auto_sends.find((a: any) => a.object_id === id);

  it('created at night: pending and waiting until the window opens, then sent once; the contact read once', async () => {
    await closeWindowForTwoHours(h);
    const ada = await created('Ada', '+14155550801');
    expect(await texts(h, 'Morning Ada')).toHaveLength(0);
    const waiting = await row(ada);
    expect(waiting).toMatchObject({ status: 'pending', code: 4002, reason: 'waiting (outside sending window): sent when it is allowed', waiting: { next_attempt_at: expect.any(String), gives_up_at: expect.any(String) } });
    const next = Date.parse(waiting.waiting.next_attempt_at) - h.t.clock.now();
    expect(next).toBeGreaterThan(HOUR);
    expect(next).toBeLessThanOrEqual(2 * HOUR);
    expect(Date.parse(waiting.waiting.gives_up_at) - Date.parse(waiting.created_at)).toBe(7 * DAY);

    h.t.clock.advance(HOUR);
    await job().drain();
    expect(await texts(h, 'Morning Ada')).toHaveLength(0);

    h.t.clock.advance(HOUR + 60_000);
    await job().drain();
    await job().drain();
    expect(await texts(h, 'Morning Ada')).toHaveLength(1);
    expect(await row(ada)).toMatchObject({ status: 'sent', code: null, reason: null, message_id: expect.stringMatching(/^msg_/), waiting: null });
    // The sent message's conversation, for a link to it.
    const sent = await row(ada);
    expect(sent.chat_id).toBe((await h.t.api('GET', `/api/v1/messages/${sent.message_id}`)).json().message.chat_id);
    expect(waiting.chat_id).toBeNull();
    // The spec's one HubSpot call per contact-creation auto-send: the wait did not read the contact again.
    expect(h.hs.calls(PORTAL, 'contact-read')).toBe(1);
  });

  it('every line at its first-touch gap: waits for a free line, then sent; the daily cap is still failed at once', async () => {
    moveToNextNoonUtc(h.t.clock); // the daily cap counts per day: no midnight crossed while this test moves the clock
    await created('Ann', '+14155550811');
    await created('Ben', '+14155550812');
    const cy = await created('Cy', '+14155550813');
    expect(await texts(h, 'Morning Cy')).toHaveLength(0);
    expect(await row(cy)).toMatchObject({ status: 'pending', reason: 'waiting (lines saturated): sent when it is allowed', waiting: expect.any(Object) });

    h.t.clock.advance(10 * 60_000 + 1_000);
    await job().drain();
    expect(await texts(h, 'Morning Cy')).toHaveLength(1);
    expect((await row(cy)).status).toBe('sent');

    await h.t.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: 3 });
    const dee = await created('Dee', '+14155550814');
    expect(await row(dee)).toMatchObject({ status: 'failed', code: 4002, reason: 'daily cap reached', waiting: null });
    h.t.clock.advance(HOUR);
    await job().drain();
    expect(await texts(h, 'Morning Dee')).toHaveLength(0);
  });

  it('still refused seven days after the contact was created: failed with why, never sent', async () => {
    await closeWindowForTwoHours(h);
    const eve = await created('Eve', '+14155550821');
    // No worker ran for a week; it is still an hour before the window opens.
    h.t.clock.advance(7 * DAY + HOUR);
    await job().drain();
    const failed = await row(eve);
    expect(failed).toMatchObject({ status: 'failed', code: 4002, waiting: null });
    // In plain words, the row's own fields say when: no ISO time in the reason.
    expect(failed.reason).toMatch(/^not sent: still outside the sending window 7 days after the contact was created: outside the project's sending window \(/);
    expect(failed.reason).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    h.t.clock.advance(2 * HOUR);
    await job().drain();
    expect(await texts(h, 'Morning Eve')).toHaveLength(0);
  });

  it('a process that died after sending and before recording: the next one records the same message, no second text', async () => {
    await closeWindowForTwoHours(h);
    const fay = await created('Fay', '+14155550831');
    h.t.clock.advance(2 * HOUR + 60_000);
    // What the dead process left: the row claimed (its lease now over) and the message it sent under the row's key.
    const { store } = h.t.testStore;
    const [claimed] = await store.hubspot.claimAutoSends(h.t.clock.now(), Date.now() - 60_000, 60_000, 1);
    expect(claimed).toMatchObject({ object_id: fay, phone: '+14155550831', text: 'Morning Fay' });
    const tenant = (await store.tenants.getById(claimed!.tenant_id))!;
    const sent = await h.t.services.messaging.send.send(tenant, { phone: claimed!.phone!, body: claimed!.text!, idempotencyKey: `hubspot:contact:${PORTAL}:${fay}` });

    await job().drain();
    expect(await row(fay)).toMatchObject({ status: 'sent', message_id: sent.message.id });
    expect(await texts(h, 'Morning Fay')).toHaveLength(1);
  });
});
