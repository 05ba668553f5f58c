/**
 * What an outside review of the console in Chromium found (twenty-second session), against a real
 * service process: a screen whose code does not load fails in its own place (it replaced the whole
 * console with a bare error page); the words typed in a chat and the settings being saved
 * survive a session that ended as they went out; an edited message keeps its "Read"; a
 * 150-character e-mail handle widens nothing; a message from another day shows its date.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { apiCaller, chromiumPath, demoOf, ensureConsoleBuilt, launch, signInAsProject, type Demo } from './browser.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
declare const document: any;

const ADMIN = 'outside-review-admin-token-0123456789';
const CONTACT = '+14155550171';
const LONG = `${'abcdefghij'.repeat(14)}@example.com`;

let server: ServerProcess;
let demo: Demo;
let browser: { context: BrowserContext; close: () => Promise<void> };
let page: Page;

const call = (method: string, p: string, body: unknown, token: string) => apiCaller(server.url, () => demo.tenant)(method, p, body, token);
const inject = async (body: object) => expect((await call('POST', `/admin/v1/lines/${demo.phone_line_ids[0]}/simulate/inbound`, body, ADMIN)).status).toBe(202);
const chatOf = async (handle: string) =>
  ((await (await call('GET', '/api/v1/chats?limit=50', undefined, demo.signing_secret)).json()) as { chats: { chat: { id: string; handles: string[] } }[] }).chats.find((c) => c.chat.handles.includes(handle))!.chat.id;

describe.skipIf(!chromiumPath())('console: what the outside review found', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    ensureConsoleBuilt();
    server = await startServerProcess({ prefix: 'blueline-console-review-', env: { ADMIN_TOKEN: ADMIN } });
    demo = demoOf(server.dataDir);
    await inject({ from: CONTACT, text: 'Hello there' });
    await inject({ from: LONG, text: 'from a long address' });
    browser = await launch();
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${server.url}/console/`);
    await signInAsProject(page, demo);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    server?.cleanup();
  });

  it("a screen whose code does not load fails in its own place: the navigation stays, and the others work", async () => {
    // The Settings screen's code is never fetched before: its request fails (the service away, or an upgrade renamed it).
    await page.route(/\/console\/assets\/settings-[^/]+\.js$/, (route) => route.abort());
    try {
      await page.getByRole('link', { name: 'Settings', exact: true }).click();
      await page.getByRole('heading', { name: 'This screen could not be shown' }).waitFor();
      expect(await page.getByRole('button', { name: 'Reload the console' }).isVisible()).toBe(true);
      expect(await page.locator('nav.sidebar').isVisible()).toBe(true);
      await page.getByRole('link', { name: 'Conversations', exact: true }).click();
      await page.getByRole('heading', { name: 'Conversations' }).waitFor();
    } finally {
      await page.unroute(/\/console\/assets\/settings-[^/]+\.js$/);
    }
  });

  it('keeps the words typed in a chat when the session ends as they are sent', async () => {
    await page.goto(`${server.url}/console/conversations/${await chatOf(CONTACT)}`);
    await page.locator('.bubble', { hasText: 'Hello there' }).waitFor();
    await page.getByLabel('Message text').fill('Our offer stands until Friday');
    // The session ends elsewhere (signed out from another window): the send meets a 401.
    const cookie = (await browser.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    expect((await fetch(`${server.url}/api/v1/console/session`, { method: 'DELETE', headers: { cookie, origin: server.url } })).status).toBe(200);
    await page.getByLabel('Message text').press('Enter');
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await signInAsProject(page, demo);
    await page.locator('.bubble', { hasText: 'Hello there' }).waitFor();
    expect(await page.getByLabel('Message text').inputValue()).toBe('Our offer stands until Friday');
  });

  it('keeps the settings being saved when the session ends as they are saved; they save once signed in again', async () => {
    await page.goto(`${server.url}/console/settings`);
    const cap = page.getByLabel('First touches per day (project)');
    await cap.waitFor();
    await cap.fill('7');
    await page.getByLabel('Opens at').fill('08:30');
    const cookie = (await browser.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    expect((await fetch(`${server.url}/api/v1/console/session`, { method: 'DELETE', headers: { cookie, origin: server.url } })).status).toBe(200);
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await signInAsProject(page, demo);
    await cap.waitFor();
    expect(await cap.inputValue()).toBe('7');
    expect(await page.getByLabel('Opens at').inputValue()).toBe('08:30');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved. New sends follow these settings now.').waitFor();
    const saved = ((await (await call('GET', '/api/v1/settings', undefined, demo.signing_secret)).json()) as { settings: { daily_first_touch_cap: number; sending_window: { start: string } } }).settings;
    expect(saved).toMatchObject({ daily_first_touch_cap: 7, sending_window: { start: '08:30' } });
  });

  it('an edited message keeps its receipt: "Edited · Read", not "Sent"', async () => {
    const sent = (await (await call('POST', '/api/v1/send', { phone: CONTACT, body: 'See you at 3' }, demo.signing_secret)).json()) as { message_id: string };
    await expect.poll(async () => ((await (await call('GET', `/api/v1/messages/${sent.message_id}`, undefined, demo.signing_secret)).json()) as { message: { read_at: string | null } }).message.read_at, { timeout: 10_000 }).not.toBeNull();
    expect((await call('POST', `/api/v1/messages/${sent.message_id}/edit`, { new_text: 'See you at 4' }, demo.signing_secret)).status).toBe(200);
    await page.goto(`${server.url}/console/conversations/${await chatOf(CONTACT)}`);
    const meta = page.locator(`[data-message-id="${sent.message_id}"] .bubble-meta`);
    await expect.poll(() => meta.textContent(), { timeout: 10_000 }).toMatch(/Edited · Read$/);
  });

  it('a 150-character e-mail handle widens nothing, at desktop width and at phone width', async () => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      await page.goto(`${server.url}/console/conversations`);
      await page.locator('.chatrow', { hasText: 'from a long address' }).waitFor();
      const list = await page.evaluate(() => {
        const el = document.querySelector('.chatlist');
        return { scroll: el.scrollWidth, client: el.clientWidth, page: document.documentElement.scrollWidth, viewport: document.documentElement.clientWidth };
      });
      expect(list.scroll).toBeLessThanOrEqual(list.client);
      expect(list.page).toBeLessThanOrEqual(list.viewport);
      await page.locator('.chatrow', { hasText: 'from a long address' }).click();
      await page.locator('.bubble', { hasText: 'from a long address' }).waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('an "After" filter in a shared link is the same moment in every time zone', async () => {
    const chromium = browser.context.browser()!;
    const cookies = await browser.context.cookies();
    const open = async (timezoneId: string) => {
      const ctx = await chromium.newContext({ timezoneId });
      await ctx.addCookies(cookies);
      const p = await ctx.newPage();
      p.setDefaultTimeout(10_000);
      const asked: string[] = [];
      p.on('request', (r) => {
        const url = new URL(r.url());
        if (url.pathname === '/api/v1/events' && url.searchParams.has('since')) asked.push(url.searchParams.get('since')!);
      });
      return { ctx, p, asked };
    };
    const la = await open('America/Los_Angeles');
    const tokyo = await open('Asia/Tokyo');
    try {
      await la.p.goto(`${server.url}/console/events`);
      await la.p.getByLabel('After').fill('2026-11-28T01:03');
      await expect.poll(() => new URL(la.p.url()).searchParams.get('since')).toBe('2026-11-28T09:03:00.000Z');
      await tokyo.p.goto(la.p.url());
      await expect.poll(() => tokyo.asked.at(-1)).toBe('2026-11-28T09:03:00.000Z');
      expect(await tokyo.p.getByLabel('After').inputValue()).toBe('2026-11-28T18:03');
      expect(la.asked.at(-1)).toBe('2026-11-28T09:03:00.000Z');
    } finally {
      await la.ctx.close();
      await tokyo.ctx.close();
    }
  });

  it("the browser's Back from the events' second page is the first page, not the screen before Events", async () => {
    for (let i = 0; i < 50; i++) await inject({ from: CONTACT, text: `event ${i}` });
    await page.goto(`${server.url}/console/conversations`);
    await page.getByRole('link', { name: 'Events', exact: true }).click();
    await page.locator('tr[data-event-id]').first().waitFor();
    await page.getByRole('button', { name: 'Older →' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.has('c')).toBe(true);
    await page.goBack();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/console/events');
    expect(new URL(page.url()).searchParams.has('c')).toBe(false);
  });
});
