/**
 * The console's overview chart labels its bars with the project's local dates (a real service
 * process with the test clock, Debian's Chromium with its clock set to the service's): for a
 * project in America/Los_Angeles at 23:30 local, the last bar is today's local date and holds the
 * messages of 17:00 and 23:00, where a chart of UTC dates would end on tomorrow's empty bar.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { apiCaller, chromiumPath, demoOf, ensureConsoleBuilt, launch, signInAsProject, type Demo } from '../console/browser.js';
import { DAY, at, dateIn, wall } from '../messaging/zone-changes.js';

const ADMIN = 'overview-chart-admin-token-0123456789';
const TZ = 'America/Los_Angeles';

let server: ServerProcess;
let demo: Demo;
let browser: { context: BrowserContext; close: () => Promise<void> };
let page: Page;

const call = (method: string, p: string, body: unknown, token = demo.signing_secret) => apiCaller(server.url, () => demo.tenant)(method, p, body, token);

/** Moves the service's test clock forward to `ms`. */
async function moveServerTo(ms: number) {
  const now = await serverNow();
  expect(ms).toBeGreaterThan(now);
  const res = await call('POST', '/admin/v1/clock/advance', { ms: ms - now }, ADMIN);
  expect(res.status).toBe(200);
  expect(Date.parse(((await res.json()) as { now: string }).now)).toBeGreaterThanOrEqual(ms);
}
const serverNow = async () => Date.parse(((await (await call('POST', '/admin/v1/clock/advance', { ms: 0 }, ADMIN)).json()) as { now: string }).now);

const skip = !chromiumPath();

describe.skipIf(skip)('the overview chart in Chromium', { timeout: 60_000 }, () => {
  let day: string;
  beforeAll(async () => {
    ensureConsoleBuilt();
    server = await startServerProcess({ prefix: 'blueline-overview-chart-', env: { ADMIN_TOKEN: ADMIN, BLUELINE_TEST_CLOCK: '1' } });
    demo = demoOf(server.dataDir);
    const settings = await call('PATCH', '/api/v1/settings', { timezone: TZ, daily_first_touch_cap: 100, sending_window: { start: '00:00', end: '24:00' } });
    expect(settings.status).toBe(200);
    day = dateIn((await serverNow()) + 2 * DAY, TZ);
    for (const hhmm of ['17:00', '23:00']) {
      await moveServerTo(at(day, hhmm, TZ));
      const sent = await call('POST', '/api/v1/send', { phone: '+14155550188', body: `at ${hhmm}` });
      expect(sent.status, await sent.text()).toBe(200);
    }
    await moveServerTo(at(day, '23:30', TZ));
    expect(wall(await serverNow(), TZ).slice(4)).toBe('23:30');
    browser = await launch();
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    // The browser's clock reads the service's (23:30 in Los Angeles: 07:30 UTC the next day).
    await page.clock.setFixedTime(new Date(await serverNow()));
    await page.goto(`${server.url}/console/`);
    await signInAsProject(page, demo);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    server?.cleanup();
  });

  it("ends on the project's today, with both evening messages on it", async () => {
    const bars = page.locator('figure.chart svg g > title');
    await expect.poll(() => bars.count()).toBe(30);
    const titles = await bars.allTextContents();
    expect(titles.at(-1)).toBe(`${day}: 2 sent, 0 received, 0 failed`);
    expect(titles.slice(0, -1).every((t) => t.endsWith(': 0 sent, 0 received, 0 failed'))).toBe(true);
    // 30 consecutive local dates, the day before first.
    expect(titles.at(-2)!.slice(0, 10)).toBe(dateIn(at(day, '12:00', TZ) - DAY, TZ));
    expect(await page.getByRole('img', { name: /Messages per day over 30 days: 2 sent/ }).count()).toBe(1);
  });
});
