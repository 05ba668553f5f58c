/**
 * The console as its people use it, past the happy path (a real service process, Debian's
 * Chromium): a session that ends under an open screen, addresses with no screen or another
 * kind's, a draft that must stay with its chat, a thread longer than one page, right-to-left
 * text, the composer by keyboard, a phone-width screen, a settings form emptied, the events
 * list kept across back and reload, a search asked for once per pause in typing, and the
 * operator's tenant and account forms.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { openSqlite } from '../../src/store/sqlite-handles.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { apiCaller, axeViolations, chromiumPath, demoOf, ensureConsoleBuilt, launch, signInAsProject, type Demo } from './browser.js';

// Evaluated in the page, not in Node: its globals, loosely typed (the test project has no DOM lib).
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const document: any, getComputedStyle: any;

const ADMIN = 'usability-admin-token-0123456789ab';
const LONG = '+14155550130'; // 130 messages: more than a page of the thread and of the events list
const HEBREW = '+14155550131';
const OTHER = '+14155550132';

let server: ServerProcess;
let demo: Demo;
let browser: { context: BrowserContext; close: () => Promise<void> };
let page: Page;

const call = (method: string, p: string, body: unknown, token: string) => apiCaller(server.url, () => demo.tenant)(method, p, body, token);
const inject = async (from: string, text: string) => expect((await call('POST', `/admin/v1/lines/${demo.phone_line_ids[0]}/simulate/inbound`, { from, text }, ADMIN)).status).toBe(202);

const signIn = () => signInAsProject(page, demo);

/** Every console session in the service's database ends now (as at the end of its 12 hours). */
function endSessions() {
  const handle = openSqlite(path.join(server.dataDir, 'blueline.sqlite'));
  handle.statement('update console_sessions set expires_at = 0').run();
  handle.db.close();
}

const skip = !chromiumPath();

describe.skipIf(skip)('console usability in Chromium', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    ensureConsoleBuilt();
    server = await startServerProcess({ prefix: 'blueline-console-use-', env: { ADMIN_TOKEN: ADMIN } });
    demo = demoOf(server.dataDir);
    for (let i = 0; i < 130; i++) await inject(LONG, `message number ${i}`);
    await inject(HEBREW, 'שלום! מתי אתם פתוחים?');
    await inject(OTHER, 'Can I pick it up Saturday?');
    browser = await launch();
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${server.url}/console/`);
    await signIn();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    server?.cleanup();
  });

  it('an address with no screen, or a screen of the other kind of session, says so; the tab names the screen', async () => {
    await page.goto(`${server.url}/console/no-such-screen`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(await page.title()).toBe('Page not found · Blueline');
    await page.getByRole('link', { name: 'Go to the start' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await page.title()).toBe('Overview · Blueline');

    // A project's session on an operator's screen: words, not the API's refusal on every card.
    await page.goto(`${server.url}/console/operator/lines`);
    await page.getByRole('heading', { name: 'Not available' }).waitFor();
    await page.getByText("This is an operator's screen; you are signed in to a project.").waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('a session that ends under an open screen brings the sign-in back, and signing in returns to the screen', async () => {
    await page.goto(`${server.url}/console/settings`);
    await page.getByLabel('Opens at').waitFor();
    endSessions();
    await page.getByRole('link', { name: 'Events', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await page.getByText('Your session has ended. Sign in again to go on where you were.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/events');
    expect(await axeViolations(page)).toEqual([]);
    await signIn();
    await page.getByRole('heading', { name: 'Events', exact: true }).waitFor();
    expect(await page.getByText('the console session has ended').count()).toBe(0);
    await page.locator('tr[data-event-id]').first().waitFor();
  });

  it('the events list keeps its page and filters across an event, back, and a reload', async () => {
    await page.goto(`${server.url}/console/events`);
    const type = page.getByRole('combobox', { name: 'Type' });
    await type.selectOption('message.received');
    await page.locator('tr[data-event-id]').nth(49).waitFor();
    const newest = await page.locator('tr[data-event-id]').first().getAttribute('data-event-id');
    // While page 2 loads (held back here), page 1's rows are shown dimmed and marked busy.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route(/\/api\/v1\/events\?/, async (route) => {
      await held;
      await route.continue();
    }, { times: 1 });
    await page.getByRole('button', { name: 'Older →' }).click();
    await page.getByText('Page 2 (loading…)').waitFor();
    expect(await page.getByRole('table', { name: 'Events' }).getAttribute('aria-busy')).toBe('true');
    release();
    await page.getByText('Page 2', { exact: true }).waitFor();
    expect(await page.getByRole('table', { name: 'Events' }).getAttribute('aria-busy')).toBe('false');
    // The page label can change before the older rows arrive (under load): wait for them.
    await page.waitForFunction((id) => { const top = document.querySelector('tr[data-event-id]')?.getAttribute('data-event-id'); return !!top && top !== id; }, newest);
    const first = await page.locator('tr[data-event-id]').first().getAttribute('data-event-id');
    await page.locator('tr[data-event-id] a').first().click();
    await page.getByRole('heading', { name: /^Attempts/ }).waitFor();
    await page.goBack();
    await page.getByText('Page 2').waitFor();
    await page.waitForFunction((id) => document.querySelector('tr[data-event-id]')?.getAttribute('data-event-id') === id, first);
    expect(await type.inputValue()).toBe('message.received');
    await page.reload();
    await page.getByText('Page 2').waitFor();
    await page.waitForFunction((id) => document.querySelector('tr[data-event-id]')?.getAttribute('data-event-id') === id, first);
    expect(await type.inputValue()).toBe('message.received');
    await page.getByRole('button', { name: '← Newer' }).click();
    await page.getByText('Page 1').waitFor();
  });

  it('a draft stays with the chat it was typed in', async () => {
    await page.goto(`${server.url}/console/conversations`);
    await page.locator('.chatrow', { hasText: OTHER }).click();
    await page.locator('.bubble', { hasText: 'Saturday' }).waitFor();
    await page.locator('.chatrow', { hasText: HEBREW }).click();
    await page.locator('.bubble', { hasText: 'שלום' }).waitFor();
    await page.getByLabel('Message text').fill('Yes, Saturday works');
    // Back to a chat seen before (its data in the cache, so its screen appears at once).
    await page.locator('.chatrow', { hasText: OTHER }).click();
    await page.locator('.bubble', { hasText: 'Saturday' }).waitFor();
    expect(await page.getByLabel('Message text').inputValue()).toBe('');
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
  });

  it('right-to-left messages read right to left, in the thread and in the chat list', async () => {
    await page.locator('.chatrow', { hasText: HEBREW }).click();
    const bubble = page.locator('.bubble p', { hasText: 'שלום' });
    expect(await bubble.evaluate((p: any) => getComputedStyle(p).direction)).toBe('rtl');
    const preview = page.locator('.chatrow', { hasText: HEBREW }).locator('bdi');
    expect(await preview.evaluate((p: any) => getComputedStyle(p).direction)).toBe('rtl');
    expect(await page.title()).toBe(`${HEBREW} · Blueline`);
  });

  it('a thread longer than a page loads its earlier messages; tapback pickers stay small', async () => {
    await page.locator('.chatrow', { hasText: LONG }).click();
    await page.locator('.bubble', { hasText: 'message number 129' }).waitFor();
    expect(await page.locator('.bubble').count()).toBe(100);
    expect(await page.locator('.bubble', { hasText: /^message number 0$/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Load earlier messages' }).click();
    await page.locator('.bubble', { hasText: /^message number 0$/ }).waitFor();
    expect(await page.locator('.bubble').count()).toBe(130);
    await page.getByRole('button', { name: 'Load earlier messages' }).waitFor({ state: 'detached' });
    // A picker under every bubble: no taller than the tapbacks beside it.
    const box = await page.getByRole('button', { name: 'React to this message' }).first().boundingBox();
    expect(box!.height).toBeLessThanOrEqual(24);
  });

  it('the composer works from the keyboard: Tab reaches Attach and Voice file', async () => {
    await page.getByLabel('Message text').focus();
    const back = async () => {
      await page.keyboard.press('Shift+Tab');
      return page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
    };
    expect(await back()).toBe(null); // ● Record (a button named by its text)
    expect(await back()).toBe('Voice note file');
    expect(await back()).toBe('Attach files');
    // Its button shows where the focus is.
    const ring = await page.locator('label.filebtn', { hasText: 'Attach' }).evaluate((l: any) => getComputedStyle(l).outlineStyle);
    expect(ring).toBe('solid');
  });

  it('settings: an emptied cap is not saved as 0, and "Saved." goes once the form changes', async () => {
    await page.goto(`${server.url}/console/settings`);
    const cap = page.getByLabel('First touches per day (project)');
    await cap.fill('');
    await page.getByRole('button', { name: 'Save settings' }).click();
    expect(await cap.evaluate((i: any) => i.validity.valueMissing)).toBe(true);
    const settings = (await (await call('GET', '/api/v1/settings', undefined, demo.signing_secret)).json()) as { settings: { daily_first_touch_cap: number } };
    expect(settings.settings.daily_first_touch_cap).toBeGreaterThan(0);
    await cap.fill('80');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByLabel('Opens at').fill('07:00');
    await page.getByText('Saved.').waitFor({ state: 'detached' });
  });

  it('at phone width: the chat list, then the chat with a way back; no screen wider than the phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${server.url}/console/conversations`);
      await page.locator('.chatrow', { hasText: OTHER }).click();
      await page.locator('.bubble', { hasText: 'Saturday' }).waitFor();
      expect(await page.locator('.chatlist').isVisible()).toBe(false);
      expect(await page.getByLabel('Message text').isVisible()).toBe(true);
      await page.getByRole('link', { name: '← Chats' }).click();
      await page.locator('.chatrow', { hasText: HEBREW }).waitFor();
      for (const screen of ['/', '/conversations', '/events', '/developers', '/settings']) {
        await page.goto(`${server.url}/console${screen}`);
        await page.locator('h1').first().waitFor();
        await page.waitForTimeout(300);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(width, screen).toBeLessThanOrEqual(390);
      }
    } finally {
      await page.setViewportSize({ width: 1360, height: 860 });
    }
  });

  it('a search is asked for once the typing pauses, not once a key, and finds a number as people write it', async () => {
    // A browser of its own: its clock is faked, and a context has one clock for all its pages.
    const own = await launch();
    try {
      const p = await own.context.newPage();
      p.setDefaultTimeout(10_000);
      await p.clock.install();
      await p.goto(`${server.url}/console/`);
      await signInAsProject(p, demo);
      await p.getByRole('link', { name: 'Conversations', exact: true }).click();
      await p.locator('.chatrow', { hasText: OTHER }).waitFor();
      const asked: string[] = [];
      p.on('request', (r) => {
        const url = new URL(r.url());
        if (url.pathname === '/api/v1/chats' && url.searchParams.has('q')) asked.push(url.searchParams.get('q')!);
      });
      await p.clock.pauseAt(Date.now() + 60_000);
      await p.getByLabel('Search chats by handle or group name').pressSequentially('0131');
      await p.clock.runFor(299);
      expect(asked).toEqual([]);
      const searched = p.waitForRequest((r) => new URL(r.url()).searchParams.get('q') === '0131');
      await p.clock.runFor(1);
      await searched;
      await p.clock.resume();
      await p.locator('.chatrow', { hasText: HEBREW }).waitFor();
      expect(await p.locator('.chatrow').count()).toBe(1);
      expect(asked).toEqual(['0131']);
      // A number as people write it finds its chat too (the list emptied first, so the row is the answer's).
      const box = p.getByLabel('Search chats by handle or group name');
      await box.fill('zzzz');
      await expect.poll(() => p.locator('.chatrow').count()).toBe(0);
      await box.fill('(415) 555-0131');
      await p.locator('.chatrow', { hasText: HEBREW }).waitFor();
      expect(await p.locator('.chatrow').count()).toBe(1);
    } finally {
      await own.close();
    }
  });

  it('operator: a slug the API refuses is caught by the form; an account is allowed more tenants, and gets one', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Operator' }).click();
    await page.getByLabel('Admin token').fill(ADMIN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tenants', exact: true }).waitFor();
    const slug = page.getByLabel('Slug');
    await slug.fill('Bad Slug');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    expect(await slug.evaluate((i: any) => i.validity.patternMismatch)).toBe(true);
    expect(await page.getByRole('alert').count()).toBe(0);

    // The demo account holds one tenant; the API's 2008 says to make it multi-tenant, which the console now can.
    await page.getByRole('link', { name: 'Accounts', exact: true }).click();
    await page.getByRole('button', { name: 'Allow more tenants for Demo account' }).click();
    await page.getByText('Demo account may now hold more than one tenant.').waitFor();
    await page.getByRole('row', { name: /Demo account/ }).getByText('multi-tenant').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Tenants', exact: true }).click();
    await page.getByLabel('Slug').fill('second-shop');
    await page.getByLabel('Name').fill('Second shop');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await page.locator('tr[data-tenant="second-shop"]').waitFor();
  });
});
