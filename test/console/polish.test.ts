/**
 * The console's finish, in Chromium against a real service process: a composer that grows and
 * sends a new line as a new line, focus on the new screen's heading after a move (not on a first
 * load; the skip link still works), avatars for names and handles in any script, the operator's
 * secret rotation asked first, and a secret shown once in its own box, not inside a green banner.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { apiCaller, axeViolations, chromiumPath, demoOf, ensureConsoleBuilt, launch, signInAsProject, type Demo } from './browser.js';

// Evaluated in the page, not in Node: its globals, loosely typed (the test project has no DOM lib).
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const document: any, getComputedStyle: any, location: any;

const ADMIN = 'polish-admin-token-0123456789abcdef';
const CONTACT = '+14155550161';

let server: ServerProcess;
let demo: Demo;
let browser: { context: BrowserContext; close: () => Promise<void> };
let page: Page;

const call = (method: string, p: string, body: unknown, token: string) => apiCaller(server.url, () => demo.tenant)(method, p, body, token);
const inject = async (body: object) => expect((await call('POST', `/admin/v1/lines/${demo.phone_line_ids[0]}/simulate/inbound`, body, ADMIN)).status).toBe(202);
const deviceLog = async () => ((await (await call('GET', `/admin/v1/lines/${demo.phone_line_ids[0]}/simulate/sent`, undefined, ADMIN)).json()) as { sent: { kind: string; text?: string }[] }).sent;
/** What has the keyboard focus: its tag and accessible text. */
const focused = () => page.evaluate(() => ({ tag: document.activeElement?.tagName, text: document.activeElement?.textContent?.trim(), id: document.activeElement?.id }));

const signIn = () => signInAsProject(page, demo);

// Names and handles in other scripts: each avatar shows a letter of it (or its emoji), never nothing.
const AVATARS: { send: object; row: string; avatar: string }[] = [
  { send: { from: 'שרה@example.com', text: 'שלום' }, row: 'שרה@example.com', avatar: 'ש' },
  { send: { from: 'سارة@example.com', text: 'مرحبا' }, row: 'سارة@example.com', avatar: 'س' },
  { send: { from: '山田@example.jp', text: 'こんにちは' }, row: '山田@example.jp', avatar: '山' },
  { send: { from: '🙂@example.com', text: 'hi' }, row: '🙂@example.com', avatar: '🙂' },
  { send: { from: '+14155550162', text: 'hey', chat: { chat_key: 'g-he', handles: ['+14155550162', '+14155550163'], display_name: 'משפחת כהן' } }, row: 'משפחת כהן', avatar: 'מ' },
  { send: { from: '+14155550162', text: 'hey', chat: { chat_key: 'g-ar', handles: ['+14155550162', '+14155550164'], display_name: 'عائلة' } }, row: 'عائلة', avatar: 'ع' },
  { send: { from: '+14155550162', text: 'hey', chat: { chat_key: 'g-cjk', handles: ['+14155550162', '+14155550165'], display_name: '家族のチャット' } }, row: '家族のチャット', avatar: '家' },
  { send: { from: '+14155550162', text: 'hey', chat: { chat_key: 'g-emoji', handles: ['+14155550162', '+14155550166'], display_name: '🎉🎉🎉' } }, row: '🎉🎉🎉', avatar: '🎉' },
  { send: { from: '+14155550162', text: 'hey', chat: { chat_key: 'g-latin', handles: ['+14155550162', '+14155550167'], display_name: 'Sam Lee' } }, row: 'Sam Lee', avatar: 'SL' },
  { send: { from: CONTACT, text: 'Is the blue one still available?' }, row: CONTACT, avatar: '61' },
];

describe.skipIf(!chromiumPath())('console finish in Chromium', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    ensureConsoleBuilt();
    server = await startServerProcess({ prefix: 'blueline-console-polish-', env: { ADMIN_TOKEN: ADMIN } });
    demo = demoOf(server.dataDir);
    for (const a of AVATARS) await inject(a.send);
    browser = await launch();
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    server?.cleanup();
  });

  it('focus: left alone on the first load, on the heading after signing in and after each move to another screen', async () => {
    await page.goto(`${server.url}/console/`);
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await page.waitForTimeout(200);
    expect((await focused()).tag).toBe('BODY');
    await signIn();
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
    expect((await focused()).text).toBe('Overview');
    for (const [link, heading] of [['Conversations', 'Conversations'], ['Events', 'Events'], ['Developers', 'Developers'], ['Settings', 'Settings']]) {
      await page.getByRole('link', { name: link, exact: true }).click();
      await page.waitForFunction((h) => document.activeElement?.tagName === 'H1' && document.activeElement.textContent.trim() === h, heading);
    }
    // The keyboard goes on from the heading: the next Tab is inside the new screen, not the sidebar.
    await page.getByLabel('Time zone').waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => !!document.activeElement?.closest('main'))).toBe(true);
    // The same screen with another query (a filter) keeps the focus where the user is.
    await page.getByRole('link', { name: 'Events', exact: true }).click();
    await page.waitForFunction(() => document.activeElement?.textContent?.trim() === 'Events');
    const type = page.getByRole('combobox', { name: 'Type' });
    await type.focus();
    await type.selectOption('message.received');
    await page.waitForFunction(() => location.search.includes('message.received'));
    await page.waitForTimeout(300);
    expect((await focused()).tag).toBe('SELECT');
    // Picking a chat is the same screen: the focus stays on the chat picked.
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    await page.locator('.chatrow', { hasText: CONTACT }).focus();
    await page.keyboard.press('Enter');
    await page.locator('.bubble', { hasText: 'still available' }).waitFor();
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => document.activeElement?.classList.contains('chatrow'))).toBe(true);
    // At phone width the chat list gives way to the chat: focus goes to the chat's name, and back.
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.getByRole('link', { name: '← Chats' }).click();
      // The bar across the top stays a bar when the screen below is short (it was stretched to a third of the phone).
      expect((await page.locator('nav.sidebar').boundingBox())!.height).toBeLessThan(120);
      await page.locator('.chatrow', { hasText: 'Sam Lee' }).focus();
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.activeElement?.tagName === 'H2' && document.activeElement.textContent.trim() === 'Sam Lee');
      await page.getByRole('link', { name: '← Chats' }).focus();
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.activeElement?.tagName === 'H1' && document.activeElement.textContent.trim() === 'Conversations');
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Search chats by handle or group name');
    } finally {
      await page.setViewportSize({ width: 1360, height: 860 });
    }
  });

  it('the skip link still takes the keyboard to the content', async () => {
    await page.goto(`${server.url}/console/settings`);
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await page.keyboard.press('Tab');
    expect((await focused()).text).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect((await focused()).id).toBe('main');
  });

  it('avatars show a letter of a name or handle in any script, or its emoji', async () => {
    await page.goto(`${server.url}/console/conversations`);
    for (const a of AVATARS) {
      const avatar = page.locator('.chatrow', { hasText: a.row }).locator('.avatar');
      expect((await avatar.textContent())?.trim(), a.row).toBe(a.avatar);
    }
    // A handle reads left to right whatever its script ('שרה@example.com', not 'example.com@שרה'); a name in its own direction.
    const name = (row: string) => page.locator('.chatrow', { hasText: row }).locator('strong');
    expect(await name('שרה@example.com').evaluate((el: any) => getComputedStyle(el).direction)).toBe('ltr');
    expect(await name('משפחת כהן').evaluate((el: any) => getComputedStyle(el).direction)).toBe('rtl');
  });

  it('the composer grows with its lines; Shift+Enter is a new line, Enter sends, and the device gets the new line', async () => {
    await page.locator('.chatrow', { hasText: CONTACT }).click();
    await page.locator('.bubble', { hasText: 'still available' }).waitFor();
    const box = page.getByLabel('Message text');
    expect(await box.evaluate((el: any) => el.tagName)).toBe('TEXTAREA');
    const one = (await box.boundingBox())!.height;
    expect(one).toBeLessThan(48);
    await box.focus();
    await page.keyboard.press('Enter'); // nothing to send yet
    await page.keyboard.type('Yes, it is.');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('Want me to hold one?');
    expect(await box.inputValue()).toBe('Yes, it is.\nWant me to hold one?');
    const two = (await box.boundingBox())!.height;
    expect(two).toBeGreaterThan(one + 10);
    // Many lines: it stops growing and scrolls.
    for (let i = 0; i < 12; i++) await page.keyboard.press('Shift+Enter');
    const many = (await box.boundingBox())!.height;
    expect(many).toBeLessThanOrEqual(170);
    expect(await box.evaluate((el: any) => el.scrollHeight > el.clientHeight)).toBe(true);
    for (let i = 0; i < 12; i++) await page.keyboard.press('Backspace');
    await page.keyboard.press('Enter');
    await page.locator('.bubble.out', { hasText: 'Want me to hold one?' }).waitFor();
    expect(await box.inputValue()).toBe('');
    expect((await box.boundingBox())!.height).toBeLessThan(one + 2);
    const texts = (await deviceLog()).filter((e) => e.kind === 'text').map((e) => e.text);
    expect(texts).toContain('Yes, it is.\nWant me to hold one?');
    // The bubble shows it on two lines.
    const lines = await page.locator('.bubble.out p', { hasText: 'Want me to hold one?' }).evaluate((p: any) => Math.round(p.getBoundingClientRect().height / parseFloat(getComputedStyle(p).lineHeight)));
    expect(lines).toBe(2);
    expect(await axeViolations(page)).toEqual([]);
  });

  it("operator: rotating an account's secret asks first; the new secret is shown once in its own box", async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Operator' }).click();
    await page.getByLabel('Admin token').fill(ADMIN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tenants', exact: true }).waitFor();
    await page.getByRole('link', { name: 'Accounts' }).click();
    const rotate = page.getByRole('row', { name: /Demo account/ }).getByRole('button', { name: /^Rotate secret/ });

    // Dismissed: nothing happens.
    let asked = '';
    page.once('dialog', (d) => {
      asked = d.message();
      void d.dismiss();
    });
    await rotate.click();
    await page.waitForTimeout(500);
    expect(asked).toContain('Demo account');
    expect(asked).toContain(demo.tenant);
    // Each row's button says whose secret it rotates (to a screen reader's list of buttons too).
    expect(await page.getByRole('button', { name: 'Rotate secret of Demo account' }).count()).toBe(1);
    expect(await page.locator('.secret-once').count()).toBe(0);
    const status = (await (await call('GET', '/api/v1/signing-secret', undefined, demo.signing_secret)).json()) as { signing_secret: { rotated_at: string | null } };
    expect(status.signing_secret.rotated_at).toBe(null);

    // Accepted: the new secret, once, in a box of its own.
    page.once('dialog', (d) => void d.accept());
    await rotate.click();
    const secretBox = page.locator('.secret-once');
    await secretBox.getByText('It is shown only once').waitFor();
    const fresh = (await secretBox.locator('code').textContent())!.trim();
    expect(fresh).toMatch(/^bl_sk_/);
    expect((await call('GET', '/api/v1/phone-numbers', undefined, fresh)).status).toBe(200);
    await secretBox.getByText('Secret of Demo account rotated: the old one keeps working for 24 hours.').waitFor();
    // One box that says what happened: no green banner around it, nor beside it.
    expect(await page.locator('.banner').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await secretBox.getByRole('button', { name: 'Done' }).click();
    expect(await page.locator('.secret-once').count()).toBe(0);

    // A new account's secret: the same box.
    await page.getByLabel('Name').fill('Acme Inc.');
    await page.getByRole('button', { name: 'Create account' }).click();
    await secretBox.getByText('Account Acme Inc. created.').waitFor();
    expect(await secretBox.locator('code').textContent()).toMatch(/^bl_sk_/);
    expect(await page.locator('.banner').count()).toBe(0);
  });
});
