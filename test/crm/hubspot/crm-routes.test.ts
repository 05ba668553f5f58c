/** The HubSpot-facing routes driven as HubSpot drives them: signatures, exact call counts, idempotency keys, caps, faults, token refresh. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../../support/stores.js';
import { allDeviceLogs, prepareSandbox } from '../../support/messaging.js';
import { PORTAL, PUBLIC_BASE, install, installOf, signed, cardUrl, startHarness, webhookEvent, workflowPayload, type HubSpotHarness } from './helpers.js';

const texts = async (h: HubSpotHarness) => (await allDeviceLogs(h.t)).map((e) => JSON.stringify(e));

describe.each(STORE_KINDS)('HubSpot CRM routes (%s)', (kind) => {
  let h: HubSpotHarness;
  let contact: string;
  beforeEach(async () => {
    h = await startHarness(kind);
    await prepareSandbox(h.t);
    expect((await install(h, PORTAL)).statusCode).toBe(200);
    contact = h.hs.addContact(PORTAL, { firstname: 'Ada', lastname: 'Lovelace', mobilephone: '(415) 555-0123', phone: null });
    h.hs.resetCalls();
  });
  afterEach(async () => h.close());

  it('card: signed v3, exactly 1 HubSpot call, everything the card renders', async () => {
    const res = await signed(h, 'GET', cardUrl(PORTAL, contact));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      ok: true,
      portal_id: String(PORTAL),
      contact: { id: contact, firstname: 'Ada', lastname: 'Lovelace', phone: '(415) 555-0123', phone_normalized: '+14155550123', phone_usable: true },
      chat_id: null,
      messages: [],
      send: { would_be_first_touch: true, allowed_now: true },
    });
    expect(body.lines).toHaveLength(2);
    expect(h.hs.calls(PORTAL)).toBe(1);
    expect(h.hs.calls(PORTAL, 'contact-read')).toBe(1);
    expect((await installOf(h, PORTAL)).calls_today).toMatchObject({ sidebar_load: 1, total_counted: 1, token_refresh: 0 });
  });

  it('card: refuses bad, stale and tampered signatures with 401; a query in another order signed as sent passes', async () => {
    const url = cardUrl(PORTAL, contact);
    const wrongSecret = await signed(h, 'GET', url, undefined, { secret: 'not-the-secret' });
    expect(wrongSecret.statusCode).toBe(401);
    expect(wrongSecret.json()).toMatchObject({ ok: false, code: 2004, retryable: false, trace_id: expect.any(String) });
    expect((await signed(h, 'GET', url, undefined, { timestampMs: Date.now() - 5 * 60_000 - 1000 })).statusCode).toBe(401);
    expect((await h.t.request({ method: 'GET', url })).statusCode).toBe(401);
    // Signed over one URL, sent with the query reordered: HubSpot signed what it called, so this is tampering.
    const reordered = `/crm/hubspot/card?portalId=${PORTAL}&associatedObjectId=${contact}&associatedObjectType=CONTACT&userId=77&userEmail=rep%40example.com&appId=4242`;
    expect((await signed(h, 'GET', reordered, undefined, { signedUrl: `${PUBLIC_BASE}${url}` })).statusCode).toBe(401);
    // The Host header plays no part: the URL is PUBLIC_BASE_URL's.
    expect((await signed(h, 'GET', reordered, undefined, { signedUrl: `http://localhost:80${reordered}` })).statusCode).toBe(401);
    expect((await signed(h, 'GET', reordered)).statusCode).toBe(200);
    expect(h.hs.calls(PORTAL, 'contact-read')).toBe(1);
    // Another app's card request.
    const otherApp = await signed(h, 'GET', cardUrl(PORTAL, contact).replace('appId=4242', 'appId=1'));
    expect(otherApp.statusCode).toBe(200);
  });

  it('card send: 1 HubSpot call; a double click in the same second is one send, answered duplicate:true', async () => {
    // Two requests inside one second (HubSpot's signed timestamp names the second).
    const ts = Math.floor(Date.now() / 1000) * 1000 - 1000 + 100;
    const body = { portalId: String(PORTAL), objectId: contact, text: 'Hello from HubSpot' };
    const first = await signed(h, 'POST', '/crm/hubspot/card/send', body, { timestampMs: ts });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ ok: true, message_id: expect.stringMatching(/^msg_/), phone: '+14155550123', lead_created: true });
    const again = await signed(h, 'POST', '/crm/hubspot/card/send', body, { timestampMs: ts + 400 });
    expect(again.json()).toMatchObject({ ok: true, duplicate: true, message_id: first.json().message_id });
    expect((await texts(h)).filter((x) => x.includes('Hello from HubSpot'))).toHaveLength(1);
    expect(h.hs.calls(PORTAL, 'contact-read')).toBe(1);
    expect((await installOf(h, PORTAL)).calls_today).toMatchObject({ sidebar_send: 1, total_counted: 1 });
    // The next second is another send (a reply now: the chat exists).
    const next = await signed(h, 'POST', '/crm/hubspot/card/send', { ...body, text: 'Second' }, { timestampMs: ts + 1000 });
    expect(next.json()).toMatchObject({ ok: true, lead_created: false });
    expect(next.json().duplicate).toBeUndefined();
    expect(h.hs.calls(PORTAL, 'contact-read')).toBe(2);
    // The card now shows the thread and that a send is no first touch.
    const card = await signed(h, 'GET', cardUrl(PORTAL, contact));
    expect(card.json().messages).toHaveLength(2);
    expect(card.json().send).toMatchObject({ would_be_first_touch: false, allowed_now: true });
  });

  it('card send: tampered body is 401 and costs nothing; the daily cap is ok:false "daily cap reached"', async () => {
    const body = { portalId: String(PORTAL), objectId: contact, text: 'Hi' };
    const tampered = await signed(h, 'POST', '/crm/hubspot/card/send', { ...body, text: 'Hi!' }, { signedBody: JSON.stringify(body) });
    expect(tampered.statusCode).toBe(401);
    expect(h.hs.calls(PORTAL)).toBe(0);
    await h.t.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: 0 });
    const capped = await signed(h, 'POST', '/crm/hubspot/card/send', body);
    expect(capped.statusCode).toBe(200);
    expect(capped.json()).toMatchObject({ ok: false, error: 'daily cap reached', code: 4002, retryable: true, retry_after: expect.any(Number) });
    expect((await installOf(h, PORTAL)).first_touch_cap_reached_today).toBe(true);
    const card = await signed(h, 'GET', cardUrl(PORTAL, contact));
    expect(card.json().send).toMatchObject({ would_be_first_touch: true, allowed_now: false, error: 'daily cap reached' });
  });

  it('card send outside the sending window: ok:false 4002 with retry_after', async () => {
    const hour = new Date(h.t.clock.now()).getUTCHours();
    const start = `${String((hour + 2) % 24).padStart(2, '0')}:00`;
    const end = `${String((hour + 3) % 24).padStart(2, '0')}:00`;
    await h.t.admin('PATCH', '/admin/v1/tenants/demo', { sending_window: { start, end } });
    const res = await signed(h, 'POST', '/crm/hubspot/card/send', { portalId: PORTAL, objectId: Number(contact), text: 'Hi' });
    expect(res.json()).toMatchObject({ ok: false, code: 4002, error: 'outside sending window', retryable: true });
    expect(res.json().retry_after).toBeGreaterThan(3600);
  });

  it('workflow: 0 HubSpot calls, v3 or v2, idempotent on callbackId, FAIL_CONTINUE at the cap', async () => {
    const payload = workflowPayload(PORTAL, contact, 'cb-1', { phone: '+14155550999' });
    const res = await signed(h, 'POST', '/crm/hubspot/workflow/send', payload);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ outputFields: { hs_execution_state: 'SUCCESS', message_id: expect.stringMatching(/^msg_/) }, ok: true, phone: '+14155550999' });
    const retry = await signed(h, 'POST', '/crm/hubspot/workflow/send', payload, { version: 'v2' });
    expect(retry.json()).toMatchObject({ ok: true, duplicate: true, outputFields: { message_id: res.json().message_id } });
    expect((await texts(h)).filter((x) => x.includes('Hello Ada'))).toHaveLength(1);
    expect(h.hs.calls(PORTAL)).toBe(0);
    expect((await signed(h, 'POST', '/crm/hubspot/workflow/send', payload, { version: 'v1' })).statusCode).toBe(401);

    await h.t.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: 1 });
    const capped = await signed(h, 'POST', '/crm/hubspot/workflow/send', workflowPayload(PORTAL, contact, 'cb-2', { phone: '+14155550998' }));
    expect(capped.statusCode).toBe(200);
    expect(capped.json()).toMatchObject({ outputFields: { hs_execution_state: 'FAIL_CONTINUE', error: 'daily cap reached' }, ok: false, error: 'daily cap reached', code: 4002 });
    const noPhone = await signed(h, 'POST', '/crm/hubspot/workflow/send', workflowPayload(PORTAL, contact, 'cb-3', { properties: { firstname: 'Ada' } }));
    expect(noPhone.json()).toMatchObject({ outputFields: { hs_execution_state: 'FAIL_CONTINUE' }, ok: false, code: 1013 });
  });

  it('webhook: records first, then 1 HubSpot call and one send per contact, whatever HubSpot retries', async () => {
    const off = h.hs.addContact(PORTAL, { firstname: 'Off', mobilephone: '+14155550111' });
    const r0 = await signed(h, 'POST', '/crm/hubspot/webhook', [webhookEvent(PORTAL, off)], { version: 'v1' });
    expect(r0.json()).toMatchObject({ ok: true, received: 1, recorded: 1 });
    await h.t.api('PATCH', `/api/v1/integrations/hubspot/${PORTAL}`, { auto_send: { enabled: true, template: 'Hi {{firstname}}, thanks for signing up' } });
    const noPhone = h.hs.addContact(PORTAL, { firstname: 'Nophone' });
    const batch = [webhookEvent(PORTAL, contact), webhookEvent(PORTAL, noPhone), { ...webhookEvent(PORTAL, contact), subscriptionType: 'contact.propertyChange' }];
    const res = await signed(h, 'POST', '/crm/hubspot/webhook', batch);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, received: 3, recorded: 2, ignored: 1 });
    // HubSpot's retry of the batch, and a duplicate delivery.
    const retry = await signed(h, 'POST', '/crm/hubspot/webhook', batch.map((e) => ({ ...e, attemptNumber: 1 })), { version: 'v1' });
    expect(retry.json()).toMatchObject({ recorded: 0, duplicates: 2 });
    expect(h.hs.calls(PORTAL)).toBe(0);
    await h.t.services.hubspot!.autoSends.drain();
    await signed(h, 'POST', '/crm/hubspot/webhook', [webhookEvent(PORTAL, contact, { attemptNumber: 2 })]);
    await h.t.services.hubspot!.autoSends.drain();
    expect(h.hs.calls(PORTAL, 'contact-read')).toBe(2);
    expect((await texts(h)).filter((x) => x.includes('Hi Ada, thanks for signing up'))).toHaveLength(1);
    const list = (await h.t.api('GET', `/api/v1/integrations/hubspot/${PORTAL}/auto-sends`)).json().auto_sends;
    const by = Object.fromEntries(list.map((a: any) => [a.object_id, a]));
    expect(by[contact]).toMatchObject({ status: 'sent', message_id: expect.stringMatching(/^msg_/) });
    expect(by[noPhone]).toMatchObject({ status: 'failed', code: 1013, reason: expect.stringMatching(/no usable phone/) });
    expect(by[off]).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/auto-send is off/) });
    expect((await installOf(h, PORTAL)).calls_today).toMatchObject({ contact_created: 2, total_counted: 2 });
    const failed = (await h.t.api('GET', `/api/v1/integrations/hubspot/${PORTAL}/auto-sends?status=failed`)).json().auto_sends;
    expect(failed.map((a: any) => a.object_id)).toEqual([noPhone]);
    // A tampered batch is 401 and records nothing.
    const tampered = await signed(h, 'POST', '/crm/hubspot/webhook', [webhookEvent(PORTAL, '555')], { signedBody: '[]' });
    expect(tampered.statusCode).toBe(401);
  });

  it('webhook at the daily cap: the record is failed and nothing is sent', async () => {
    await h.t.api('PATCH', `/api/v1/integrations/hubspot/${PORTAL}`, { auto_send: { enabled: true, template: 'Hi {{firstname}}' } });
    await h.t.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: 0 });
    await signed(h, 'POST', '/crm/hubspot/webhook', [webhookEvent(PORTAL, contact)]);
    await h.t.services.hubspot!.autoSends.drain();
    const [rec] = (await h.t.api('GET', `/api/v1/integrations/hubspot/${PORTAL}/auto-sends`)).json().auto_sends;
    expect(rec).toMatchObject({ status: 'failed', reason: 'daily cap reached', message_id: null });
    expect(await texts(h)).toHaveLength(0);
  });

  it('auto-send: the template may name any contact property (read in the one contact read) and give a fallback for an empty one', async () => {
    await h.t.api('PATCH', `/api/v1/integrations/hubspot/${PORTAL}`, { auto_send: { enabled: true, template: 'Hi {{FirstName|there}}, thanks for your interest in {{company}}{{jobtitle| }}!' } });
    const known = h.hs.addContact(PORTAL, { firstname: 'Grace', company: 'Northwind', mobilephone: '+14155550131' });
    const unnamed = h.hs.addContact(PORTAL, { firstname: '  ', company: 'Contoso', mobilephone: '+14155550132' });
    await signed(h, 'POST', '/crm/hubspot/webhook', [webhookEvent(PORTAL, known), webhookEvent(PORTAL, unnamed)]);
    await h.t.services.hubspot!.autoSends.drain();
    const sent = await texts(h);
    expect(sent.filter((x) => x.includes('Hi Grace, thanks for your interest in Northwind!'))).toHaveLength(1);
    expect(sent.filter((x) => x.includes('Hi there, thanks for your interest in Contoso!'))).toHaveLength(1);
    // Still one HubSpot call per new contact.
    expect(h.hs.calls(PORTAL, 'contact-read')).toBe(2);
  });

  it('HubSpot 429 and 5xx are retryable ok:false answers, never 500s', async () => {
    h.hs.fault('contact-read', { status: 429, retryAfterSeconds: 7 });
    const limited = await signed(h, 'GET', cardUrl(PORTAL, contact));
    expect(limited.statusCode).toBe(200);
    expect(limited.json()).toMatchObject({ ok: false, code: 3004, retryable: true, retry_after: 7 });
    h.hs.fault('contact-read', { status: 503 });
    const down = await signed(h, 'POST', '/crm/hubspot/card/send', { portalId: String(PORTAL), objectId: contact, text: 'x' });
    expect(down.json()).toMatchObject({ ok: false, code: 3004, retryable: true });
    // A retryable failure frees the key: the same second again sends.
    h.hs.deleteContact(PORTAL, contact);
    expect((await signed(h, 'GET', cardUrl(PORTAL, contact))).json()).toMatchObject({ ok: false, code: 2011 });
    // 401 is refreshed once and tried again (token-refused.test.ts); refused twice it is 2010.
    h.hs.fault('contact-read', { status: 401 }, { times: 2 });
    expect((await signed(h, 'GET', cardUrl(PORTAL, contact))).json()).toMatchObject({ ok: false, code: 2010, retryable: false });
  });

  // Two SQLite connections in one Node process block each other's event loop (better-sqlite3 waits
  // synchronously on a lock), so "another process" is tested on PostgreSQL, as the other multi-process tests are.
  it('refreshes the token before it expires, once for concurrent requests, across processes', async () => {
    const second = kind === 'postgres' ? await startHarness(kind, {}, h) : h;
    try {
      h.t.clock.advance(26 * 60_000);
      if (second !== h) second.t.clock.advance(26 * 60_000);
      const results = await Promise.all([
        ...[1, 2, 3].map(() => signed(h, 'GET', cardUrl(PORTAL, contact))),
        ...[1, 2, 3].map(() => signed(second, 'GET', cardUrl(PORTAL, contact))),
      ]);
      for (const r of results) expect(r.json(), r.body).toMatchObject({ ok: true });
      expect(h.hs.calls(PORTAL, 'token:refresh_token')).toBe(1);
      expect(h.hs.calls(PORTAL, 'contact-read')).toBe(6);
      expect((await installOf(h, PORTAL)).calls_today).toMatchObject({ sidebar_load: 6, token_refresh: 1, total_counted: 6 });
    } finally {
      if (second !== h) await second.close();
    }
  });

  it('a refused refresh token marks the install token_invalid', async () => {
    h.hs.revokeRefreshTokens(PORTAL);
    h.t.clock.advance(26 * 60_000);
    const res = await signed(h, 'GET', cardUrl(PORTAL, contact));
    expect(res.json()).toMatchObject({ ok: false, code: 2010 });
    expect((await installOf(h, PORTAL)).status).toBe('token_invalid');
    expect((await signed(h, 'GET', cardUrl(PORTAL, contact))).json()).toMatchObject({ ok: false, code: 2010 });
    expect(h.hs.calls(PORTAL, 'token:refresh_token')).toBe(1);
    expect(h.hs.calls(PORTAL, 'contact-read')).toBe(0);
  });
});
