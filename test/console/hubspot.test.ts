/**
 * The console's HubSpot screen in Chromium against a real service process and the HubSpot
 * stand-in: connect (the install flow through HubSpot's consent page and back), the install
 * listed active with today's calls, the auto-send template previewed and saved (the API returns
 * it), the reply-push breaker shown. Without the integration configured the screen is not listed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { freePort } from '../support/ports.js';
import { startHubSpotStandin } from '../support/hubspot/standin.js';
import { axeViolations, chromiumPath, ensureConsoleBuilt, launch } from './browser.js';

const CLIENT_ID = 'console-hs-client';
const CLIENT_SECRET = 'console-hs-client-secret';
const PORTAL = 62515;

type Standin = Awaited<ReturnType<typeof startHubSpotStandin>>;
type Browser = Awaited<ReturnType<typeof launch>>;

async function signIn(page: Page, server: ServerProcess) {
  const demo = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'demo.json'), 'utf8')) as { tenant: string; signing_secret: string };
  await page.goto(`${server.url}/console/`);
  await page.getByLabel('Tenant slug').fill(demo.tenant);
  await page.getByLabel('Signing secret').fill(demo.signing_secret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  return demo;
}

describe.skipIf(!chromiumPath())('console: HubSpot screen', { timeout: 60_000 }, () => {
  let hs: Standin;
  let server: ServerProcess;
  let plain: ServerProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ensureConsoleBuilt();
    hs = await startHubSpotStandin({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    hs.addPortal(PORTAL, 'STANDARD');
    const port = await freePort();
    server = await startServerProcess({
      prefix: 'blueline-console-hs-',
      port,
      env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, HUBSPOT_CLIENT_ID: CLIENT_ID, HUBSPOT_CLIENT_SECRET: CLIENT_SECRET, HUBSPOT_API_BASE: hs.url, HUBSPOT_AUTH_BASE: hs.url },
    });
    plain = await startServerProcess({ prefix: 'blueline-console-nohs-' });
    browser = await launch();
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    server?.cleanup();
    plain?.cleanup();
    await hs?.close();
  });

  it('is not listed when the service has no HubSpot app configured', async () => {
    await signIn(page, plain);
    await page.getByRole('link', { name: 'Settings' }).waitFor();
    expect(await page.getByRole('link', { name: 'HubSpot' }).count()).toBe(0);
    await page.goto(`${plain.url}/console/hubspot`);
    await page.getByRole('heading', { name: 'Not configured' }).waitFor();
  });

  it('connects a portal, shows it with its calls and breaker, and saves a previewed auto-send template', async () => {
    const demo = await signIn(page, server);
    await page.getByRole('link', { name: 'HubSpot' }).click();
    await page.getByText('No portal connected yet.').waitFor();
    await page.getByRole('button', { name: 'Connect HubSpot' }).click();
    const link = page.getByRole('link', { name: 'Continue in HubSpot' });
    const installUrl = (await link.getAttribute('href'))!;
    expect(installUrl.startsWith(`${hs.url}/`)).toBe(true);
    // HubSpot's consent page (the stand-in grants PORTAL) redirects back to the callback.
    hs.authorizeAs(PORTAL);
    await page.goto(installUrl);
    await page.getByText(String(PORTAL)).first().waitFor();

    await page.goto(`${server.url}/console/hubspot`);
    const install = page.locator('.install', { hasText: String(PORTAL) });
    await install.getByText('active', { exact: true }).waitFor();
    await install.getByRole('table', { name: `HubSpot calls today for portal ${PORTAL}` }).waitFor();
    await page.getByText('breaker closed').waitFor();

    // The service's placeholder rules: a fallback for a property the contact lacks, any case.
    await install.getByLabel('Message when a contact is created').fill('Hi {{FirstName}} {{nickname|friend}}, from {{hs_team}}');
    await expect.poll(() => install.getByTestId('template-preview').innerText()).toBe('Hi Alex friend, from {{hs_team}}');
    await install.getByLabel('Message when a contact is created').fill('Hi {{firstname}}, welcome to {{company}}!');
    await expect.poll(() => install.getByTestId('template-preview').innerText()).toBe('Hi Alex, welcome to Northwind!');
    await install.getByLabel('Send automatically to new contacts').check();
    await install.getByRole('button', { name: 'Save auto-send' }).click();
    await install.getByText('Auto-send saved.').waitFor();
    const violations = await axeViolations(page);
    expect(violations, JSON.stringify(violations)).toEqual([]);

    const status = (await (await fetch(`${server.url}/api/v1/integrations/hubspot`, { headers: { authorization: `Bearer ${demo.signing_secret}`, 'x-service-tenant': demo.tenant } })).json()) as { installs: { portal_id: string; status: string; auto_send: { enabled: boolean; template: string } }[] };
    expect(status.installs).toEqual([expect.objectContaining({ portal_id: String(PORTAL), status: 'active', auto_send: expect.objectContaining({ enabled: true, template: 'Hi {{firstname}}, welcome to {{company}}!' }) })]);
  });
});
