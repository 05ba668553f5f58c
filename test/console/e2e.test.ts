/**
 * The console end to end: a real service process, Debian's Chromium, the flows.
 * Tenant: sign in → sending window → webhook to a loopback receiver → inbound in the live tail
 * and the events list → replay → thread: text and image out (seen in the simulator's device
 * log) → voice note plays with the right duration → sign out (the session is dead). Operator:
 * tenant, line (its health and service epoch), assignment, injected inbound; the device log in
 * words, and a contact's tapback injected from the simulator showing in the thread. Also: the signing
 * secret rotated from Developers (shown once, the session surviving it); tapbacks in the thread.
 * Every screen scanned by axe-core; a cross-site form post refused; 10,000 events paged; the
 * live tail at 100 events/s.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { openSqlite } from '../../src/store/sqlite-handles.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { makeWav, speechLike } from '../audio/fixtures.js';
import { timeSortableId } from '../../src/domain/ids.js';
import { axeViolations, chromiumPath, ensureConsoleBuilt, launch } from './browser.js';

// Evaluated in the page, not in Node: its globals, loosely typed (the test project has no DOM lib).
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const window: any, document: any, localStorage: any, sessionStorage: any, PerformanceObserver: any;
type HTMLAudioElement = any;

const ADMIN = 'e2e-admin-token-0123456789abcdef';
const CONTACT = '+14155550177';
// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

let server: ServerProcess;
let receiver: Receiver;
let demo: { tenant: string; signing_secret: string; phone_line_ids: string[] };
let browser: { context: BrowserContext; close: () => Promise<void> };
let page: Page;

const api = (method: string, p: string, body?: unknown, token = demo.signing_secret) =>
  fetch(`${server.url}${p}`, { method, headers: { authorization: `Bearer ${token}`, 'x-service-tenant': demo.tenant, ...(body !== undefined && { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
const inject = (text: string, from = CONTACT, line = demo.phone_line_ids[0]!) => api('POST', `/admin/v1/lines/${line}/simulate/inbound`, { from, text }, ADMIN);
const deviceLog = async (line = demo.phone_line_ids[0]!) => ((await (await api('GET', `/admin/v1/lines/${line}/simulate/sent`, undefined, ADMIN)).json()) as { sent: { kind: string }[] }).sent;

async function expectAccessible(screen: string) {
  const violations = await axeViolations(page);
  expect(violations, `${screen}: ${JSON.stringify(violations)}`).toEqual([]);
}

const skip = !chromiumPath();

describe.skipIf(skip)('console in Chromium', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    ensureConsoleBuilt();
    receiver = await startReceiver(200);
    server = await startServerProcess({ prefix: 'blueline-console-', env: { ADMIN_TOKEN: ADMIN, BLUELINE_ALLOW_PRIVATE_NETWORKS: '1', BLUELINE_SSE_POLL_MS: '100' } });
    demo = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'demo.json'), 'utf8'));
    browser = await launch();
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    server?.cleanup();
  });

  it('serves the console with a CSP that allows no inline script, and hashed assets cached for good', async () => {
    const res = await fetch(`${server.url}/console/conversations`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const js = await fetch(`${server.url}${asset}`);
    expect(js.headers.get('cache-control')).toContain('immutable');
  });

  it('tenant: sign in, change the sending window, add a webhook', async () => {
    await page.goto(`${server.url}/console/`);
    await expectAccessible('sign-in');
    await page.getByLabel('Tenant slug').fill(demo.tenant);
    await page.getByLabel('Signing secret').fill(demo.signing_secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // No secret in web storage.
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
    expect(stored).not.toContain(demo.signing_secret);
    await page.locator('.stat').first().waitFor();
    await expectAccessible('overview');

    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByLabel('Opens at').fill('08:30');
    await page.getByLabel('Closes at').fill('19:45');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved.').waitFor();
    await expectAccessible('settings');
    const settings = (await (await api('GET', '/api/v1/settings')).json()) as { settings: { sending_window: { start: string; end: string } } };
    expect(settings.settings.sending_window).toEqual({ start: '08:30', end: '19:45' });

    await page.getByRole('link', { name: 'Developers', exact: true }).click();
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByText('It is shown only once').waitFor();
    // Named with its endpoint: with several, the secret goes to the right receiver.
    await page.locator('.secret-once', { hasText: `Secret of ${receiver.url}.` }).waitFor();
    await page.locator('.endpoint .url', { hasText: receiver.url }).waitFor();
    await expectAccessible('developers');
  });

  it("tenant: rotating an endpoint's secret asks first; dismissed, nothing is rotated; accepted, the new one is shown once", async () => {
    const shown = page.locator('.secret-once code');
    const before = (await shown.count()) ? (await shown.first().textContent())!.trim() : '';
    const rotations: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/rotate-secret')) rotations.push(r.url());
    });
    const rotate = page.getByRole('button', { name: `Rotate secret of ${receiver.url}` });
    let asked = '';
    page.once('dialog', (d) => {
      asked = d.message();
      void d.dismiss();
    });
    await rotate.click();
    await expect.poll(() => asked).toContain(receiver.url);
    expect(rotations).toEqual([]);
    page.once('dialog', (d) => void d.accept());
    await rotate.click();
    await expect.poll(() => rotations.length).toBe(1);
    // The box may still show the secret the endpoint was created with: wait for the new one.
    const current = async () => ((await shown.count()) ? (await shown.first().textContent())!.trim() : '');
    await expect.poll(async () => { const now = await current(); return now !== before ? now : ''; }).toMatch(/^whsec_/);
    expect(await page.locator('.secret-once').textContent()).toContain(`New secret of ${receiver.url}.`);
  });

  it('tenant: rotates the signing secret with an overlap; the new one is shown once and works, the session stays', async () => {
    const card = page.locator('.card', { has: page.getByRole('heading', { name: 'API credentials' }) });
    await card.getByTestId('secret-overlap').filter({ hasText: 'none works any more' }).waitFor();
    await card.getByLabel('Old secret keeps working for').selectOption('1');
    page.once('dialog', (d) => void d.accept());
    await card.getByRole('button', { name: 'Rotate signing secret' }).click();
    await card.getByText('It is shown only once').waitFor();
    const fresh = (await card.locator('.secret-once code').textContent())!.trim();
    expect(fresh).toMatch(/^bl_sk_/);
    expect(fresh).not.toBe(demo.signing_secret);
    await card.getByRole('button', { name: 'Copy' }).waitFor();
    await card.getByTestId('secret-overlap').filter({ hasText: 'still works until' }).waitFor();
    await card.getByTestId('secret-overlap').filter({ hasText: /in (59|60) minutes|in 1 hour/ }).waitFor();
    await expectAccessible('developers after rotation');
    // Both secrets work during the overlap; from now on the tests use the new one.
    expect((await api('GET', '/api/v1/phone-numbers', undefined, fresh)).status).toBe(200);
    expect((await api('GET', '/api/v1/phone-numbers')).status).toBe(200);
    demo.signing_secret = fresh;
    // The console session signed in with the old secret goes on working.
    await card.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await page.getByRole('heading', { name: 'Developers' }).waitFor();
    await card.getByTestId('secret-issued').filter({ hasText: 'rotated' }).waitFor();
  });

  it('tenant: an inbound message appears in the live tail and the events list, and replays', async () => {
    await page.getByRole('link', { name: 'Events', exact: true }).click();
    await page.getByRole('button', { name: 'Start live tail' }).click();
    await page.waitForTimeout(300);
    expect((await inject('Is the blue one in stock?')).status).toBe(202);
    const tailRow = page.locator('.tail-row', { hasText: 'Is the blue one in stock?' });
    await tailRow.waitFor({ timeout: 10_000 });
    // Each row says whom the event is from.
    expect(await tailRow.innerText()).toContain(CONTACT);
    await receiver.waitFor(1, 10_000);
    await page.reload();
    const row = page.locator('tr[data-event-id]', { hasText: 'Is the blue one in stock?' });
    await row.waitFor();
    expect(await row.locator('td').nth(3).innerText()).toBe(CONTACT);
    await expectAccessible('events');
    await row.getByRole('link').click();
    await page.getByRole('heading', { name: 'Attempts (1)' }).waitFor();
    await expectAccessible('event detail');
    const before = receiver.received.length;
    await page.getByRole('button', { name: 'Replay' }).click();
    await page.getByText('Replayed: the endpoint answered 200').waitFor();
    expect(receiver.received.length).toBe(before + 1);
  });

  it('tenant: the thread shows the message; a text and an image go out to the device', async () => {
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    await page.locator('.chatrow', { hasText: CONTACT }).click();
    await page.locator('.bubble.in', { hasText: 'Is the blue one in stock?' }).waitFor();
    await page.getByLabel('Message text').fill('Yes! Want me to hold one?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.bubble.out', { hasText: 'Want me to hold one?' }).waitFor();
    await page.locator('input[aria-label="Attach files"]').setInputFiles({ name: 'blue.png', mimeType: 'image/png', buffer: PNG });
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.bubble.out img.bubble-img').waitFor({ timeout: 10_000 });
    // The contact laughs at our text (a tapback through the simulator); we love their question.
    const ours = page.locator('.bubble-row.out', { hasText: 'Want me to hold one?' });
    const ourId = (await ours.getAttribute('data-message-id'))!;
    expect((await api('POST', `/admin/v1/lines/${demo.phone_line_ids[0]}/simulate/inbound`, { from: CONTACT, reaction: { message_id: ourId, reaction: 'laugh' } }, ADMIN)).status).toBe(202);
    await ours.locator('.reaction', { hasText: CONTACT }).filter({ hasText: '😂' }).waitFor({ timeout: 10_000 });
    const theirs = page.locator('.bubble-row.in', { hasText: 'Is the blue one in stock?' });
    await theirs.getByRole('button', { name: 'React to this message' }).click();
    await theirs.getByRole('button', { name: 'love', exact: true }).click();
    await theirs.locator('.reaction.mine', { hasText: '❤️ You' }).waitFor();
    const theirId = (await theirs.getAttribute('data-message-id'))!;
    const looked = (await (await api('GET', `/api/v1/messages/${theirId}`)).json()) as { message: { reactions: { reaction: string; from: string }[] } };
    expect(looked.message.reactions.map((r) => [r.reaction, r.from])).toEqual([['love', 'me']]);
    await expectAccessible('conversations');
    const log = await deviceLog();
    expect(log.map((e) => e.kind)).toEqual(expect.arrayContaining(['text', 'media', 'reaction']));
    expect(JSON.stringify(log)).toContain('Want me to hold one?');
    expect(JSON.stringify(log)).toContain('blue.png');
  });

  it('tenant: a voice note plays in the browser with its real duration', async () => {
    const seconds = 2.2;
    const wav = makeWav(Math.round(seconds * 16000), speechLike(16000), { sampleRate: 16000, channels: 1, encoding: 'pcm16' });
    const staged = (await (await api('POST', '/api/v1/voice-notes', { audio_base64: wav.toString('base64'), mime_type: 'audio/wav', phone_line_id: demo.phone_line_ids[0] })).json()) as { voice_note_id: string; duration_seconds: number };
    const sent = await api('POST', '/api/v1/send', { phone: CONTACT, phone_line_id: demo.phone_line_ids[0], voice_note: { voice_note_id: staged.voice_note_id } });
    expect(sent.status).toBe(200);
    await page.reload();
    const audio = page.locator(`audio[data-voice-note="${staged.voice_note_id}"]`);
    await audio.waitFor({ timeout: 10_000 });
    const duration = await audio.evaluate(
      (el: HTMLAudioElement) =>
        new Promise<number>((resolve) => {
          const done = () => Number.isFinite(el.duration) && el.duration > 0 && resolve(el.duration);
          if (el.readyState >= 1) done();
          el.addEventListener('loadedmetadata', done);
          el.addEventListener('durationchange', done);
          el.load();
        }),
    );
    expect(Math.abs(duration - seconds)).toBeLessThan(0.1);
  });

  it('a cross-origin form post with the session cookie is refused', async () => {
    // Another origin on the same host: the SameSite cookie still goes with it, so the Origin check must hold.
    const evil = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(
        `<form id="f" method="POST" action="${server.url}/api/v1/webhook-subscriptions" enctype="text/plain"><input name='{"url":"https://evil.example/x","events":["message.received"],"a":"' value='"}'></form><script>document.getElementById('f').submit()</script>`,
      );
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    try {
      const evilPage = await browser.context.newPage();
      const answer = evilPage.waitForResponse((r) => r.url().includes('/api/v1/webhook-subscriptions'));
      await evilPage.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      expect([403, 415]).toContain((await answer).status());
      await evilPage.close();
      const subs = (await (await api('GET', '/api/v1/webhook-subscriptions')).json()) as { subscriptions: { url: string }[] };
      expect(subs.subscriptions.map((s) => s.url)).not.toContain('https://evil.example/x');
    } finally {
      evil.close();
    }
  });

  it('keeps up: 10,000 events page, and the live tail takes 100 events/s without freezing', async () => {
    // 10,000 older events written straight into the service's database.
    // Through the project's handles: on Node 24 a better-sqlite3 statement that becomes garbage
    // can abort the process at a later GC (src/store/sqlite-handles.ts).
    const handle = openSqlite(path.join(server.dataDir, 'blueline.sqlite'));
    const sample = handle.statement("select * from events where type = 'message.received' limit 1").get() as Record<string, unknown>;
    const insert = handle.statement('insert into events (id, tenant_id, type, event_id, lead_id, convo_id, payload, status, dev_inbox, delivered_at, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const start = Number(sample.created_at) - 20_000_000;
    handle.db.transaction(() => {
      for (let i = 0; i < 10_000; i++) {
        const at = start + i * 1000;
        // Ids as the service makes them (evt_…): a cursor is the last id of a page.
        insert.run(`evt_${timeSortableId(at)}`, sample.tenant_id, sample.type, `bulk:msg:${i}`, sample.lead_id, sample.convo_id, sample.payload, 'delivered', 0, at, at);
      }
    })();
    handle.db.close();
    await page.getByRole('link', { name: 'Events', exact: true }).click();
    await page.locator('tr[data-event-id]').nth(49).waitFor();
    for (let i = 0; i < 3; i++) {
      const first = await page.locator('tr[data-event-id]').first().getAttribute('data-event-id');
      await page.getByRole('button', { name: 'Older →' }).click();
      await page.waitForFunction((id) => document.querySelector('tr[data-event-id]')?.getAttribute('data-event-id') !== id, first);
    }
    expect(await page.locator('tr[data-event-id]').count()).toBe(50);

    await page.getByRole('button', { name: 'Start live tail' }).click();
    await page.waitForTimeout(300);
    // Long tasks (> 50 ms) while 300 events arrive at 100 per second.
    await page.evaluate(() => {
      (window as unknown as { longTasks: number[] }).longTasks = [];
      new PerformanceObserver((l: any) => l.getEntries().forEach((e: any) => (window as unknown as { longTasks: number[] }).longTasks.push(e.duration))).observe({ type: 'longtask' as never });
    });
    // While events pour in, the page still answers: "← Newer" (we are on page 4) changes the table.
    const firstRow = () => page.locator('tr[data-event-id]').first().getAttribute('data-event-id');
    const clickNewer = async () => {
      const before = await firstRow();
      const at = Date.now();
      await page.getByRole('button', { name: '← Newer' }).click();
      const clicked = Date.now() - at;
      await page.waitForFunction((id) => document.querySelector('tr[data-event-id]')?.getAttribute('data-event-id') !== id, before, { timeout: 5_000 });
      return { clicked, shown: Date.now() - at };
    };
    const received = () => page.evaluate(() => Number(/(\d+) received/.exec(document.body.innerText)?.[1] ?? -1));
    let during: { clicked: number; shown: number } | undefined;
    for (let s = 0; s < 3; s++) {
      const second = Date.now();
      const burst = Promise.all(Array.from({ length: 100 }, (_, i) => inject(`burst ${s}-${i}`, `+1415555${String(1000 + s * 100 + i).padStart(4, '0')}`)));
      if (s === 1) during = await clickNewer();
      await burst;
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - second))));
    }
    expect(during!.clicked).toBeLessThan(1000);
    expect(during!.shown).toBeLessThan(3000);
    // It keeps up: every event is counted within 3 s of the last one sent, and the newest is on screen.
    const lastSent = Date.now();
    await expect.poll(received, { timeout: 3_000, interval: 100 }).toBeGreaterThanOrEqual(300);
    expect(Date.now() - lastSent).toBeLessThan(3_000);
    await page.locator('.tail-row', { hasText: 'burst 2-99' }).waitFor({ timeout: 1_000 });
    expect(await page.locator('.tail-row').count()).toBeLessThanOrEqual(200);
    const clickedAt = Date.now();
    await page.getByRole('button', { name: 'Pause' }).click();
    expect(Date.now() - clickedAt).toBeLessThan(1000);
    const longest = await page.evaluate(() => Math.max(0, ...(window as unknown as { longTasks: number[] }).longTasks));
    expect(longest).toBeLessThan(250);
  });

  it('tenant: signing out ends the session on the server', async () => {
    const cookie = (await browser.context.cookies()).find((c) => c.name === 'blueline_session')!;
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe('Strict');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    const replayed = await fetch(`${server.url}/api/v1/settings`, { headers: { cookie: `blueline_session=${cookie.value}` } });
    expect(replayed.status).toBe(401);
  });

  it('operator: creates a tenant and a line, assigns it, injects an inbound message', async () => {
    await page.getByRole('button', { name: 'Operator' }).click();
    await page.getByLabel('Admin token').fill(ADMIN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tenants', exact: true }).waitFor();
    await expectAccessible('operator tenants');
    const accounts = (await (await api('POST', '/admin/v1/accounts', { name: 'Acme', multi_tenant: true }, ADMIN)).json()) as { account: { id: string } };
    await page.reload();
    await page.getByLabel('Account').selectOption(accounts.account.id);
    await page.getByLabel('Slug').fill('acme');
    await page.getByLabel('Name').fill('Acme Inc.');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await page.locator('tr[data-tenant="acme"]').waitFor();

    await page.getByRole('link', { name: 'Accounts', exact: true }).click();
    await page.getByRole('heading', { name: 'All accounts' }).waitFor();
    await expectAccessible('operator accounts');

    await page.getByRole('link', { name: 'Lines', exact: true }).click();
    await page.locator('form[aria-label="Add a line"] select[name="tenant"]').selectOption('acme');
    await page.getByLabel('Phone number').fill('+15550108888');
    await page.getByRole('button', { name: 'Add line' }).click();
    const row = page.locator('tr[data-line="+15550108888"]');
    await row.waitFor();
    // Its health, checked now, and the service epoch its simulated Mac named.
    await row.locator('[data-health="up"]').waitFor();
    const epoch = (await row.getByTestId('service-epoch').textContent())!;
    expect(epoch).toMatch(/^epoch-/);
    await expectAccessible('operator lines');
    // Assign it to the demo tenant, then back to acme (each move asked first).
    await row.getByLabel('Tenant for +15550108888').selectOption(demo.tenant);
    page.once('dialog', (d) => void d.accept());
    await row.getByRole('button', { name: 'Move +15550108888' }).click();
    await page.getByText('+15550108888 moved to').waitFor();
    await row.getByLabel('Tenant for +15550108888').selectOption('acme');
    page.once('dialog', (d) => void d.accept());
    await row.getByRole('button', { name: 'Move +15550108888' }).click();
    await page.getByText('+15550108888 moved to Acme Inc. (acme).').waitFor();
    const lines = (await (await api('GET', '/admin/v1/lines', undefined, ADMIN)).json()) as { phone_lines: { phone_line_id: string; phone_number: string; tenant: string }[] };
    const line = lines.phone_lines.find((l) => l.phone_number === '+15550108888')!;
    expect(line.tenant).toBe('acme');

    await page.getByRole('link', { name: 'Simulator', exact: true }).click();
    await page.getByLabel('Simulator line').selectOption(line.phone_line_id);
    await page.getByLabel('Text').fill('Hello Acme');
    await page.getByRole('button', { name: 'Inject inbound message' }).click();
    await page.getByText('Inbound message injected.').waitFor();
    await expectAccessible('operator simulator');
    // A restart of the line's service shows as a new epoch on the lines screen.
    expect((await api('POST', `/admin/v1/lines/${line.phone_line_id}/simulate/restart`, undefined, ADMIN)).status).toBe(200);
    await page.getByRole('link', { name: 'Lines', exact: true }).click();
    await row.getByRole('button', { name: 'Check +15550108888' }).click();
    await row.getByTestId('service-epoch').filter({ hasNotText: epoch }).waitFor();
  });

  it("operator: the device log reads as words; a contact's tapback injected from the simulator shows in the thread", async () => {
    await page.getByRole('link', { name: 'Simulator', exact: true }).click();
    await page.getByLabel('Simulator line').selectOption(demo.phone_line_ids[0]!);
    // The tenant's tapback on the contact's question (an inbound message: only its guid is in the driver's entry).
    await page.locator('.devlog-row[data-kind="reaction"]', { hasText: `${CONTACT} → ❤️ Loved ‘Is the blue one in stock?’` }).waitFor();
    const rows = await page.locator('.devlog-row').allInnerTexts();
    expect(rows.length).toBeGreaterThanOrEqual(4);
    for (const r of rows) expect(r, 'a device log entry as JSON').not.toMatch(/[{}]|":/);
    expect(rows.find((r) => r.includes('text'))).toContain(`${CONTACT} → “Yes! Want me to hold one?”`);
    expect(rows.find((r) => r.includes('media'))).toContain(`${CONTACT} → 📎 blue.png`);
    expect(rows.find((r) => r.includes('voice_note'))).toContain('🎙 Voice note');

    // The contact questions our photo: a tapback chosen in the form, first from a sender that is no handle.
    const form = page.getByRole('form', { name: 'Inject a tapback' });
    await form.getByLabel('On message').selectOption({ label: `📎 blue.png → ${CONTACT}` });
    expect(await form.getByLabel('Tapback from').inputValue()).toBe(CONTACT);
    await form.getByRole('combobox', { name: /^Tapback/ }).selectOption('question');
    await form.getByLabel('Tapback from').fill('not a handle');
    await form.getByRole('button', { name: 'Inject tapback' }).click();
    await page.getByRole('alert').filter({ hasText: '(1003)' }).waitFor();
    await form.getByLabel('Tapback from').fill(CONTACT);
    await form.getByRole('button', { name: 'Inject tapback' }).click();
    await page.getByText(`Tapback injected: ❓ from ${CONTACT} on ‘📎 blue.png’.`).waitFor();
    await expectAccessible('operator simulator with a tapback');

    // The project sees it on the photo in the thread.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Tenant slug').fill(demo.tenant);
    await page.getByLabel('Signing secret').fill(demo.signing_secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    await page.getByLabel('Search chats by handle or group name').fill(CONTACT);
    await page.locator('.chatrow', { hasText: CONTACT }).click();
    const photo = page.locator('.bubble-row.out', { has: page.locator('img.bubble-img') });
    await photo.locator('.reaction', { hasText: CONTACT }).filter({ hasText: '❓' }).waitFor({ timeout: 10_000 });
  });
});
