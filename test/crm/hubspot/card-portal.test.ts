/**
 * The card's send names its portal in the body, which the card's code writes and a user can
 * change (hubspot.fetch signs whatever the card sends). The portal HubSpot vouches for is the
 * `portalId` it appends to the query. A rep of one portal must not text the contacts of another
 * project's portal by editing the body, nor by adding a portalId of their own to the URL.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { allDeviceLogs, prepareSandbox } from '../../support/messaging.js';
import { OTHER_PORTAL, PORTAL, cardSendUrl, cardUrl, install, signed, startHarness, type HubSpotHarness } from './helpers.js';

let h: HubSpotHarness;
let victimContact: string;
beforeEach(async () => {
  h = await startHarness('sqlite');
  await prepareSandbox(h.t);
  expect((await install(h, PORTAL)).statusCode).toBe(200);
  // Another project, with its own line and its own HubSpot portal.
  const acct = (await h.t.admin('POST', '/admin/v1/accounts', { name: 'Victim' })).json();
  expect((await h.t.admin('POST', '/admin/v1/tenants', { account_id: acct.account.id, slug: 'victim' })).statusCode).toBe(201);
  expect((await h.t.admin('POST', '/admin/v1/lines', { tenant: 'victim', phone_number: '+15550109999', driver: 'simulator' })).statusCode).toBe(201);
  const start = await h.t.api('POST', '/api/v1/integrations/hubspot/install', undefined, { secret: acct.signing_secret });
  expect(start.statusCode).toBe(201);
  h.hs.authorizeAs(OTHER_PORTAL);
  const back = new URL((await fetch(start.json().install_url, { redirect: 'manual' })).headers.get('location')!);
  expect((await h.t.request({ method: 'GET', url: `${back.pathname}${back.search}` })).statusCode).toBe(200);
  victimContact = h.hs.addContact(OTHER_PORTAL, { firstname: 'Victim', mobilephone: '+14155550777' });
  h.hs.resetCalls();
});
afterEach(async () => h.close());

const nothingReachedTheVictim = async () => {
  expect(h.hs.calls(OTHER_PORTAL)).toBe(0);
  expect((await allDeviceLogs(h.t)).filter((e) => JSON.stringify(e).includes('+14155550777'))).toHaveLength(0);
  const lines = (await h.t.admin('GET', '/admin/v1/lines')).json().phone_lines.filter((l: any) => l.tenant === 'victim');
  for (const l of lines) expect((await h.t.admin('GET', `/admin/v1/lines/${l.id}/simulate/sent`)).json().sent).toHaveLength(0);
};

it("a card send whose body names another portal than HubSpot's is refused (2005), and nothing reaches that portal", async () => {
  const res = await signed(h, 'POST', cardSendUrl(PORTAL), { portalId: String(OTHER_PORTAL), objectId: victimContact, text: 'Gotcha' });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toMatchObject({ ok: false, code: 2005, retryable: false });
  await nothingReachedTheVictim();
});

it('a portalId of the user\'s own before the one HubSpot appends is refused, on the send and on the card', async () => {
  const smuggled = `/crm/hubspot/card/send?portalId=${OTHER_PORTAL}&userId=77&userEmail=rep%40example.com&portalId=${PORTAL}&appId=4242`;
  const send = await signed(h, 'POST', smuggled, { portalId: String(OTHER_PORTAL), objectId: victimContact, text: 'Gotcha' });
  expect(send.json()).toMatchObject({ ok: false, code: 1002 });
  const card = await signed(h, 'GET', cardUrl(PORTAL, victimContact).replace('/crm/hubspot/card?', `/crm/hubspot/card?portalId=${OTHER_PORTAL}&`));
  expect(card.json()).toMatchObject({ ok: false, code: 1002 });
  await nothingReachedTheVictim();
});

it('the card send of the portal HubSpot signed for still sends', async () => {
  const own = h.hs.addContact(PORTAL, { firstname: 'Ada', mobilephone: '+14155550123' });
  const res = await signed(h, 'POST', cardSendUrl(PORTAL), { portalId: String(PORTAL), objectId: own, text: 'Hello' });
  expect(res.json()).toMatchObject({ ok: true, phone: '+14155550123' });
});
