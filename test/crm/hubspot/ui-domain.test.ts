/**
 * Where a portal's HubSpot UI is (account details' uiDomain), for the console's links to a
 * contact's record: learned at install from the account details call the install already makes
 * (app-eu1.hubspot.com for a portal HubSpot hosts in the EU), and for an install made before it
 * was kept, once, the first time the tenant reads its installs, with the portal's token. HubSpot
 * not answering leaves it null (plain ids, no guessed domain) and is tried again 10 minutes later,
 * not on every read.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../../support/stores.js';
import { PORTAL, SANDBOX_PORTAL, install, installOf, startHarness, type HubSpotHarness } from './helpers.js';

describe.each(STORE_KINDS)("a HubSpot portal's UI domain (%s)", (kind) => {
  let h: HubSpotHarness;
  const detailsCalls = (portal: number) => h.hs.calls(portal, 'account-details');
  /** What an install from before migration 022 looks like: no domain kept. */
  const forget = (portal: number) => h.t.testStore.store.database.db.updateTable('hubspot_installs').set({ ui_domain: null }).where('portal_id', '=', String(portal)).execute();

  beforeEach(async () => {
    h = await startHarness(kind);
  });
  afterEach(async () => h.close());

  it('is learned at install, as HubSpot says it: app.hubspot.com, or app-eu1.hubspot.com for an EU-hosted portal; no extra call', async () => {
    h.hs.hostIn(SANDBOX_PORTAL, 'eu1');
    expect((await install(h, PORTAL)).statusCode).toBe(200);
    expect((await install(h, SANDBOX_PORTAL)).statusCode).toBe(200);
    expect(detailsCalls(PORTAL)).toBe(1);
    expect(detailsCalls(SANDBOX_PORTAL)).toBe(1);
    expect((await installOf(h, PORTAL)).ui_domain).toBe('app.hubspot.com');
    expect((await installOf(h, SANDBOX_PORTAL)).ui_domain).toBe('app-eu1.hubspot.com');
    expect(detailsCalls(PORTAL)).toBe(1);
  });

  it('an install from before it was kept learns it once, with its token, on the first read; not counted against the daily limit', async () => {
    h.hs.hostIn(PORTAL, 'eu1');
    await install(h, PORTAL);
    await forget(PORTAL);
    h.hs.resetCalls();
    expect((await installOf(h, PORTAL)).ui_domain).toBe('app-eu1.hubspot.com');
    expect(detailsCalls(PORTAL)).toBe(1);
    const again = await installOf(h, PORTAL);
    expect(again.ui_domain).toBe('app-eu1.hubspot.com');
    expect(detailsCalls(PORTAL)).toBe(1);
    expect(again.calls_today.total_counted).toBe(0);
    expect((await h.t.testStore.store.hubspot.getInstall(String(PORTAL)))!.ui_domain).toBe('app-eu1.hubspot.com');
  });

  it('HubSpot not answering: null (plain ids), logged, not asked again on every read; 10 minutes later it is', async () => {
    await install(h, PORTAL);
    await forget(PORTAL);
    h.hs.resetCalls();
    h.hs.fault('account-details', { status: 503 }, { portalId: PORTAL, times: 1 });
    expect((await installOf(h, PORTAL)).ui_domain).toBeNull();
    expect((await installOf(h, PORTAL)).ui_domain).toBeNull();
    expect(detailsCalls(PORTAL)).toBe(1);
    expect(h.t.logs.join('')).toContain("could not be read for the portal's UI domain");
    h.t.clock.advance(10 * 60_000 + 1_000);
    expect((await installOf(h, PORTAL)).ui_domain).toBe('app.hubspot.com');
    expect(detailsCalls(PORTAL)).toBe(2);
  });

  it('an uninstalled portal from before it was kept stays null: no token, no call', async () => {
    await install(h, PORTAL);
    expect((await h.t.api('DELETE', `/api/v1/integrations/hubspot/${PORTAL}`)).statusCode).toBe(200);
    await forget(PORTAL);
    h.hs.resetCalls();
    expect((await installOf(h, PORTAL)).ui_domain).toBeNull();
    expect(detailsCalls(PORTAL)).toBe(0);
  });
});
