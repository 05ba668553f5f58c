/** The HubSpot client's timeout, HUBSPOT_APP_ID, and paging through a portal's auto-sends. */
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../../support/stores.js';
import { prepareSandbox } from '../../support/messaging.js';
import { hubspotApi, HubSpotError } from '../../../src/crm/hubspot/client.js';
import { PORTAL, cardUrl, install, signed, startHarness, webhookEvent, type HubSpotHarness } from './helpers.js';

let h: HubSpotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

it('a HubSpot call without an answer in time fails as a retryable network failure, not a hang', async () => {
  h = await startHarness('sqlite');
  expect((await install(h, PORTAL)).statusCode).toBe(200);
  const contact = h.hs.addContact(PORTAL, { mobilephone: '+14155550123' });
  const api = hubspotApi({ config: h.t.config.hubspot!, store: h.t.testStore.store, clock: h.t.clock, timeoutMs: 200 });
  h.hs.fault('contact-read', { delayMs: 1_000 });
  const token = await h.t.services.hubspot!.tokens.accessToken(String(PORTAL));
  const started = Date.now();
  const err = await api.readContact(token, contact, ['phone'], { portalId: String(PORTAL), timezone: 'UTC', kind: 'sidebar_load' }).catch((e) => e);
  expect(Date.now() - started).toBeLessThan(900);
  expect(err).toBeInstanceOf(HubSpotError);
  expect(err).toMatchObject({ failure: 'network', retryable: true, message: 'HubSpot contact read: no answer in time' });
});

it('HUBSPOT_APP_ID set: a card request naming another app is refused; its own app is served', async () => {
  h = await startHarness('sqlite', { HUBSPOT_APP_ID: '4242' });
  await prepareSandbox(h.t);
  expect((await install(h, PORTAL)).statusCode).toBe(200);
  const contact = h.hs.addContact(PORTAL, { mobilephone: '+14155550123' });
  h.hs.resetCalls();
  const other = await signed(h, 'GET', cardUrl(PORTAL, contact).replace('appId=4242', 'appId=999'));
  expect(other.statusCode).toBe(200);
  expect(other.json()).toMatchObject({ ok: false, code: 2005, message: expect.stringContaining('4242'), retryable: false });
  expect(h.hs.calls(PORTAL)).toBe(0);
  const own = await signed(h, 'GET', cardUrl(PORTAL, contact));
  expect(own.json()).toMatchObject({ ok: true });
  expect(h.hs.calls(PORTAL)).toBe(1);
});

describe.each(STORE_KINDS)('auto-sends paging (%s)', (kind) => {
  it('pages newest first with next_cursor until null, with and without a status filter', async () => {
    h = await startHarness(kind);
    expect((await install(h, PORTAL)).statusCode).toBe(200);
    // Auto-send off: every contact.creation is recorded as skipped.
    const ids = ['9001', '9002', '9003', '9004', '9005'];
    for (const id of ids) expect((await signed(h, 'POST', '/crm/hubspot/webhook', [webhookEvent(PORTAL, id)])).json()).toMatchObject({ recorded: 1 });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await h.t.api('GET', `/api/v1/integrations/hubspot/${PORTAL}/auto-sends?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.auto_sends.length).toBeLessThanOrEqual(2);
      seen.push(...body.auto_sends.map((a: any) => a.object_id));
      cursor = body.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
    const skipped = (await h.t.api('GET', `/api/v1/integrations/hubspot/${PORTAL}/auto-sends?status=skipped&limit=5`)).json();
    expect(skipped.auto_sends).toHaveLength(5);
    expect(skipped.next_cursor).toBeNull();
    const sent = (await h.t.api('GET', `/api/v1/integrations/hubspot/${PORTAL}/auto-sends?status=sent`)).json();
    expect(sent).toEqual({ auto_sends: [], next_cursor: null });
    expect((await h.t.api('GET', `/api/v1/integrations/hubspot/${PORTAL}/auto-sends?limit=0`)).statusCode).toBe(400);
  });
});
