/** Installing HubSpot: OAuth state, callback, slots with sandbox portals, reinstall, uninstall, tokens at rest, not configured. */
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../../support/stores.js';
import { startTestApp } from '../../support/app.js';
import { CLIENT_ID, OTHER_PORTAL, PORTAL, PUBLIC_BASE, SANDBOX_PORTAL, install, installOf, installsOf, signed, cardUrl, startHarness, type HubSpotHarness } from './helpers.js';

describe('HubSpot not configured', () => {
  it('answers 404 saying so on every HubSpot route, and nothing else changes', async () => {
    const t = await startTestApp('sqlite');
    try {
      for (const [method, url] of [['POST', '/api/v1/integrations/hubspot/install'], ['GET', '/api/v1/integrations/hubspot'], ['GET', '/crm/hubspot/card?portalId=1'], ['POST', '/crm/hubspot/webhook'], ['GET', '/crm/hubspot/oauth/callback?state=x']] as const) {
        const res = await t.request({ method, url });
        expect(res.statusCode, url).toBe(404);
        expect(res.json().error.message).toMatch(/HubSpot integration is not configured/);
      }
      expect((await t.api('GET', '/api/v1/phone-numbers')).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe.each(STORE_KINDS)('HubSpot install (%s)', (kind) => {
  let h: HubSpotHarness;
  beforeEach(async () => {
    h = await startHarness(kind);
  });
  afterEach(async () => h.close());

  it('hands out HubSpot\'s authorize URL with a single-use state, and the callback connects the portal', async () => {
    const start = await h.t.api('POST', '/api/v1/integrations/hubspot/install');
    expect(start.statusCode).toBe(201);
    const url = new URL(start.json().install_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${h.hs.url}/oauth/authorize`);
    expect(url.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(url.searchParams.get('redirect_uri')).toBe(`${PUBLIC_BASE}/crm/hubspot/oauth/callback`);
    expect(url.searchParams.get('scope')).toBe('oauth crm.objects.contacts.read crm.objects.contacts.write automation');
    expect(Date.parse(start.json().expires_at) - h.t.clock.now()).toBeGreaterThan(9 * 60_000);

    h.hs.authorizeAs(PORTAL);
    const consent = await fetch(url, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    const page = await h.t.request({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain(`HubSpot portal ${PORTAL} (STANDARD) is now connected to project &#34;demo&#34;`);
    for (const token of h.hs.issuedTokens()) expect(page.body).not.toContain(token);
    // Exchange, token metadata, account details: one each.
    expect(h.hs.calls(PORTAL, 'token:authorization_code')).toBe(1);
    expect(h.hs.calls(PORTAL, 'token-metadata')).toBe(1);
    expect(h.hs.calls(PORTAL, 'account-details')).toBe(1);

    const listed = await installOf(h, PORTAL);
    expect(listed).toEqual({
      portal_id: String(PORTAL),
      account_type: 'STANDARD',
      sandbox: false,
      status: 'active',
      installed_at: expect.any(String),
      ui_domain: 'app.hubspot.com',
      auto_send: { enabled: false, template: null, line_id: null },
      calls_today: { sidebar_load: 0, sidebar_send: 0, contact_created: 0, reply_push: 0, workflow_callback: 0, token_refresh: 0, total_counted: 0 },
      first_touch_cap_reached_today: false,
      held_actions: { held: 0, completing: 0, completed: 0, abandoned: 0, next_attempt_at: null },
    });

    // The state was used: the same callback again is 2014.
    const again = await h.t.request({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(again.statusCode).toBe(400);
    expect(again.json().error.code).toBe(2014);
  });

  it('refuses unknown and expired states (400/2014) and reports HubSpot\'s ?error=', async () => {
    const unknown = await h.t.request({ method: 'GET', url: '/crm/hubspot/oauth/callback?code=abc&state=nope' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ success: false, error: { code: 2014, retryable: false } });

    const start = await h.t.api('POST', '/api/v1/integrations/hubspot/install');
    const consent = await fetch(start.json().install_url, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    h.t.clock.advance(10 * 60_000 + 1);
    const expired = await h.t.request({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(expired.statusCode).toBe(400);
    expect(expired.json().error.code).toBe(2014);
    expect(h.hs.calls(PORTAL, 'token:authorization_code')).toBe(0);

    const start2 = await h.t.api('POST', '/api/v1/integrations/hubspot/install');
    h.hs.denyNextAuthorize('access_denied', 'The user clicked deny');
    const denied = new URL((await fetch(start2.json().install_url, { redirect: 'manual' })).headers.get('location')!);
    const res = await h.t.request({ method: 'GET', url: `${denied.pathname}${denied.search}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/access_denied.*The user clicked deny/);
  });

  it('takes one slot per production portal; sandbox portals take none; a reinstall replaces the tokens', async () => {
    expect((await install(h, PORTAL)).statusCode).toBe(200);
    const second = await install(h, OTHER_PORTAL);
    expect(second.statusCode).toBe(402);
    expect(second.json().error.code).toBe(2008);
    expect((await install(h, SANDBOX_PORTAL)).statusCode).toBe(200);
    expect((await installOf(h, SANDBOX_PORTAL)).sandbox).toBe(true);

    const before = await h.t.testStore.store.hubspot.tokens(String(PORTAL));
    expect((await install(h, PORTAL)).statusCode).toBe(200);
    const after = await h.t.testStore.store.hubspot.tokens(String(PORTAL));
    expect(after!.access_token).not.toBe(before!.access_token);
    expect((await installsOf(h)).map((i) => i.portal_id).sort()).toEqual([String(PORTAL), String(SANDBOX_PORTAL)]);

    const patched = await h.t.admin('PATCH', '/admin/v1/tenants/demo', { crm_install_slots: 2 });
    expect(patched.json().tenant.crm_install_slots).toBe(2);
    expect((await install(h, OTHER_PORTAL)).statusCode).toBe(200);
  });

  it('uninstall deletes the tokens; the portal\'s CRM calls then answer ok:false 2001', async () => {
    await install(h, PORTAL);
    const contact = h.hs.addContact(PORTAL, { firstname: 'Ada', mobilephone: '+14155550123' });
    const del = await h.t.api('DELETE', `/api/v1/integrations/hubspot/${PORTAL}`);
    expect(del.statusCode).toBe(200);
    expect(del.json().install.status).toBe('uninstalled');
    const row = await h.t.testStore.store.database.db.selectFrom('hubspot_installs').selectAll().where('portal_id', '=', String(PORTAL)).executeTakeFirstOrThrow();
    expect(row.access_token_enc).toBeNull();
    expect(row.refresh_token_enc).toBeNull();
    const card = await signed(h, 'GET', cardUrl(PORTAL, contact));
    expect(card.statusCode).toBe(200);
    expect(card.json()).toMatchObject({ ok: false, code: 2001, retryable: false });
    expect(h.hs.calls(PORTAL, 'contact-read')).toBe(0);
    // Another tenant's portal is not this tenant's to touch.
    expect((await h.t.api('DELETE', `/api/v1/integrations/hubspot/${OTHER_PORTAL}`)).json().error.code).toBe(2011);
  });

  it('uninstall revokes the refresh token at HubSpot (also when HubSpot did not remove the app); a failed revoke is logged without the token and the uninstall stands', async () => {
    await install(h, PORTAL);
    const refresh = (await h.t.testStore.store.hubspot.tokens(String(PORTAL)))!.refresh_token;
    expect(h.hs.refreshTokenLive(refresh)).toBe(true);
    h.hs.fault('app-uninstall', { status: 503 });
    const first = (await h.t.api('DELETE', `/api/v1/integrations/hubspot/${PORTAL}`)).json();
    expect(first).toMatchObject({ install: { status: 'uninstalled' }, app_removed: false });
    expect(h.hs.calls(PORTAL, 'refresh-token-delete')).toBe(1);
    expect(h.hs.refreshTokenLive(refresh)).toBe(false);

    // Reinstalled, then uninstalled while HubSpot is down.
    await install(h, PORTAL);
    const second = (await h.t.testStore.store.hubspot.tokens(String(PORTAL)))!;
    h.hs.fault('app-uninstall', { status: 503 });
    h.hs.fault('refresh-token-delete', { status: 503 });
    const del = await h.t.api('DELETE', `/api/v1/integrations/hubspot/${PORTAL}`);
    expect(del.statusCode).toBe(200);
    expect(del.json()).toMatchObject({ install: { status: 'uninstalled' }, app_removed: false });
    expect(h.hs.calls(PORTAL, 'refresh-token-delete')).toBe(2);
    const logs = h.t.logs.join('');
    expect(logs).toContain('could not be revoked');
    expect(logs).toContain('HubSpot did not remove the app');
    for (const t of [refresh, second.refresh_token, second.access_token]) expect(logs).not.toContain(t);
  });

  it('auto-send is off until configured: enabling needs a template', async () => {
    await install(h, PORTAL);
    const bad = await h.t.api('PATCH', `/api/v1/integrations/hubspot/${PORTAL}`, { auto_send: { enabled: true } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe(1002);
    const ok = await h.t.api('PATCH', `/api/v1/integrations/hubspot/${PORTAL}`, { auto_send: { enabled: true, template: 'Hi {{firstname}}' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().install.auto_send).toEqual({ enabled: true, template: 'Hi {{firstname}}', line_id: null });
  });

  it('keeps tokens out of logs, answers and the database in plaintext', async () => {
    await install(h, PORTAL);
    const contact = h.hs.addContact(PORTAL, { firstname: 'Ada', mobilephone: '+14155550123' });
    await signed(h, 'GET', cardUrl(PORTAL, contact));
    const tokens = h.hs.issuedTokens();
    expect(tokens.length).toBeGreaterThanOrEqual(2);
    const listed = JSON.stringify(await installsOf(h));
    const logs = h.t.logs.join('\n');
    const db = h.t.testStore.store.database.db;
    const rows = JSON.stringify(await Promise.all(['hubspot_installs', 'hubspot_oauth_states', 'idempotency_keys'].map((tbl) => db.selectFrom(tbl as 'hubspot_installs').selectAll().execute())));
    const files = kind === 'sqlite' ? [h.t.testStore.location, `${h.t.testStore.location}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f).toString('latin1')).join('') : '';
    for (const token of tokens) {
      expect(listed).not.toContain(token);
      expect(logs).not.toContain(token);
      expect(rows).not.toContain(token);
      expect(files).not.toContain(token);
    }
    expect(logs).toContain('HubSpot portal connected');
  });
});
