/**
 * Disconnecting a HubSpot portal from the console, in Chromium against the service (the app on
 * loopback) and the HubSpot stand-in. The Disconnect button asks first (the console's confirm,
 * saying what stops); cancelled, nothing changes. Accepted, the app is removed from the portal at
 * HubSpot, the card shows the install uninstalled with a notice (focused) saying so, and
 * "Connect HubSpot again" brings the portal back. When HubSpot cannot be told (its tokens refused,
 * the refresh too), the notice asks an admin of the portal to remove the app in HubSpot; the
 * portal's texts page says it is disconnected. Already disconnected elsewhere (an API call, another
 * tab), the notice says so instead, and the card catches up. By keyboard; axe passes, also at phone width,
 * where nothing is wider than the phone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { freePort } from '../support/ports.js';
import { PORTAL, SANDBOX_PORTAL, install, startHarness, type HubSpotHarness } from '../crm/hubspot/helpers.js';
import { axeViolations, chromiumPath, ensureConsoleBuilt, launch, signInAsProject } from './browser.js';

declare const document: any; // eslint-disable-line @typescript-eslint/no-explicit-any

type Browser = Awaited<ReturnType<typeof launch>>;

describe.skipIf(!chromiumPath())('console: disconnecting a HubSpot portal', { timeout: 60_000 }, () => {
  let h: HubSpotHarness;
  let base: string;
  let browser: Browser;
  let page: Page;
  const deletes: string[] = [];

  const card = (portal: number) => page.locator('.install', { has: page.getByRole('heading', { name: new RegExp(`Portal ${portal}\\b`) }) });
  const statusOf = async (portal: number) => {
    const s = (await h.t.api('GET', '/api/v1/integrations/hubspot')).json() as { installs: { portal_id: string; status: string }[] };
    return s.installs.find((i) => i.portal_id === String(portal))?.status;
  };
  const focused = () => page.evaluate(() => ({ text: document.activeElement?.textContent as string, testid: document.activeElement?.getAttribute('data-testid') as string | null }));
  const expectAccessible = async () => {
    const violations = await axeViolations(page);
    expect(violations, JSON.stringify(violations)).toEqual([]);
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    h = await startHarness('sqlite', { PUBLIC_BASE_URL: base });
    expect((await install(h, PORTAL)).statusCode).toBe(200);
    expect((await install(h, SANDBOX_PORTAL)).statusCode).toBe(200);
    await h.t.app.listen({ host: '127.0.0.1', port });
    browser = await launch();
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('request', (r) => {
      if (r.method() === 'DELETE') deletes.push(new URL(r.url()).pathname);
    });
    await page.goto(`${base}/console/`);
    await signInAsProject(page, h.t.demo);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('link', { name: 'HubSpot' }).click();
    await card(PORTAL).getByText('active', { exact: true }).waitFor();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('asks first, saying what stops; cancelled, the portal stays connected and the focus on the button', async () => {
    const button = card(PORTAL).getByRole('button', { name: `Disconnect portal ${PORTAL}`, exact: true });
    let asked = '';
    page.once('dialog', (d) => {
      asked = d.message();
      void d.dismiss();
    });
    await button.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => asked).toContain(`Disconnect HubSpot portal ${PORTAL}?`);
    for (const said of ['contact card', 'workflow action', 'auto-send to new contacts', 'no longer logged on HubSpot timelines', 'app is removed from the HubSpot portal', 'conversations stay in Blueline']) expect(asked).toContain(said);

    await page.waitForTimeout(300);
    expect(deletes).toEqual([]);
    expect(h.hs.appInstalled(PORTAL)).toBe(true);
    expect(h.hs.appUninstalls).toEqual([]);
    expect(await statusOf(PORTAL)).toBe('active');
    expect(await card(PORTAL).getByText('active', { exact: true }).count()).toBe(1);
    expect((await focused()).text).toBe(`Disconnect portal ${PORTAL}`);
  });

  it('accepted: the app is removed from the portal; the card shows it uninstalled with a notice (focused); Connect HubSpot again brings it back', async () => {
    page.once('dialog', (d) => void d.accept());
    await card(PORTAL).getByRole('button', { name: `Disconnect portal ${PORTAL}`, exact: true }).focus();
    await page.keyboard.press('Enter');
    const outcome = card(PORTAL).getByTestId('disconnect-outcome');
    await outcome.getByText(`Disconnected. The app was removed from HubSpot portal ${PORTAL}. The conversations stay in Blueline.`).waitFor();
    await card(PORTAL).getByText('uninstalled', { exact: true }).waitFor();
    // The button went away with the install: the focus is on what replaced it, read out as a status.
    expect((await focused()).testid).toBe('disconnect-outcome');
    expect(await outcome.getByRole('status').count()).toBe(1);

    expect(deletes).toEqual([`/api/v1/integrations/hubspot/${PORTAL}`]);
    expect(h.hs.appInstalled(PORTAL)).toBe(false);
    expect(h.hs.appUninstalls.map((u) => u.portalId)).toEqual([PORTAL]);
    expect(await statusOf(PORTAL)).toBe('uninstalled');
    // Nothing left to set or disconnect on it; the other portal is untouched.
    expect(await card(PORTAL).getByRole('button', { name: /^Disconnect/ }).count()).toBe(0);
    expect(await card(PORTAL).getByLabel('Message when a contact is created').count()).toBe(0);
    expect(await card(SANDBOX_PORTAL).getByText('active', { exact: true }).count()).toBe(1);
    expect(h.hs.appInstalled(SANDBOX_PORTAL)).toBe(true);
    await expectAccessible();

    // Later (a reload): the card still says it is disconnected and how to turn it back on.
    await page.reload();
    await card(PORTAL).getByText('uninstalled', { exact: true }).waitFor();
    await card(PORTAL).getByText(/This portal is disconnected/).waitFor();
    expect(await card(PORTAL).getByTestId('disconnect-outcome').count()).toBe(0);
    await card(PORTAL).getByRole('button', { name: 'Connect HubSpot again', exact: true }).click();
    const link = card(PORTAL).getByRole('link', { name: 'Continue in HubSpot' });
    const installUrl = (await link.getAttribute('href'))!;
    expect(installUrl.startsWith(`${h.hs.url}/`)).toBe(true);
    h.hs.authorizeAs(PORTAL);
    await page.goto(installUrl);
    await page.getByText(String(PORTAL)).first().waitFor();
    await expect.poll(() => statusOf(PORTAL)).toBe('active');
    expect(h.hs.appInstalled(PORTAL)).toBe(true);
    await page.goto(`${base}/console/hubspot`);
    await card(PORTAL).getByText('active', { exact: true }).waitFor();
    await card(PORTAL).getByRole('button', { name: `Disconnect portal ${PORTAL}`, exact: true }).waitFor();
  });

  it('HubSpot cannot be told (tokens and refresh refused): disconnected anyway, the notice asks an admin of the portal to remove the app; at phone width too', async () => {
    h.hs.refuseAccessTokens(SANDBOX_PORTAL);
    h.hs.revokeRefreshTokens(SANDBOX_PORTAL);
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      page.once('dialog', (d) => void d.accept());
      await card(SANDBOX_PORTAL).getByRole('button', { name: `Disconnect portal ${SANDBOX_PORTAL}`, exact: true }).click();
      const outcome = card(SANDBOX_PORTAL).getByTestId('disconnect-outcome');
      await outcome
        .getByText(`Disconnected here, but HubSpot could not be told. An admin of HubSpot portal ${SANDBOX_PORTAL} should remove the app in HubSpot: Settings → Integrations → Connected apps.`, { exact: false })
        .waitFor();
      await card(SANDBOX_PORTAL).getByText('uninstalled', { exact: true }).waitFor();
      expect((await focused()).testid).toBe('disconnect-outcome');
      expect(await statusOf(SANDBOX_PORTAL)).toBe('uninstalled');
      // HubSpot never took the removal: the app is still in the portal, for its admin to remove.
      expect(h.hs.appInstalled(SANDBOX_PORTAL)).toBe(true);
      expect(h.hs.appUninstalls.filter((u) => u.portalId === SANDBOX_PORTAL)).toEqual([]);
      await card(SANDBOX_PORTAL).getByRole('button', { name: 'Connect HubSpot again', exact: true }).waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await expectAccessible();

      // Its texts stay readable, under a notice that the portal is disconnected, with the way back.
      await card(SANDBOX_PORTAL).getByRole('link', { name: `Texts by contact for portal ${SANDBOX_PORTAL}` }).click();
      await page.getByRole('heading', { name: `HubSpot portal ${SANDBOX_PORTAL}` }).waitFor();
      await page.getByText('This portal is disconnected: nothing more is texted from HubSpot; these are its past texts.').waitFor();
      await expectAccessible();
      await page.getByRole('link', { name: 'Connect HubSpot again' }).click();
      await page.getByRole('heading', { name: 'Connect HubSpot' }).waitFor();
    } finally {
      await page.setViewportSize({ width: 1360, height: 860 });
    }
  });

  it('already disconnected elsewhere (an API call, another tab): Disconnect says so, not that HubSpot could not be told, and the card turns uninstalled', async () => {
    await page.goto(`${base}/console/hubspot`);
    const button = card(PORTAL).getByRole('button', { name: `Disconnect portal ${PORTAL}`, exact: true });
    await button.waitFor();
    // Disconnected behind this page's back: the card still shows it active.
    expect((await h.t.api('DELETE', `/api/v1/integrations/hubspot/${PORTAL}`)).json()).toMatchObject({ app_removed: true, already_uninstalled: false });
    const removals = h.hs.appUninstalls.length;
    expect(await card(PORTAL).getByText('active', { exact: true }).count()).toBe(1);

    page.once('dialog', (d) => void d.accept());
    await button.focus();
    await page.keyboard.press('Enter');
    const outcome = card(PORTAL).getByTestId('disconnect-outcome');
    await outcome.getByText('This portal was already disconnected (in another tab or through the API). Nothing more was done. The conversations stay in Blueline.').waitFor();
    expect(await outcome.getByText(/could not be told/).count()).toBe(0);
    await card(PORTAL).getByText('uninstalled', { exact: true }).waitFor();
    expect((await focused()).testid).toBe('disconnect-outcome');
    // The page's state caught up: no Disconnect or auto-send form left, the way back offered; HubSpot was not asked again.
    expect(await card(PORTAL).getByRole('button', { name: /^Disconnect/ }).count()).toBe(0);
    expect(await card(PORTAL).getByLabel('Message when a contact is created').count()).toBe(0);
    await card(PORTAL).getByRole('button', { name: 'Connect HubSpot again', exact: true }).waitFor();
    expect(h.hs.appUninstalls.length).toBe(removals);
    expect(await statusOf(PORTAL)).toBe('uninstalled');
    await expectAccessible();
  });
});
