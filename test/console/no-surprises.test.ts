/**
 * The console does only what its user asked, in Chromium against a real service process: a
 * select browsed with the arrows moves no line and sends no tapback (a button does, a line's
 * move asked first); a voice note sent before its text was refused is not sent again; a group
 * chat's composer offers nothing the group send drops; a file no message carries is refused before
 * anything is uploaded, and picking again adds files; an events address with a `since` that is
 * not a date keeps the screen working; the settings form keeps what it shows when typed into at
 * once; and a tab whose browser signed in to another project elsewhere never shows that
 * project's data under this one's name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { MAX_TEXT_LENGTH } from '../../src/domain/messaging/vocabulary.js';
import { makeWav, speechLike } from '../audio/fixtures.js';
import { apiCaller, axeViolations, chromiumPath, demoOf, ensureConsoleBuilt, launch, signInAsProject, type Demo } from './browser.js';

// Evaluated in the page, not in Node: its globals, loosely typed (the test project has no DOM lib).
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const document: any, window: any;

const ADMIN = 'surprises-admin-token-0123456789ab';
const CONTACT = '+14155550181';
const OTHER_CONTACT = '+14155550189';
const OTHER_LINE = '+15550109999';
const GROUP = 'Pickup crew';
const OTHER = { slug: 'other-shop', name: 'Other shop' };

let server: ServerProcess;
let demo: Demo;
let otherSecret: string;
let demoName: string;
let browser: { context: BrowserContext; close: () => Promise<void> };
let page: Page;

const call = (method: string, p: string, body: unknown, token: string, tenant = () => demo.tenant) => apiCaller(server.url, tenant)(method, p, body, token);
const inject = async (line: string, body: object) => expect((await call('POST', `/admin/v1/lines/${line}/simulate/inbound`, body, ADMIN)).status).toBe(202);
const deviceLog = async () => ((await (await call('GET', `/admin/v1/lines/${demo.phone_line_ids[0]}/simulate/sent`, undefined, ADMIN)).json()) as { sent: { kind: string }[] }).sent;
const lineTenant = async (phone: string) => ((await (await call('GET', '/admin/v1/lines', undefined, ADMIN)).json()) as { phone_lines: { phone_number: string; tenant: string }[] }).phone_lines.find((l) => l.phone_number === phone)!.tenant;
const capOf = async (slug: string, secret: string) =>
  ((await (await call('GET', '/api/v1/settings', undefined, secret, () => slug)).json()) as { settings: { daily_first_touch_cap: number } }).settings.daily_first_touch_cap;
/** Each test from a signed-out browser: signed in as the demo project, on `screen`. */
async function asDemo(screen: string) {
  await browser.context.clearCookies();
  await page.goto(`${server.url}/console${screen}`);
  await signInAsProject(page, demo);
  await page.locator('.who-name').waitFor();
}
/** The project (or operator) a tab's sidebar names. */
const shownAs = (p: Page) => p.locator('.who-name').innerText();

describe.skipIf(!chromiumPath())('console without surprises in Chromium', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    ensureConsoleBuilt();
    server = await startServerProcess({ prefix: 'blueline-console-surprises-', env: { ADMIN_TOKEN: ADMIN } });
    demo = demoOf(server.dataDir);
    // A second project, with a line and a conversation of its own.
    const account = (await (await call('POST', '/admin/v1/accounts', { name: 'Other account' }, ADMIN)).json()) as { account: { id: string }; signing_secret: string };
    otherSecret = account.signing_secret;
    expect((await call('POST', '/admin/v1/tenants', { account_id: account.account.id, slug: OTHER.slug, name: OTHER.name }, ADMIN)).status).toBe(201);
    const line = (await (await call('POST', '/admin/v1/lines', { tenant: OTHER.slug, phone_number: OTHER_LINE, driver: 'simulator' }, ADMIN)).json()) as { phone_line: { phone_line_id: string } };
    await inject(line.phone_line.phone_line_id, { from: OTHER_CONTACT, text: 'A question for the other shop' });
    await inject(demo.phone_line_ids[0]!, { from: CONTACT, text: 'Do you open on Sunday?' });
    await inject(demo.phone_line_ids[0]!, { from: CONTACT, text: 'Who is coming?', chat: { chat_key: 'g-pickup', handles: [CONTACT, '+14155550182'], display_name: GROUP } });
    const tenants = (await (await call('GET', '/admin/v1/tenants', undefined, ADMIN)).json()) as { tenants: { slug: string; name: string }[] };
    demoName = tenants.tenants.find((t) => t.slug === demo.tenant)!.name;
    browser = await launch();
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    server?.cleanup();
  });

  it('operator: picking another project for a line moves nothing; Move asks first, naming the line and both projects', async () => {
    await browser.context.clearCookies();
    await page.goto(`${server.url}/console/`);
    await page.getByRole('button', { name: 'Operator' }).click();
    await page.getByLabel('Admin token').fill(ADMIN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Lines', exact: true }).click();
    const row = page.locator(`tr[data-line="${OTHER_LINE}"]`);
    const pick = row.getByRole('combobox'); // its only select: the project it is for
    await pick.waitFor();
    const changes: string[] = [];
    page.on('request', (r) => void (r.method() === 'PATCH' && changes.push(r.url())));
    // Browsing the options with the arrows, as a keyboard user does, then picking one.
    await pick.focus();
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowDown');
    await pick.selectOption(demo.tenant);
    await page.waitForTimeout(500);
    expect(changes).toEqual([]);
    expect(await lineTenant(OTHER_LINE)).toBe(OTHER.slug);

    // Move asks; declined, nothing moves.
    const move = row.getByRole('button', { name: `Move ${OTHER_LINE}` });
    let asked = '';
    page.once('dialog', (d) => {
      asked = d.message();
      void d.dismiss();
    });
    await move.click();
    await page.waitForTimeout(300);
    expect(asked).toContain(OTHER_LINE);
    expect(asked).toContain(`${OTHER.name} (${OTHER.slug})`);
    expect(asked).toContain(demoName);
    expect(changes).toEqual([]);
    expect(await lineTenant(OTHER_LINE)).toBe(OTHER.slug);

    // Accepted, it moves; and back the same way.
    page.once('dialog', (d) => void d.accept());
    await move.click();
    await page.getByText(`${OTHER_LINE} moved to`).waitFor();
    expect(await lineTenant(OTHER_LINE)).toBe(demo.tenant);
    expect(await move.isDisabled()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await pick.selectOption(OTHER.slug);
    page.once('dialog', (d) => void d.accept());
    await move.click();
    await page.getByText(`${OTHER_LINE} moved to ${OTHER.name}`).waitFor();
    expect(await lineTenant(OTHER_LINE)).toBe(OTHER.slug);
    expect(changes).toHaveLength(2);
  });

  it('thread: looking through the tapbacks sends none; pressing one sends it', async () => {
    await asDemo('/conversations');
    await page.locator('.chatrow', { hasText: 'Sunday' }).click();
    const theirs = page.locator('.bubble-row.in', { hasText: 'Do you open on Sunday?' });
    await theirs.waitFor();
    await theirs.getByRole('button', { name: 'React to this message' }).click();
    // The keyboard walks the tapbacks: nothing is sent.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('dislike');
    await page.waitForTimeout(500);
    expect((await deviceLog()).filter((e) => e.kind === 'reaction')).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
    // Escape closes them, back on the button that opened them.
    await page.keyboard.press('Escape');
    expect(await theirs.getByRole('button', { name: 'like', exact: true }).count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('React to this message');
    await theirs.getByRole('button', { name: 'React to this message' }).click();
    await theirs.getByRole('button', { name: 'laugh', exact: true }).click();
    await theirs.locator('.reaction.mine', { hasText: '😂 You' }).waitFor();
    expect((await deviceLog()).filter((e) => e.kind === 'reaction')).toHaveLength(1);
  });

  it('group chat: no voice note or effect is offered (the note says why); text goes out', async () => {
    await asDemo('/conversations');
    await page.locator('.chatrow', { hasText: GROUP }).click();
    await page.locator('.bubble', { hasText: 'Who is coming?' }).waitFor();
    await page.getByText('A group chat takes text and attachments; voice notes and effects are for one-to-one chats.').waitFor();
    expect(await page.getByLabel('Voice note file').count()).toBe(0);
    expect(await page.getByLabel('Effect').count()).toBe(0);
    expect(await page.getByRole('button', { name: '● Record' }).count()).toBe(0);
    expect(await page.getByLabel('Attach files').count()).toBe(1);
    await page.getByLabel('Message text').fill('Sam and I will come');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.locator('.bubble.out', { hasText: 'Sam and I will come' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    // A one-to-one chat still has both.
    await page.locator('.chatrow', { hasText: 'Sunday' }).click();
    await page.getByLabel('Effect').waitFor();
    expect(await page.getByLabel('Voice note file').count()).toBe(1);
  });

  it('thread: a voice note that went out before its text was refused is not sent again when the text is fixed and sent', async () => {
    await asDemo('/conversations');
    await page.locator('.chatrow', { hasText: 'Sunday' }).click();
    const voiceNotes = async () => (await deviceLog()).filter((e) => e.kind === 'voice_note').length;
    const before = await voiceNotes();
    const wav = makeWav(16000, speechLike(16000), { sampleRate: 16000, channels: 1, encoding: 'pcm16' });
    await page.getByLabel('Voice note file').setInputFiles({ name: 'hello.wav', mimeType: 'audio/wav', buffer: wav });
    // A text one character over the limit: the voice note goes first, then the text is refused (1009).
    await page.getByLabel('Message text').fill('x'.repeat(MAX_TEXT_LENGTH + 1));
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByRole('alert').getByText('The voice note was sent; the rest was not:').waitFor();
    expect(await voiceNotes()).toBe(before + 1);
    expect(await page.getByText('Voice note: hello.wav').count()).toBe(0);
    // Fixed and sent again: the text only.
    await page.getByLabel('Message text').fill('See you Sunday');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.locator('.bubble.out', { hasText: 'See you Sunday' }).waitFor();
    expect(await voiceNotes()).toBe(before + 1);
  });

  it('thread: picking files again adds to them; a file no message carries is said at once and holds back the send, uploading nothing; an .m4a typed audio/x-m4a goes out', async () => {
    await asDemo('/conversations');
    await page.locator('.chatrow', { hasText: 'Sunday' }).click();
    const uploads: string[] = [];
    const onRequest = (r: { method: () => string; url: () => string }) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/v1/attachments') uploads.push(r.url());
    };
    page.on('request', onRequest);
    const attach = page.getByLabel('Attach files');
    // The picker offers the kinds the API takes, by type and by extension (browsers give .heic no type).
    const accept = (await attach.getAttribute('accept'))!.split(',');
    expect(accept).toEqual(expect.arrayContaining(['image/jpeg', 'application/pdf', '.heic', '.m4a']));
    await attach.setInputFiles({ name: 'memo.m4a', mimeType: 'audio/x-m4a', buffer: Buffer.from('\0\0\0\x18ftypM4A \0\0\0\0', 'latin1') });
    await attach.setInputFiles({ name: 'offer.docx', mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', buffer: Buffer.from('PK') });
    // Both are there: the second pick added to the first.
    await page.locator('.chip', { hasText: 'memo.m4a' }).waitFor();
    await page.locator('.chip.refused', { hasText: 'offer.docx' }).waitFor();
    await page.getByRole('alert').getByText('offer.docx: not a kind of file a message can carry').waitFor();
    await page.getByLabel('Message text').fill('For Sunday: the recording and the offer');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByRole('alert').getByText('Remove it to send the rest. Nothing was sent.').waitFor();
    expect(uploads).toEqual([]);
    // Taken off, the rest goes out: the recording declared by the API's name for it.
    await page.getByRole('button', { name: 'Remove offer.docx' }).click();
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.locator('.bubble.out', { hasText: 'For Sunday: the recording and the offer' }).waitFor();
    page.off('request', onRequest);
    expect(uploads).toHaveLength(1);
    const media = (await deviceLog()).filter((e) => e.kind === 'media').at(-1);
    expect(media).toMatchObject({ parts: [{ filename: 'memo.m4a', mime_type: 'audio/m4a' }] });
  });

  it('events: a `since` in the address that is not a date is ignored, and says so; the screen works', async () => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await asDemo('/');
    await page.goto(`${server.url}/console/events?since=garbage`);
    await page.getByRole('heading', { name: 'Events', exact: true }).waitFor();
    await page.getByText('The address has an “After” filter that is not a date and time').waitFor();
    await page.locator('tr[data-event-id]').first().waitFor();
    expect(await page.getByText('Something went wrong').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Remove it' }).click();
    await page.getByText('The address has an “After” filter').waitFor({ state: 'detached' });
    expect(new URL(page.url()).searchParams.has('since')).toBe(false);
    // A real date still filters.
    await page.getByLabel('After').fill('2999-01-01T00:00');
    await page.getByText('No events match.').waitFor();
    expect(errors).toEqual([]);
  });

  it('settings: a keystroke the moment the form shows keeps the other fields, and the save goes out whole', async () => {
    await asDemo('/');
    const zone = ((await (await call('GET', '/api/v1/settings', undefined, demo.signing_secret)).json()) as { settings: { timezone: string } }).settings.timezone;
    // As the cap field appears, a value is typed into it at once (before anything else of the page runs).
    await page.evaluate(() => {
      new window.MutationObserver((_: unknown, watching: { disconnect: () => void }) => {
        const input = document.querySelector('input[name="daily_cap"]');
        if (!input) return;
        watching.disconnect();
        Object.getOwnPropertyDescriptor(window.HTMLInputElement.prototype, 'value')!.set!.call(input, '9');
        input.dispatchEvent(new window.Event('input', { bubbles: true }));
      }).observe(document.body, { childList: true, subtree: true });
    });
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    const cap = page.getByLabel('First touches per day (project)');
    await cap.waitFor();
    expect(await cap.inputValue()).toBe('9');
    expect(await page.getByLabel('Time zone').inputValue()).toBe(zone);
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved.').waitFor();
    expect(await capOf(demo.tenant, demo.signing_secret)).toBe(9);
  });

  it('two tabs: signing out and into another project in one never leaves the other showing one project under the other name', async () => {
    await asDemo('/settings');
    await page.getByLabel('First touches per day (project)').waitFor();
    expect(await shownAs(page)).toBe(demoName);
    const other = await browser.context.newPage();
    other.setDefaultTimeout(10_000);
    try {
      await other.goto(`${server.url}/console/`);
      await other.getByRole('button', { name: 'Sign out' }).click();
      // The first tab hears of it: its session has ended.
      await page.getByText('Your session has ended. Sign in again to go on where you were.').waitFor();
      await other.getByLabel('Tenant slug').fill(OTHER.slug);
      await other.getByLabel('Signing secret').fill(otherSecret);
      await other.getByRole('button', { name: 'Sign in' }).click();
      await other.getByRole('heading', { name: 'Overview' }).waitFor();
      expect(await shownAs(other)).toBe(OTHER.name);
      await page.waitForTimeout(300);
      expect(await page.getByRole('heading', { name: 'Sign in to the console' }).isVisible()).toBe(true);

      // Signing in to the demo in the first tab: the other one now shows the demo, by name.
      await signInAsProject(page, demo);
      await page.getByLabel('First touches per day (project)').waitFor();
      await other.getByText(`This browser signed in to ${demoName} (${demo.tenant}) in another tab`).waitFor();
      expect(await shownAs(other)).toBe(demoName);
      await other.getByRole('link', { name: 'Conversations', exact: true }).click();
      await other.locator('.chatrow', { hasText: CONTACT }).waitFor();
      expect(await other.locator('.chatrow', { hasText: OTHER_CONTACT }).count()).toBe(0);
      expect(await axeViolations(other)).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('a sign-in this tab was not told of: a save is refused for its token, and the tab shows the session it now has', async () => {
    await asDemo('/settings');
    const before = { demo: await capOf(demo.tenant, demo.signing_secret), other: await capOf(OTHER.slug, otherSecret) };
    // Another page of the origin signs this browser in to the other project by itself (no console to tell the tabs).
    const elsewhere = await browser.context.newPage();
    const signInElsewhere = (tenant: string, secret: string) =>
      elsewhere.evaluate(
        async ([t, s]) => (await window.fetch('/api/v1/console/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'tenant', tenant: t, secret: s }) })).status,
        [tenant, secret],
      );
    try {
      await elsewhere.goto(`${server.url}/readyz`);
      expect(await signInElsewhere(OTHER.slug, otherSecret)).toBe(201);
      const cap = page.getByLabel('First touches per day (project)');
      await cap.fill('7');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByText(`This browser signed in to ${OTHER.name} (${OTHER.slug}) in another tab, so this tab now shows that project too. Your last change was not saved.`).waitFor();
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      expect(await shownAs(page)).toBe(OTHER.name);
      expect(await capOf(demo.tenant, demo.signing_secret)).toBe(before.demo);
      expect(await capOf(OTHER.slug, otherSecret)).toBe(before.other);
      await page.getByRole('button', { name: 'Dismiss' }).click();

      // Signed in again to the same project (a new session, a new token): the save goes through.
      expect(await signInElsewhere(OTHER.slug, otherSecret)).toBe(201);
      await page.getByRole('link', { name: 'Settings', exact: true }).click();
      await cap.fill('9');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByText('Saved.').waitFor();
      expect(await capOf(OTHER.slug, otherSecret)).toBe(9);
      expect(await page.getByRole('alert').count()).toBe(0);

      // Coming back to the tab after a sign-in elsewhere: it asks, and shows the session it now has.
      expect(await signInElsewhere(demo.tenant, demo.signing_secret)).toBe(201);
      await page.waitForTimeout(1_100); // focus checks come at most once a second
      await page.evaluate(() => document.dispatchEvent(new window.Event('visibilitychange')));
      await page.getByText(`This browser signed in to ${demoName} (${demo.tenant}) in another tab`).waitFor();
      expect(await shownAs(page)).toBe(demoName);
    } finally {
      await elsewhere.close();
    }
  });
});
