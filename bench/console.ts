/**
 * The console's measures: gzipped JavaScript on first load (the entry chunk and what it
 * preloads), time to interactive of the overview in headless Chromium on loopback, and a
 * screenshot of each screen under docs/console/ (Conversations also at phone width). The HubSpot
 * portal's texts come last: they are made as HubSpot makes them (signed contact.creation webhooks,
 * signed workflow actions) and moved on by the service's test clock, which would otherwise age
 * what the other screens show.
 * Run: npm run bench:console (after npm run build).
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { startServerProcess, projectRoot } from '../test/support/server-process.js';
import { launch } from '../test/console/browser.js';
import { freePort } from '../test/support/ports.js';
import { startReceiver } from '../test/support/receiver.js';
import { startHubSpotStandin } from '../test/support/hubspot/standin.js';
import { hubspotHeaders, webhookEvent, workflowPayload } from '../test/crm/hubspot/helpers.js';

const ADMIN = 'bench-admin-token-0123456789abcdef';
// A webhook receiver and a HubSpot stand-in on loopback, so every screen has something to show.
const receiver = await startReceiver(200);
// The stand-in's clock follows the service's test clock (token expiry, completion times).
let clockOffset = 0;
const HS_SECRET = 'bench-client-secret';
const hs = await startHubSpotStandin({ clientId: 'bench-client', clientSecret: HS_SECRET, now: () => Date.now() + clockOffset });
const PORTAL = 62515;
hs.addPortal(PORTAL, 'STANDARD');
const port = await freePort();
const server = await startServerProcess({
  prefix: 'blueline-bench-console-',
  port,
  env: {
    ADMIN_TOKEN: ADMIN,
    BLUELINE_ALLOW_PRIVATE_NETWORKS: '1',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    HUBSPOT_CLIENT_ID: 'bench-client',
    HUBSPOT_CLIENT_SECRET: HS_SECRET,
    HUBSPOT_API_BASE: hs.url,
    HUBSPOT_AUTH_BASE: hs.url,
    BLUELINE_TEST_CLOCK: '1',
  },
});
const demo = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'demo.json'), 'utf8')) as { tenant: string; signing_secret: string; phone_line_ids: string[] };
const admin = (method: string, p: string, body?: unknown) =>
  fetch(`${server.url}${p}`, { method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
const tenantApi = (method: string, p: string, body?: unknown) =>
  fetch(`${server.url}${p}`, { method, headers: { authorization: `Bearer ${demo.signing_secret}`, 'x-service-tenant': demo.tenant, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

/** A request to the service signed as HubSpot signs it: v3 for webhooks, v2 for workflow actions. */
async function fromHubSpot(p: string, body: unknown, version: 'v3' | 'v2') {
  const payload = JSON.stringify(body);
  const headers = { ...hubspotHeaders('POST', p, payload, { version, secret: HS_SECRET, signedUrl: `${server.url}${p}` }), 'content-type': 'application/json' };
  const res = await fetch(`${server.url}${p}`, { method: 'POST', headers, body: payload });
  if (!res.ok) throw new Error(`POST ${p}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown>>;
}
/** Contacts created in HubSpot: added to the stand-in, then one signed contact.creation webhook batch. */
async function contactsCreated(...contacts: Record<string, string>[]): Promise<string[]> {
  const ids = contacts.map((c) => hs.addContact(PORTAL, c));
  await fromHubSpot('/crm/hubspot/webhook', ids.map((id) => webhookEvent(PORTAL, id, { occurredAt: Date.now() + clockOffset })), 'v3');
  return ids;
}
/** A workflow's "send a text" action on a contact, as HubSpot calls it. */
function workflowAction(callbackId: string, contact: Record<string, string>) {
  const id = hs.addContact(PORTAL, contact);
  const { mobilephone, ...properties } = contact;
  return fromHubSpot('/crm/hubspot/workflow/send', workflowPayload(PORTAL, id, callbackId, { phone: mobilephone, message: 'Hi {{firstname}}, your quote is ready. Reply here with any questions.', properties }), 'v2');
}
async function advanceClock(ms: number) {
  const res = await admin('POST', '/admin/v1/clock/advance', { ms });
  if (!res.ok) throw new Error(`clock advance: ${res.status}`);
  clockOffset += ms;
}
type AutoSendRow = { object_id: string; status: string; reason: string | null; message_id: string | null };
type HeldRow = { callback_id: string; state: string; next_attempt_at: string };
/** Waits (briefly: the workers poll every half second) until the portal's rows are as `ok` wants them. */
async function portalRowsUntil(what: string, ok: (auto: AutoSendRow[], held: HeldRow[]) => boolean) {
  let auto: AutoSendRow[] = [];
  let held: HeldRow[] = [];
  for (let i = 0; i < 100; i++) {
    auto = ((await (await tenantApi('GET', `/api/v1/integrations/hubspot/${PORTAL}/auto-sends?limit=100`)).json()) as { auto_sends: AutoSendRow[] }).auto_sends;
    held = ((await (await tenantApi('GET', `/api/v1/integrations/hubspot/${PORTAL}/held-actions?limit=100`)).json()) as { held_actions: HeldRow[] }).held_actions;
    if (ok(auto, held)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`HubSpot portal rows never came to ${what}: ${JSON.stringify({ auto, held })}`);
}

try {
  // Some life for the screenshots: a webhook endpoint first, so the inbound events are delivered.
  await tenantApi('POST', '/api/v1/webhook-subscriptions', { url: `${receiver.url}/blueline`, events: ['message.received'] });
  // And the dev inbox, so Developers shows its card with the messages pulled.
  await tenantApi('POST', '/api/v1/webhook-subscriptions', { url: 'https://dev-inbox', events: ['message.received'] });
  const people = ['+14155550101', '+14155550102', '+14155550103', '+14155550104'];
  const lines = ['Hi! Is the blue one still available?', 'Can I pick it up Saturday?', 'Thanks, got it 🙌', 'What are your opening hours?'];
  for (const [i, from] of people.entries()) await admin('POST', `/admin/v1/lines/${demo.phone_line_ids[i % 2]}/simulate/inbound`, { from, text: lines[i] });
  const reply = (await (await tenantApi('POST', '/api/v1/send', { phone: people[0], body: 'Yes! Want me to hold one for you?' })).json()) as { message_id: string; chat_id: string };
  // Tapbacks both ways in that thread: theirs through the simulator, ours through the API.
  await admin('POST', `/admin/v1/lines/${demo.phone_line_ids[0]}/simulate/inbound`, { from: people[0], reaction: { message_id: reply.message_id, reaction: 'love' } });
  const question = ((await (await tenantApi('GET', `/api/v1/chats/${reply.chat_id}/messages`)).json()) as { messages: { id: string; direction: string }[] }).messages.find((m) => m.direction === 'inbound')!;
  await tenantApi('POST', `/api/v1/messages/${question.id}/react`, { reaction: 'like' });
  // On the first line, like the thread above, so the simulator's first line logs all three.
  await tenantApi('POST', '/api/v1/send', { phone: '+14155550188', body: 'Hi Sam, your order #1042 is ready for pickup.', phone_line_id: demo.phone_line_ids[0] });
  await receiver.waitFor(people.length, 10_000);
  // A connected HubSpot portal: the install flow as a browser does it (consent at the stand-in, then the callback).
  const started = (await (await tenantApi('POST', '/api/v1/integrations/hubspot/install')).json()) as { install_url: string };
  hs.authorizeAs(PORTAL);
  const consent = await fetch(started.install_url, { redirect: 'manual' });
  await fetch(consent.headers.get('location')!);
  await tenantApi('PATCH', `/api/v1/integrations/hubspot/${PORTAL}`, { auto_send: { enabled: true, template: 'Hi {{firstname}}, thanks for your interest in {{company}}! Reply here any time.' } });

  // A signing-secret rotation in its overlap, for the Developers screen.
  demo.signing_secret = ((await (await tenantApi('POST', '/api/v1/signing-secret/rotate', { overlap_hours: 24 })).json()) as { signing_secret: string }).signing_secret;

  // First-load JS: the entry script and its modulepreloads, gzipped.
  const html = await (await fetch(`${server.url}/console/`)).text();
  const scripts = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  let gz = 0;
  for (const s of scripts) gz += gzipSync(Buffer.from(await (await fetch(`${server.url}${s}`)).arrayBuffer()), { level: 9 }).length;
  console.log(`first-load JS: ${scripts.length} file(s), ${(gz / 1024).toFixed(1)} KB gzipped (budget 200 KB)`);

  const browser = await launch();
  const page = await browser.context.newPage();
  await page.goto(`${server.url}/console/`);
  await page.getByLabel('Tenant slug').fill(demo.tenant);
  await page.getByLabel('Signing secret').fill(demo.signing_secret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();

  // Time to interactive: navigation start to the overview's numbers on screen (signed in, cold cache each run).
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = Date.now();
    await page.goto(`${server.url}/console/?r=${i}`, { waitUntil: 'commit' });
    await page.locator('.stat-value').first().waitFor();
    await page.getByRole('link', { name: 'Conversations', exact: true }).waitFor();
    runs.push(Date.now() - started);
  }
  runs.sort((a, b) => a - b);
  console.log(`overview time to interactive: median ${runs[2]} ms (min ${runs[0]}, max ${runs[4]})`);

  const out = path.join(projectRoot, 'docs/console');
  fs.mkdirSync(out, { recursive: true });
  const shot = async (name: string, url: string, ready: string) => {
    await page.goto(`${server.url}/console${url}`);
    await page.locator(ready).first().waitFor();
    await page.waitForTimeout(400);
    await page.screenshot({ path: path.join(out, `${name}.png`) });
  };
  await shot('overview', '/', '.stat-value');
  await shot('conversations', '/conversations', '.chatrow');
  await page.locator('.chatrow', { hasText: people[0] }).click();
  await page.locator('.reaction').first().waitFor();
  await page.waitForTimeout(400);
  await page.screenshot({ path: path.join(out, 'thread.png') });
  // At phone width: the sidebar is a bar across the top and the chat list fills the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await shot('conversations-phone', '/conversations', '.chatrow');
  await page.setViewportSize({ width: 1360, height: 860 });
  await shot('events', '/events', 'tr[data-event-id]');
  await shot('developers', '/developers', '.endpoint');
  await shot('settings', '/settings', 'input[name="timezone"]');
  await shot('hubspot', '/hubspot', '.install');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
  await page.screenshot({ path: path.join(out, 'sign-in.png') });
  await page.getByRole('button', { name: 'Operator' }).click();
  await page.getByLabel('Admin token').fill(ADMIN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Tenants', exact: true }).waitFor();
  await shot('operator-tenants', '/operator/tenants', 'tr[data-tenant]');
  await shot('operator-lines', '/operator/lines', '[data-health="up"]');
  // The lines are listed in no fixed order: the simulator is shown on the first line, whichever comes first.
  await page.goto(`${server.url}/console/operator/simulator`);
  await page.getByLabel('Simulator line').selectOption(demo.phone_line_ids[0]!);
  await page.getByLabel('Simulator line').blur();
  await page.locator('.devlog-row').nth(2).waitFor();
  await page.waitForTimeout(400);
  await page.screenshot({ path: path.join(out, 'operator-simulator.png') });

  // Last, the HubSpot portal's texts, contact by contact: hours pass on the test clock here.
  const HOUR = 3_600_000;
  const MINUTE = 60_000;
  // Night: from a minute past the next whole hour, the sending window (UTC) opens in two hours and lasts one.
  await advanceClock(HOUR - ((Date.now() + clockOffset) % HOUR) + MINUTE);
  const hour = new Date(Date.now() + clockOffset).getUTCHours();
  const at = (n: number) => `${String((hour + n) % 24).padStart(2, '0')}:00`;
  if (!(await admin('PATCH', `/admin/v1/tenants/${demo.tenant}`, { timezone: 'UTC', sending_window: { start: at(2), end: at(3) } })).ok) throw new Error('the sending window was not set');
  const QUOTE = 'ap-62515-88017-1-0';
  const FOLLOW_UP = 'ap-62515-88017-1-1';
  if ((await workflowAction(QUOTE, { firstname: 'Margaret', lastname: 'Hale', mobilephone: '+14155550140' })).held !== true) throw new Error('the night workflow action was not held');
  // Contacts created through the night (the clock moves less than the two hours in all).
  const [ada] = await contactsCreated({ firstname: 'Ada', lastname: 'Okafor', mobilephone: '+14155550141' });
  await advanceClock(23 * MINUTE);
  const [grace] = await contactsCreated({ firstname: 'Grace', lastname: 'Liu', mobilephone: '(415) 555-0142' });
  await advanceClock(41 * MINUTE);
  const [priya] = await contactsCreated({ firstname: 'Priya', lastname: 'Shah' }); // no phone in HubSpot: this one fails
  const row = (auto: AutoSendRow[], id: string) => auto.find((a) => a.object_id === id);
  await portalRowsUntil('two waiting for the window, one failed', (auto) => row(auto, ada)?.reason?.includes('outside sending window') === true && row(auto, grace)?.reason?.includes('outside sending window') === true && row(auto, priya)?.status === 'failed');
  // The window opens: two of the three go out now (one first touch per line), the third waits ten minutes for a free line.
  await advanceClock(2 * HOUR - 64 * MINUTE);
  const tried = (a: AutoSendRow | undefined) => a?.status === 'sent' || a?.reason?.includes('lines saturated') === true;
  const heldTried = (h: HeldRow | undefined) => h !== undefined && (h.state !== 'held' || Date.parse(h.next_attempt_at) > Date.now() + clockOffset + MINUTE);
  await portalRowsUntil('two sent, the third waiting for a line', (auto, held) => tried(row(auto, ada)) && tried(row(auto, grace)) && heldTried(held.find((h) => h.callback_id === QUOTE)));
  await advanceClock(10 * MINUTE);
  await portalRowsUntil('all three sent, the workflow action reported', (auto, held) => row(auto, ada)?.status === 'sent' && row(auto, grace)?.status === 'sent' && held.find((h) => h.callback_id === QUOTE)?.state === 'completed');
  // One line is free again: a new contact is texted at once; then both lines are at their gap.
  const [linus] = await contactsCreated({ firstname: 'Linus', lastname: 'Berg', mobilephone: '+14155550143' });
  await portalRowsUntil('the fourth sent', (auto) => row(auto, linus)?.status === 'sent');
  // Minutes later, before the lines' ten-minute gap is over: these wait for a free line.
  await advanceClock(3 * MINUTE);
  const waiting = await contactsCreated({ firstname: 'Maya', lastname: 'Cohen', mobilephone: '+14155550144' });
  await advanceClock(2 * MINUTE);
  waiting.push(...(await contactsCreated({ firstname: 'Omar', lastname: 'Haddad', mobilephone: '+14155550145' })));
  if ((await workflowAction(FOLLOW_UP, { firstname: 'Jon', lastname: 'Reyes', mobilephone: '+14155550146' })).held !== true) throw new Error('the busy workflow action was not held');
  await portalRowsUntil('two waiting for a free line', (auto) => waiting.every((id) => row(auto, id)?.reason?.includes('lines saturated')));
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Project' }).click();
  await page.getByLabel('Tenant slug').fill(demo.tenant);
  await page.getByLabel('Signing secret').fill(demo.signing_secret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  // Both lists loaded (contacts' texts, held workflow actions), in a window tall enough for both
  // (a full-page capture would cut the sidebar at the window's height).
  await page.setViewportSize({ width: 1360, height: 1200 });
  await shot('hubspot-portal', `/hubspot/${PORTAL}`, 'body:has(tr[data-contact]):has(tr[data-callback])');
  console.log(`screenshots: ${fs.readdirSync(out).join(', ')} in docs/console/`);
  await browser.close();
} finally {
  server.cleanup();
  await receiver.close();
  await hs.close();
}
