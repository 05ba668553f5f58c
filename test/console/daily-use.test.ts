/**
 * The console as a sales rep and a developer use it day to day (a real service process, Debian's
 * Chromium): the dev inbox shows what arrives, a group thread says who wrote each message, the
 * composer lets a refused file go and keeps what is typed while a send goes out, and a sign-in
 * refused for too many failures says so at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { apiCaller, chromiumPath, demoOf, ensureConsoleBuilt, launch, signInAsProject, type Demo } from './browser.js';

const ADMIN = 'daily-use-admin-token-0123456789abcd';
const CONTACT = '+14155550181';

let server: ServerProcess;
let demo: Demo;
let browser: { context: BrowserContext; close: () => Promise<void> };
let page: Page;

const call = (method: string, p: string, body: unknown, token: string) => apiCaller(server.url, () => demo.tenant)(method, p, body, token);
async function inject(body: Record<string, unknown>, line = demo.phone_line_ids[0]!): Promise<string> {
  const res = await call('POST', `/admin/v1/lines/${line}/simulate/inbound`, body, ADMIN);
  expect(res.status).toBe(202);
  return ((await res.json()) as { guid: string }).guid;
}
/** The dev inbox's endpoint now asks for `events`: a line's project's wishes are read at most once a second (of the service's clock), so the clock moves one. */
async function inboxAsksFor(events: string[]): Promise<void> {
  const subs = (await (await call('GET', '/api/v1/webhook-subscriptions', undefined, demo.signing_secret)).json()) as { subscriptions: { id: string; url: string }[] };
  const inboxSub = subs.subscriptions.find((s) => s.url === 'https://dev-inbox')!;
  expect((await call('PATCH', `/api/v1/webhook-subscriptions/${inboxSub.id}`, { events }, demo.signing_secret)).status).toBe(200);
  expect((await call('POST', '/admin/v1/clock/advance', { ms: 1_000 }, ADMIN)).status).toBe(200);
}
const deviceLog = async () => ((await (await call('GET', `/admin/v1/lines/${demo.phone_line_ids[0]}/simulate/sent`, undefined, ADMIN)).json()) as { sent: { kind: string; text?: string; body?: string }[] }).sent;

const skip = !chromiumPath();

describe.skipIf(skip)('the console in daily use, in Chromium', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    ensureConsoleBuilt();
    server = await startServerProcess({ prefix: 'blueline-console-daily-', env: { ADMIN_TOKEN: ADMIN, BLUELINE_TEST_CLOCK: '1' } });
    demo = demoOf(server.dataDir);
    await inject({ from: CONTACT, text: 'Do you ship to Canada?' });
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

  it('dev inbox: the newest events show (not the 20 oldest for ever), with who wrote and what; one that arrives later appears', async () => {
    expect((await call('POST', '/api/v1/webhook-subscriptions', { url: 'https://dev-inbox', events: ['message.received'] }, demo.signing_secret)).status).toBe(201);
    for (let i = 0; i < 25; i++) await inject({ from: '+14155550182', text: `inbox ${i}` });
    await page.goto(`${server.url}/console/developers`);
    const inbox = page.getByRole('list', { name: 'Dev inbox events, newest first' });
    await inbox.getByText('inbox 24', { exact: true }).waitFor();
    const rows = await inbox.getByRole('listitem').allInnerTexts();
    expect(rows).toHaveLength(20);
    expect(rows[0]).toContain('inbox 24'); // newest first
    expect(rows[0]).toContain('+14155550182'); // who wrote it
    expect(rows.some((r) => /\binbox 0\b/.test(r))).toBe(false);
    await page.getByText('newest 20 of 25').waitFor();
    // Arrives while the card is open: shown at the top within a poll.
    await inject({ from: '+14155550183', text: 'inbox late' });
    await inbox.getByText('inbox late', { exact: true }).waitFor({ timeout: 10_000 });
    expect(await inbox.getByRole('listitem').first().innerText()).toContain('+14155550183');
    // Its details are one click away: a new tab's (the link's address is the event's page),
    const details = inbox.getByRole('listitem').first().getByRole('link', { name: 'Details' });
    const href = (await details.getAttribute('href'))!;
    expect(href).toMatch(/^\/console\/events\/evt_/);
    const [tab] = await Promise.all([page.context().waitForEvent('page'), details.click({ modifiers: ['ControlOrMeta'] })]);
    await tab.getByText('inbox late').first().waitFor();
    expect(new URL(tab.url()).pathname).toBe(href);
    await tab.close();
    // or this one's, without loading the console again.
    await page.evaluate(() => ((globalThis as unknown as { stayed: boolean }).stayed = true));
    await details.click();
    await page.waitForURL(/\/console\/events\/evt_/);
    await page.getByText('inbox late').first().waitFor();
    expect(new URL(page.url()).pathname).toBe(href);
    expect(await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed)).toBe(true);
  });

  it('dev inbox: a message that failed after its send shows whom it was to, once the endpoint asks for message.failed', async () => {
    await page.goto(`${server.url}/console/developers`);
    // The endpoint form offers every event type.
    const pick = page.getByRole('group', { name: 'Events' });
    await pick.getByRole('checkbox', { name: 'message.failed' }).waitFor();
    expect((await pick.locator('label').allInnerTexts()).map((l) => l.trim())).toEqual(['message.received', 'message.sent', 'message.delivered', 'message.read', 'message.failed', 'message.reacted', 'message.edited']);

    await inboxAsksFor(['message.received', 'message.failed']);
    const sent = await call('POST', '/api/v1/send', { phone: '+15005550008', body: 'this one will fail' }, demo.signing_secret);
    expect(sent.status).toBe(200);
    const inbox = page.getByRole('list', { name: 'Dev inbox events, newest first' });
    const row = inbox.getByRole('listitem').filter({ hasText: 'this one will fail' });
    await row.waitFor({ timeout: 10_000 });
    expect(await row.locator('.badge').innerText()).toBe('failed');
    expect(await row.innerText()).toContain('to +15005550008');
  });

  it("dev inbox: a contact's tapback reads as Messages says it, from the contact, once the endpoint asks for message.reacted", async () => {
    await page.goto(`${server.url}/console/developers`);
    await inboxAsksFor(['message.received', 'message.reacted']);
    const sent = await call('POST', '/api/v1/send', { phone: CONTACT, body: 'Blue it is' }, demo.signing_secret);
    expect(sent.status).toBe(200);
    const { message_id: id } = (await sent.json()) as { message_id: string };
    await inject({ from: CONTACT, reaction: { message_id: id, reaction: 'love' } });
    const row = page.getByRole('list', { name: 'Dev inbox events, newest first' }).getByRole('listitem').filter({ hasText: 'Loved “Blue it is”' });
    await row.waitFor({ timeout: 10_000 });
    expect(await row.innerText()).toContain(CONTACT);
  });

  it("dev inbox: a contact's edit is marked edited, with who edited and the new text, once the endpoint asks for message.edited", async () => {
    await page.goto(`${server.url}/console/developers`);
    await inboxAsksFor(['message.received', 'message.edited']);
    await inject({ from: CONTACT, text: 'Friday works for me' });
    const chats = (await (await call('GET', `/api/v1/chats?q=${CONTACT.slice(-6)}`, undefined, demo.signing_secret)).json()) as { chats: { last_message: { id: string } }[] };
    await inject({ from: CONTACT, edit: { message_id: chats.chats[0]!.last_message.id, text: 'Saturday works for me' } });
    const inbox = page.getByRole('list', { name: 'Dev inbox events, newest first' });
    const row = inbox.getByRole('listitem').filter({ hasText: 'Saturday works for me' });
    await row.waitFor({ timeout: 10_000 });
    expect(await row.innerText()).toContain(CONTACT);
    await row.getByText('edited', { exact: true }).waitFor();
    // The message as it first came stays as it was, unmarked.
    const first = inbox.getByRole('listitem').filter({ hasText: 'Friday works for me' });
    expect(await first.getByText('edited', { exact: true }).count()).toBe(0);
  });

  it('group thread: each message from the group names who wrote it', async () => {
    const chat = { chat_key: 'iMessage;+;chat-daily-group', handles: ['+14155550183', '+14155550184'] };
    await inject({ from: '+14155550183', text: 'Blue or green?', chat }, demo.phone_line_ids[1]);
    await inject({ from: '+14155550184', text: 'Green, please', chat }, demo.phone_line_ids[1]);
    await page.goto(`${server.url}/console/conversations`);
    await page.locator('.chatrow', { hasText: '+14155550184' }).click();
    const first = page.locator('.bubble-row.in', { hasText: 'Blue or green?' });
    const second = page.locator('.bubble-row.in', { hasText: 'Green, please' });
    await second.waitFor();
    expect(await first.locator('.bubble-sender').innerText()).toBe('+14155550183');
    expect(await second.locator('.bubble-sender').innerText()).toBe('+14155550184');
    // A one-to-one thread names nobody: there is one contact.
    await page.locator('.chatrow', { hasText: CONTACT }).click();
    await page.locator('.bubble-row.in', { hasText: 'Do you ship to Canada?' }).waitFor();
    // The open chat's row says so to a screen reader; the others do not.
    expect(await page.locator('.chatrow', { hasText: CONTACT }).getAttribute('aria-current')).toBe('page');
    expect(await page.locator('.chatrow[aria-current="page"]').count()).toBe(1);
    expect(await page.locator('.bubble-sender').count()).toBe(0);
  });

  it('composer: a file no message carries is said at once, can be taken off, and the text goes out without it; the same file can be picked again', async () => {
    await page.goto(`${server.url}/console/conversations`);
    await page.locator('.chatrow', { hasText: CONTACT }).click();
    await page.locator('.bubble-row.in', { hasText: 'Do you ship to Canada?' }).waitFor();
    const picker = page.locator('input[aria-label="Attach files"]');
    await picker.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    // The input is emptied once read: picking the same file again is a change the browser reports.
    expect(await picker.evaluate((i: { files: { length: number } }) => i.files.length)).toBe(0);
    await page.getByLabel('Message text').fill('Yes, we ship to Canada');
    // Said as it is picked, and again (nothing uploaded, nothing sent) when Send is pressed.
    await page.getByRole('alert').filter({ hasText: 'notes.txt: not a kind of file a message can carry' }).waitFor();
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('alert').filter({ hasText: 'Nothing was sent.' }).waitFor();
    expect(await page.getByLabel('Message text').inputValue()).toBe('Yes, we ship to Canada');
    await page.getByRole('button', { name: 'Remove notes.txt' }).click();
    expect(await page.getByText('notes.txt').count()).toBe(0);
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.bubble-row.out', { hasText: 'Yes, we ship to Canada' }).waitFor();
    expect(await page.getByLabel('Message text').inputValue()).toBe('');
    expect(JSON.stringify(await deviceLog())).toContain('Yes, we ship to Canada');
  });

  it('composer: words typed while a send goes out stay in the box for the next message', async () => {
    // A line that takes a moment to answer (a Mac over the internet): the send is held 1.5 s.
    await page.route('**/api/v1/send', async (route) => {
      await new Promise((r) => setTimeout(r, 1_500));
      await route.continue();
    });
    try {
      const box = page.getByLabel('Message text');
      await box.fill('First message');
      await box.press('Enter');
      await page.keyboard.type(' And a second one');
      await page.locator('.bubble-row.out', { hasText: 'First message' }).waitFor();
      await expect.poll(() => box.inputValue()).toBe('And a second one');
    } finally {
      await page.unroute('**/api/v1/send');
    }
    const texts = JSON.stringify(await deviceLog());
    expect(texts).toContain('First message');
    expect(texts).not.toContain('And a second one');
  });

  it("operator at phone width (390 px): the tables scroll in themselves; the page never scrolls sideways", async () => {
    const p = await browser.context.newPage();
    try {
      await p.setViewportSize({ width: 390, height: 844 });
      await p.goto(`${server.url}/console/`);
      await p.getByRole('button', { name: 'Sign out' }).click();
      await p.getByRole('button', { name: 'Operator' }).click();
      await p.getByLabel('Admin token').fill(ADMIN);
      await p.getByRole('button', { name: 'Sign in' }).click();
      // Signed in before the page is loaded anew (else a slow sign-in leaves the sign-in form).
      await p.getByRole('heading', { name: 'Tenants', exact: true }).waitFor();
      for (const [screen, row] of [['tenants', 'tr[data-tenant]'], ['accounts', 'table[aria-label="Accounts"] tbody tr'], ['lines', 'tr[data-line]']] as const) {
        await p.goto(`${server.url}/console/operator/${screen}`);
        await p.locator(row).first().waitFor();
        const width = await p.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
        expect(width, screen).toBeLessThanOrEqual(390);
      }
    } finally {
      await p.close();
    }
  });

  // Last: it leaves this address locked out of sign-in for a minute.
  it('sign-in: after ten failures in a minute, the next try says at once to wait, instead of hanging on "Signing in…"', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${server.url}/api/v1/console/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', origin: server.url }, body: JSON.stringify({ kind: 'tenant', tenant: demo.tenant, secret: `wrong-${i}` }) });
      expect(res.status).toBe(401);
    }
    // A browser with no session (this profile's cookie dropped): the sign-in form.
    await browser.context.clearCookies();
    const p = await browser.context.newPage();
    try {
      await p.goto(`${server.url}/console/`);
      const started = Date.now();
      await signInAsProject(p, demo);
      await p.getByRole('alert').filter({ hasText: 'too many failed sign-ins' }).waitFor({ timeout: 5_000 });
      expect(Date.now() - started).toBeLessThan(5_000);
      const text = await p.getByRole('alert').innerText();
      expect(text.match(/try again/gi)).toHaveLength(1); // said once, with its wait
      expect(await p.getByRole('button', { name: 'Sign in' }).isEnabled()).toBe(true);
    } finally {
      await p.close();
    }
  });
});
