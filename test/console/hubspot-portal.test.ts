/**
 * The console's view of one HubSpot portal's texts, contact by contact, in Chromium against the
 * service (the app on loopback) and the HubSpot stand-in. Real rows, made as HubSpot makes them
 * (signed contact.creation webhooks, signed workflow actions) and moved on by the test clock:
 * a contact texted when the sending window opened, one with no usable phone, a crowd waiting
 * for a free line; a workflow action held overnight then sent and reported, one still held.
 * The user sees each with its status and why, filters by status (kept in the address), pages
 * with Load more (by keyboard), and opens the conversation of a sent one; axe passes, also at
 * phone width, where nothing is wider than the phone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { freePort } from '../support/ports.js';
import { prepareSandbox } from '../support/messaging.js';
import { PORTAL, closeWindowForTwoHours, install, signed, startHarness, webhookEvent, workflowPayload, type HubSpotHarness } from '../crm/hubspot/helpers.js';
import { axeViolations, chromiumPath, ensureConsoleBuilt, launch, signInAsProject } from './browser.js';

declare const document: any; // eslint-disable-line @typescript-eslint/no-explicit-any

const HOUR = 3_600_000;
const CROWD = 55;
/** A workflow action's callback id as HubSpot makes them (long enough to be broken over lines). */
const BUSY = `ap-${PORTAL}-88017-1-1`;

/** How many lines a piece of the screen takes (the distinct tops of its text's line boxes). */
const linesOf = (el: Locator) =>
  el.evaluate((e: any) => {
    const tops = new Set<number>();
    const walk = document.createTreeWalker(e, 4 /* text nodes */);
    const range = document.createRange();
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      range.selectNodeContents(n);
      for (const box of range.getClientRects()) if (box.width > 0) tops.add(Math.round(box.top));
    }
    return tops.size;
  });

type Browser = Awaited<ReturnType<typeof launch>>;

describe.skipIf(!chromiumPath())('console: a HubSpot portal, contact by contact', { timeout: 90_000 }, () => {
  let h: HubSpotHarness;
  let base: string;
  let browser: Browser;
  let page: Page;
  let ada: string;
  let nox: string;
  const chats: Record<string, string> = {};

  /** Contacts created in HubSpot (one signed webhook batch), then the auto-send job run. */
  async function created(contacts: Record<string, string>[]): Promise<string[]> {
    const ids = contacts.map((c) => h.hs.addContact(PORTAL, c));
    const res = await signed(h, 'POST', '/crm/hubspot/webhook', ids.map((id) => webhookEvent(PORTAL, id)), { signedUrl: `${base}/crm/hubspot/webhook` });
    expect(res.statusCode).toBe(200);
    await h.t.services.hubspot!.autoSends.drain();
    return ids;
  }
  const workflow = (callbackId: string, contact: string, phone: string) =>
    signed(h, 'POST', '/crm/hubspot/workflow/send', workflowPayload(PORTAL, contact, callbackId, { phone, message: 'Evening {{firstname}}' }), { version: 'v2', signedUrl: `${base}/crm/hubspot/workflow/send` });
  const api = async (url: string) => (await h.t.api('GET', url)).json();

  beforeAll(async () => {
    ensureConsoleBuilt();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    h = await startHarness('sqlite', { PUBLIC_BASE_URL: base });
    await prepareSandbox(h.t);
    // Hosted in the EU: HubSpot's account details say its UI is on app-eu1.hubspot.com.
    h.hs.hostIn(PORTAL, 'eu1');
    expect((await install(h, PORTAL)).statusCode).toBe(200);
    expect((await h.t.api('PATCH', `/api/v1/integrations/hubspot/${PORTAL}`, { auto_send: { enabled: true, template: 'Morning {{firstname}}' } })).statusCode).toBe(200);

    // Night: the sending window opens in two hours (UTC) and lasts one.
    await closeWindowForTwoHours(h);
    expect((await workflow('cb-night', '701', '+14155550701')).json()).toMatchObject({ held: true });
    [ada] = await created([{ firstname: 'Ada', mobilephone: '+14155550801' }]);

    // The window opens: Ada is texted, the held action sent and reported to HubSpot (each on its own line).
    h.t.clock.advance(2 * HOUR + 60_000);
    await h.t.services.hubspot!.autoSends.drain();
    await h.t.services.hubspot!.heldActions.drain();
    await h.t.services.hubspot!.heldActions.drain();
    // Both lines just made a first touch: the next ones wait for a free line; a contact without a phone fails.
    [nox] = await created([{ firstname: 'Nox' }]);
    await created(Array.from({ length: CROWD }, (_, i) => ({ firstname: `Crowd${i}`, mobilephone: `+1415555${String(2000 + i)}` })));
    expect((await workflow(BUSY, '702', '+14155550702')).json()).toMatchObject({ held: true });

    // What the API says, for the assertions on what the user sees.
    const sends = [...(await api(`/api/v1/integrations/hubspot/${PORTAL}/auto-sends?limit=200`)).auto_sends];
    expect(sends).toHaveLength(CROWD + 2);
    chats.ada = sends.find((a: any) => a.object_id === ada).chat_id;
    const held = (await api(`/api/v1/integrations/hubspot/${PORTAL}/held-actions`)).held_actions;
    chats.night = held.find((a: any) => a.callback_id === 'cb-night').chat_id;
    expect(chats.ada).toEqual(expect.any(String));
    expect(chats.night).toEqual(expect.any(String));

    await h.t.app.listen({ host: '127.0.0.1', port });
    browser = await launch();
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${base}/console/`);
    await signInAsProject(page, h.t.demo);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  const autoSends = () => page.getByRole('table', { name: 'Texts to new contacts' });
  const heldTable = () => page.getByRole('table', { name: 'Workflow texts held for time' });
  const rowOf = (table: ReturnType<typeof autoSends>, attr: string, id: string) => table.locator(`tr[${attr}="${id}"]`);

  it('lists new contacts’ texts with status and why; Load more (by keyboard) pages to the end; a sent one opens its conversation', async () => {
    await page.getByRole('link', { name: 'HubSpot' }).click();
    await page.getByRole('link', { name: `Texts by contact for portal ${PORTAL}` }).click();
    await page.getByRole('heading', { name: `HubSpot portal ${PORTAL}` }).waitFor();

    // Newest first, a page of 50: the crowd, each waiting for a free line, with its next try.
    await expect.poll(() => autoSends().locator('tbody tr').count()).toBe(50);
    const waiting = autoSends().locator('tbody tr').first();
    expect(await waiting.getByText('pending', { exact: true }).count()).toBe(1);
    // Why it waits, in words; each of its times said once, in the console's format (no ISO times in the why).
    expect(await waiting.locator('td').nth(1).innerText()).toBe('waiting (lines saturated): sent when it is allowed (code 4002)');
    const shown = await waiting.innerText();
    expect(shown).not.toMatch(/\d{4}-\d\d-\d\dT/);
    const contact = await waiting.getAttribute('data-contact');
    const { waiting: when } = (await api(`/api/v1/integrations/hubspot/${PORTAL}/auto-sends?limit=200`)).auto_sends.find((a: any) => a.object_id === contact);
    const nextTry = waiting.locator('td').nth(2);
    for (const iso of [when.next_attempt_at, when.gives_up_at]) {
      const local = await page.evaluate((at: string) => new Date(at).toLocaleString(), iso);
      expect(shown.split(local).length - 1, local).toBe(1);
      expect(await nextTry.innerText()).toContain(local);
    }
    expect(await nextTry.innerText()).toMatch(/gives up/);
    expect(await rowOf(autoSends(), 'data-contact', ada).count()).toBe(0);

    const more = page.getByRole('button', { name: 'Load more texts to new contacts' });
    await more.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => autoSends().locator('tbody tr').count()).toBe(CROWD + 2);
    await page.getByText(`All ${CROWD + 2} shown.`).waitFor();
    // The button went away with the last page: the focus is on what replaced it, not dropped to the top.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(`All ${CROWD + 2} shown.`);

    const noxRow = rowOf(autoSends(), 'data-contact', nox);
    expect(await noxRow.getByText('failed', { exact: true }).count()).toBe(1);
    expect(await noxRow.innerText()).toMatch(/no usable phone/);
    expect(await noxRow.innerText()).toMatch(/code 1013/);
    const adaRow = rowOf(autoSends(), 'data-contact', ada);
    expect(await adaRow.getByText('sent', { exact: true }).count()).toBe(1);
    const violations = await axeViolations(page);
    expect(violations, JSON.stringify(violations)).toEqual([]);

    await adaRow.getByRole('link', { name: `Open conversation with contact ${ada}` }).click();
    await page.waitForURL(`${base}/console/conversations/${chats.ada}`);
    await page.locator('.bubble', { hasText: 'Morning Ada' }).waitFor();
  });

  it('filters by status, kept in the address (a reload shows the same list)', async () => {
    await page.goto(`${base}/console/hubspot/${PORTAL}`);
    await expect.poll(() => autoSends().locator('tbody tr').count()).toBe(50);
    await page.getByRole('search', { name: 'Filter texts to new contacts' }).getByLabel('Status').selectOption('failed');
    await page.waitForURL(/[?&]status=failed/);
    await expect.poll(() => autoSends().locator('tbody tr').count()).toBe(1);
    await rowOf(autoSends(), 'data-contact', nox).waitFor();
    expect(await page.getByRole('button', { name: 'Load more texts to new contacts' }).count()).toBe(0);

    await page.reload();
    await rowOf(autoSends(), 'data-contact', nox).waitFor();
    expect(await autoSends().locator('tbody tr').count()).toBe(1);
    expect(await page.getByRole('search', { name: 'Filter texts to new contacts' }).getByLabel('Status').inputValue()).toBe('failed');

    await page.getByRole('search', { name: 'Filter texts to new contacts' }).getByLabel('Status').selectOption('skipped');
    await page.getByText('No auto-sends skipped.').waitFor();
  });

  it('lists held workflow actions: one waiting and why, one sent and reported with its conversation; filtered by state', async () => {
    await page.goto(`${base}/console/hubspot/${PORTAL}`);
    const busy = rowOf(heldTable(), 'data-callback', BUSY);
    await busy.waitFor();
    expect(await busy.getByText('waiting', { exact: true }).count()).toBe(1);
    // Waiting for a free line (more lines would help), not for the window: said precisely.
    expect(await busy.locator('td').nth(2).innerText()).toMatch(/^every line at its first-touch limit: sent when a line is free \(more lines would help\) \(lines saturated\)$/);
    expect(await busy.innerText()).not.toMatch(/outside the sending window/);
    expect(await busy.innerText()).toMatch(/HubSpot's hold ends/);
    expect(await busy.innerText()).toContain('702');
    // Readable at desktop width: the action id whole on one line, the why not squeezed to a word a
    // line, each time on at most two lines (the date, then the clock).
    expect(await busy.locator('td').nth(0).innerText()).toBe(BUSY);
    expect(await linesOf(busy.locator('td').nth(0))).toBe(1);
    expect((await busy.locator('td').nth(2).boundingBox())!.width).toBeGreaterThanOrEqual(200);
    const times = heldTable().locator('time');
    expect(await times.count()).toBe(5); // next try and hold end of the waiting one; when HubSpot was told; both created
    for (const t of await times.all()) expect(await linesOf(t), await t.innerText()).toBeLessThanOrEqual(2);

    const night = rowOf(heldTable(), 'data-callback', 'cb-night');
    expect(await night.getByText('done', { exact: true }).count()).toBe(1);
    expect(await night.innerText()).toMatch(/success/);

    await page.getByRole('search', { name: 'Filter held workflow texts' }).getByLabel('State').selectOption('held');
    await page.waitForURL(/[?&]state=held/);
    await expect.poll(() => heldTable().locator('tbody tr').count()).toBe(1);
    await busy.waitFor();

    await page.getByRole('search', { name: 'Filter held workflow texts' }).getByLabel('State').selectOption('completed');
    await night.waitFor();
    await night.getByRole('link', { name: 'Open conversation with contact 701' }).click();
    await page.waitForURL(`${base}/console/conversations/${chats.night}`);
    await page.locator('.bubble', { hasText: 'Evening Ada' }).waitFor();
  });

  it("each contact id links to the contact's record in HubSpot, on the portal's own UI domain (EU here), in a new tab", async () => {
    await page.goto(`${base}/console/hubspot/${PORTAL}`);
    const record = (id: string) => `https://app-eu1.hubspot.com/contacts/${PORTAL}/record/0-1/${id}`;
    const expectLink = async (row: Locator, id: string) => {
      const link = row.locator('th').getByRole('link', { name: `${id} in HubSpot (opens in a new tab)` });
      expect(await link.getAttribute('href')).toBe(record(id));
      expect(await link.getAttribute('target')).toBe('_blank');
      expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    };
    const newest = autoSends().locator('tbody tr').first();
    await newest.waitFor();
    await expectLink(newest, (await newest.getAttribute('data-contact'))!);
    const busy = rowOf(heldTable(), 'data-callback', BUSY);
    await busy.waitFor();
    await expectLink(busy, '702');
    // Every row's contact is linked, none to another domain.
    const hrefs = await page.locator('tbody th a').evaluateAll((as: any[]) => as.map((a) => a.getAttribute('href') as string));
    expect(hrefs.length).toBeGreaterThan(2);
    for (const href of hrefs) expect(href).toMatch(new RegExp(`^https://app-eu1\\.hubspot\\.com/contacts/${PORTAL}/record/0-1/[0-9]+$`));
  });

  it('at phone width: readable, nothing wider than the phone, axe passes', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${base}/console/hubspot/${PORTAL}`);
      await expect.poll(() => autoSends().locator('tbody tr').count()).toBe(50);
      await heldTable().waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      // Every section's link is in sight at the top (none scrolled or clipped out of the bar).
      const nav = page.getByRole('navigation', { name: 'Console' });
      const links = nav.getByRole('link');
      expect(await links.allInnerTexts()).toEqual(['Overview', 'Conversations', 'Events', 'Developers', 'Settings', 'HubSpot']);
      const bar = (await nav.boundingBox())!;
      for (const link of await links.all()) {
        const box = (await link.boundingBox())!;
        const name = await link.innerText();
        expect(box.x, name).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, name).toBeLessThanOrEqual(390);
        expect(box.y + box.height, name).toBeLessThanOrEqual(bar.y + bar.height);
      }
      const violations = await axeViolations(page);
      expect(violations, JSON.stringify(violations)).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1360, height: 860 });
    }
  });
});
