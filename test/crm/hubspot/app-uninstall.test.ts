/**
 * Uninstalling a portal removes the app from it at HubSpot (DELETE /appinstalls/v3/external-install
 * with the portal's access token), before the refresh token is revoked, so the card stops showing
 * there; best effort: HubSpot not taking it leaves the uninstall standing and says so.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../../support/stores.js';
import { PORTAL, cardUrl, install, installOf, signed, startHarness, type HubSpotHarness } from './helpers.js';

describe.each(STORE_KINDS)('HubSpot uninstall removes the app from the portal (%s)', (kind) => {
  let h: HubSpotHarness;
  const uninstall = () => h.t.api('DELETE', `/api/v1/integrations/hubspot/${PORTAL}`);
  const routes = () => h.hs.requests.map((r) => r.route);
  beforeEach(async () => {
    h = await startHarness(kind);
    expect((await install(h, PORTAL)).statusCode).toBe(200);
    h.hs.resetCalls();
  });
  afterEach(async () => h.close());

  it('the app is removed from the portal first, then the refresh token revoked; the old tokens no longer work at HubSpot', async () => {
    expect(h.hs.appInstalled(PORTAL)).toBe(true);
    const before = (await h.t.testStore.store.hubspot.tokens(String(PORTAL)))!;
    const res = await uninstall();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ install: { status: 'uninstalled' }, app_removed: true });
    expect(h.hs.appInstalled(PORTAL)).toBe(false);
    expect(h.hs.appUninstalls.map((u) => u.portalId)).toEqual([PORTAL]);
    expect(routes()).toEqual(['app-uninstall', 'refresh-token-delete']);
    // HubSpot takes neither token any more.
    const read = await fetch(`${h.hs.url}/crm/v3/objects/contacts/1?properties=phone`, { headers: { authorization: `Bearer ${before.access_token}` } });
    expect(read.status).toBe(401);
    expect(await read.json()).toMatchObject({ status: 'error', category: 'INVALID_AUTHENTICATION' });
    expect(h.hs.refreshTokenLive(before.refresh_token)).toBe(false);
    // The revoke finding the token gone with the app is no failure; neither is logged.
    const logs = h.t.logs.join('');
    expect(logs).not.toContain('could not be revoked');
    expect(logs).not.toContain('did not remove the app');
    expect((await installOf(h, PORTAL)).calls_today).toMatchObject({ total_counted: 0, token_refresh: 0 });

    // Uninstalling again asks HubSpot nothing and says it was already done; installing again puts the app back.
    expect((await uninstall()).json()).toMatchObject({ install: { status: 'uninstalled' }, app_removed: false, already_uninstalled: true });
    expect(routes().filter((r) => r === 'app-uninstall' || r === 'refresh-token-delete')).toHaveLength(2);
    expect((await install(h, PORTAL)).statusCode).toBe(200);
    expect(h.hs.appInstalled(PORTAL)).toBe(true);
    expect((await installOf(h, PORTAL)).status).toBe('active');
  });

  it('an expired access token is refreshed first (token_refresh), and the rotated refresh token is the one revoked', async () => {
    const before = (await h.t.testStore.store.hubspot.tokens(String(PORTAL)))!;
    h.t.clock.advance(31 * 60_000);
    const res = await uninstall();
    expect(res.json()).toMatchObject({ install: { status: 'uninstalled' }, app_removed: true, already_uninstalled: false });
    expect(routes()).toEqual(['token:refresh_token', 'app-uninstall', 'refresh-token-delete']);
    const revoke = h.hs.requests.find((r) => r.route === 'refresh-token-delete')!;
    expect(revoke.url).not.toContain(encodeURIComponent(before.refresh_token));
    expect((await installOf(h, PORTAL)).calls_today).toMatchObject({ token_refresh: 1, total_counted: 0 });
    expect(h.hs.appInstalled(PORTAL)).toBe(false);
  });

  it('an access token refused before its expiry is refreshed once and the app removed', async () => {
    h.hs.refuseAccessTokens(PORTAL);
    expect((await uninstall()).json()).toMatchObject({ app_removed: true });
    expect(routes()).toEqual(['app-uninstall', 'token:refresh_token', 'app-uninstall', 'refresh-token-delete']);
    expect(h.hs.appInstalled(PORTAL)).toBe(false);
  });

  it('HubSpot refusing the tokens: app_removed false, the uninstall stands, logged without secrets; the card answers 2001', async () => {
    const before = (await h.t.testStore.store.hubspot.tokens(String(PORTAL)))!;
    h.hs.refuseAccessTokens(PORTAL);
    h.hs.revokeRefreshTokens(PORTAL);
    const res = await uninstall();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ install: { status: 'uninstalled' }, app_removed: false });
    expect(h.hs.appInstalled(PORTAL)).toBe(true);
    const logs = h.t.logs.join('');
    expect(logs).toContain('HubSpot did not remove the app from the portal');
    for (const t of [before.access_token, before.refresh_token, ...h.hs.issuedTokens()]) expect(logs).not.toContain(t);
    const contact = h.hs.addContact(PORTAL, { firstname: 'Ada', mobilephone: '+14155550123' });
    expect((await signed(h, 'GET', cardUrl(PORTAL, contact))).json()).toMatchObject({ ok: false, code: 2001 });
  });
});
