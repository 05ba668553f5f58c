/**
 * Every contact-creation auto-send comes to an end, and only an allowed one texts anybody:
 *
 * - A suspended project texts no one: the card, the workflow action and held actions refuse with
 *   2005, and so does the auto-send now (`failed`, 2005, without reading the contact). Before, it
 *   sent.
 * - A template naming something every JavaScript object has ({{constructor}}, {{toString}},
 *   {{valueOf}}) names no contact property: it renders its fallback. Before, it threw: the
 *   workflow action answered 503 (HubSpot retries that for days) and the auto-send row was taken
 *   again every lease, reading the contact each time, for good.
 * - A failure of ours in an auto-send (here: HubSpot answers a phone that is not a string) is
 *   tried again a few times, then the row is `failed` (3001), never looping.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { allDeviceLogs } from '../../support/messaging.js';
import { STORE_KINDS } from '../../support/stores.js';
import { PORTAL, signed, startInstalled, webhookEvent, workflowPayload, type HubSpotHarness } from './helpers.js';

describe.each(STORE_KINDS)('auto-sends that come to an end (%s)', (kind) => {
  let h: HubSpotHarness;
  let contact: string;
  afterEach(async () => h.close());

  const autoSends = async () => (await h.t.api('GET', `/api/v1/integrations/hubspot/${PORTAL}/auto-sends`)).json().auto_sends as any[];
  const texts = async () => (await allDeviceLogs(h.t)).map((e: { text?: string }) => e.text);
  const enableAutoSend = async (template: string) =>
    expect((await h.t.api('PATCH', `/api/v1/integrations/hubspot/${PORTAL}`, { auto_send: { enabled: true, template } })).statusCode).toBe(200);

  it('a suspended project: the auto-send is failed with 2005 and sends nothing', async () => {
    ({ h, contact } = await startInstalled(kind));
    await enableAutoSend('Welcome {{firstname}}');
    await signed(h, 'POST', '/crm/hubspot/webhook', [webhookEvent(PORTAL, contact)]);
    expect((await h.t.admin('PATCH', '/admin/v1/tenants/demo', { status: 'suspended' })).statusCode).toBe(200);
    h.hs.resetCalls();
    await h.t.services.hubspot!.autoSends.drain();
    expect(await texts()).not.toContain('Welcome Ada');
    expect(h.hs.calls(PORTAL, 'contact-read')).toBe(0);
    // What the project sees once it is active again: the record of why nothing was sent.
    expect((await h.t.admin('PATCH', '/admin/v1/tenants/demo', { status: 'active' })).statusCode).toBe(200);
    expect(await autoSends()).toMatchObject([{ object_id: contact, status: 'failed', code: 2005, message_id: null, reason: expect.stringContaining('suspended') }]);
    await h.t.services.hubspot!.autoSends.drain();
    expect(await texts()).not.toContain('Welcome Ada');
  });

  it("{{constructor}}, {{toString}} and {{valueOf}} name no contact property: the workflow action and the auto-send render the fallback and send", async () => {
    ({ h, contact } = await startInstalled(kind));
    const wf = await signed(h, 'POST', '/crm/hubspot/workflow/send', workflowPayload(PORTAL, contact, 'cb-proto', { message: 'Hi {{constructor|there}}{{valueOf}}', properties: { firstname: 'Ada', mobilephone: '+14155550123' } }));
    expect(wf.statusCode).toBe(200);
    expect(wf.json()).toMatchObject({ ok: true, outputFields: { hs_execution_state: 'SUCCESS' } });
    expect(await texts()).toContain('Hi there');

    await enableAutoSend('Welcome {{firstname}}, {{toString|friend}}');
    await signed(h, 'POST', '/crm/hubspot/webhook', [webhookEvent(PORTAL, contact)]);
    h.hs.resetCalls();
    expect(await h.t.services.hubspot!.autoSends.tick()).toBe(1);
    expect(await autoSends()).toMatchObject([{ object_id: contact, status: 'sent', message_id: expect.stringMatching(/^msg_/) }]);
    expect(await texts()).toContain('Welcome Ada, friend');
    expect(h.hs.calls(PORTAL, 'contact-read')).toBe(1);
  });

  it('an unexpected failure is tried again at most five times in all, then the auto-send is failed (3001)', async () => {
    ({ h } = await startInstalled(kind));
    // HubSpot's properties are strings; this answer is not what we expect (a number), and the phone cannot be read.
    const odd = h.hs.addContact(PORTAL, { firstname: 'Odd', mobilephone: 14155550199 as unknown as string });
    await enableAutoSend('Welcome {{firstname}}');
    await signed(h, 'POST', '/crm/hubspot/webhook', [webhookEvent(PORTAL, odd)]);
    h.hs.resetCalls();
    for (let i = 1; i <= 5; i++) {
      expect(await h.t.services.hubspot!.autoSends.tick(), `attempt ${i} is taken`).toBe(1);
      const [row] = await autoSends();
      expect(row).toMatchObject({ object_id: odd, status: i < 5 ? 'pending' : 'failed' });
      // The next attempt is due within a minute (2^i s), by the business clock.
      h.t.clock.advance(60_000);
    }
    expect(await autoSends()).toMatchObject([{ object_id: odd, status: 'failed', code: 3001, message_id: null, reason: expect.stringContaining('unexpectedly') }]);
    expect(await h.t.services.hubspot!.autoSends.tick()).toBe(0);
    expect(h.hs.calls(PORTAL, 'contact-read')).toBe(5);
  });
});
