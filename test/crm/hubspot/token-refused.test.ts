/**
 * HubSpot refusing an access token before its recorded expiry (access removed, token revoked):
 * the card, the card's send and the contact-creation auto-send refresh once and make the call
 * again, as reply push does; a token refused again after the refresh makes the install
 * token_invalid (2010, reconnect).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../../support/stores.js';
import { allDeviceLogs } from '../../support/messaging.js';
import { PORTAL, cardUrl, installOf, signed, startInstalled, webhookEvent, type HubSpotHarness } from './helpers.js';

describe.each(STORE_KINDS)('HubSpot access token refused before its expiry (%s)', (kind) => {
  let h: HubSpotHarness;
  let contact: string;
  beforeEach(async () => {
    ({ h, contact } = await startInstalled(kind));
    h.hs.resetCalls();
    // Our record says the token has 30 minutes left; HubSpot no longer takes it.
    h.hs.refuseAccessTokens(PORTAL);
  });
  afterEach(async () => h.close());

  it('the card answers the contact after one forced refresh (counted as token_refresh)', async () => {
    const res = await signed(h, 'GET', cardUrl(PORTAL, contact));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, contact: { id: contact, firstname: 'Ada', phone_normalized: '+14155550123' } });
    expect(h.hs.calls(PORTAL, 'token:refresh_token')).toBe(1);
    expect(h.hs.calls(PORTAL, 'contact-read')).toBe(2);
    const i = await installOf(h, PORTAL);
    expect(i.status).toBe('active');
    // The refused read and the repeat are both HubSpot requests; the refresh is outside the daily limit.
    expect(i.calls_today).toMatchObject({ sidebar_load: 2, token_refresh: 1, total_counted: 2 });
    // The new token serves the next load without another refresh.
    expect((await signed(h, 'GET', cardUrl(PORTAL, contact))).json()).toMatchObject({ ok: true });
    expect(h.hs.calls(PORTAL, 'token:refresh_token')).toBe(1);
  });

  it('the card send sends after one forced refresh', async () => {
    const res = await signed(h, 'POST', '/crm/hubspot/card/send', { portalId: String(PORTAL), objectId: contact, text: 'Hello after a refused token' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, message_id: expect.stringMatching(/^msg_/), phone: '+14155550123' });
    expect((await allDeviceLogs(h.t)).filter((e) => JSON.stringify(e).includes('Hello after a refused token'))).toHaveLength(1);
    expect(h.hs.calls(PORTAL, 'token:refresh_token')).toBe(1);
    expect((await installOf(h, PORTAL)).calls_today).toMatchObject({ sidebar_send: 2, token_refresh: 1, total_counted: 2 });
  });

  it('the contact-creation auto-send sends after one forced refresh', async () => {
    await h.t.api('PATCH', `/api/v1/integrations/hubspot/${PORTAL}`, { auto_send: { enabled: true, template: 'Hi {{firstname}}, welcome' } });
    expect((await signed(h, 'POST', '/crm/hubspot/webhook', [webhookEvent(PORTAL, contact)])).json()).toMatchObject({ ok: true, recorded: 1 });
    await h.t.services.hubspot!.autoSends.drain();
    const [rec] = (await h.t.api('GET', `/api/v1/integrations/hubspot/${PORTAL}/auto-sends`)).json().auto_sends;
    expect(rec).toMatchObject({ status: 'sent', message_id: expect.stringMatching(/^msg_/) });
    expect((await allDeviceLogs(h.t)).filter((e) => JSON.stringify(e).includes('Hi Ada, welcome'))).toHaveLength(1);
    expect(h.hs.calls(PORTAL, 'token:refresh_token')).toBe(1);
    expect((await installOf(h, PORTAL)).calls_today).toMatchObject({ contact_created: 2, token_refresh: 1, total_counted: 2 });
  });

  it('a token refused again after the refresh: token_invalid, the card answers 2010 ok:false (HTTP 200), logged without tokens', async () => {
    // The read with the refreshed token is refused too.
    h.hs.fault('contact-read', { status: 401 }, { times: 2 });
    const res = await signed(h, 'GET', cardUrl(PORTAL, contact));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: false, code: 2010, retryable: false, message: expect.stringMatching(/reconnect HubSpot/) });
    expect(h.hs.calls(PORTAL, 'contact-read')).toBe(2);
    expect(h.hs.calls(PORTAL, 'token:refresh_token')).toBe(1);
    expect((await installOf(h, PORTAL)).status).toBe('token_invalid');
    const logs = h.t.logs.join('');
    expect(logs).toContain('HubSpot refused a freshly refreshed token (401 twice); the install is token_invalid until reinstalled');
    for (const token of h.hs.issuedTokens()) expect(logs).not.toContain(token);
    // Nothing more is asked of HubSpot until the portal is installed again.
    const again = await signed(h, 'GET', cardUrl(PORTAL, contact));
    expect(again.json()).toMatchObject({ ok: false, code: 2010 });
    expect(h.hs.calls(PORTAL)).toBe(3);
    // A card send too.
    const send = await signed(h, 'POST', '/crm/hubspot/card/send', { portalId: String(PORTAL), objectId: contact, text: 'x' });
    expect(send.statusCode).toBe(200);
    expect(send.json()).toMatchObject({ ok: false, code: 2010 });
  });
});
