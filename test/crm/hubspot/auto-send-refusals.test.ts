/**
 * A contact-creation auto-send whose contact read HubSpot refuses for good (401 and the refresh
 * refused: the app was uninstalled in HubSpot; 403: a scope is missing) is recorded failed
 * with the code that tells the project what to do (2010 reconnect HubSpot, 2005 reinstall with
 * the scopes), as the card's answers do; it was recorded 3004 ("HubSpot unavailable", which
 * reads as "wait"), and no retry ever came.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { prepareSandbox } from '../../support/messaging.js';
import { PORTAL, install, signed, startHarness, webhookEvent, type HubSpotHarness } from './helpers.js';

let h: HubSpotHarness;
beforeEach(async () => {
  h = await startHarness('sqlite');
  await prepareSandbox(h.t);
  expect((await install(h, PORTAL)).statusCode).toBe(200);
  await h.t.api('PATCH', `/api/v1/integrations/hubspot/${PORTAL}`, { auto_send: { enabled: true, template: 'Hi {{firstname}}' } });
});
afterEach(async () => h.close());

it('401 (refresh refused) and 403 on the contact read: failed with 2010 / 2005 and what to do, after one contact read each', async () => {
  const revoked = h.hs.addContact(PORTAL, { firstname: 'Ada', mobilephone: '+14155550123' });
  const scoped = h.hs.addContact(PORTAL, { firstname: 'Bob', mobilephone: '+14155550124' });
  h.hs.fault('contact-read', { status: 403 });
  await signed(h, 'POST', '/crm/hubspot/webhook', [webhookEvent(PORTAL, scoped)]);
  await h.t.services.hubspot!.autoSends.drain();
  // The app uninstalled in HubSpot: its tokens refused, the forced refresh too (the install is then token_invalid).
  h.hs.refuseAccessTokens(PORTAL);
  h.hs.revokeRefreshTokens(PORTAL);
  await signed(h, 'POST', '/crm/hubspot/webhook', [webhookEvent(PORTAL, revoked)]);
  await h.t.services.hubspot!.autoSends.drain();

  const list = (await h.t.api('GET', `/api/v1/integrations/hubspot/${PORTAL}/auto-sends`)).json().auto_sends;
  const by = Object.fromEntries(list.map((a: any) => [a.object_id, a]));
  expect(by[revoked]).toMatchObject({ status: 'failed', code: 2010, reason: expect.stringMatching(/reconnect HubSpot/) });
  expect(by[scoped]).toMatchObject({ status: 'failed', code: 2005, reason: expect.stringMatching(/scope/) });
  expect(h.hs.calls(PORTAL, 'contact-read')).toBe(2);
  expect(h.hs.calls(PORTAL, 'token:refresh_token')).toBe(1);
});
