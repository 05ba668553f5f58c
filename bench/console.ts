/**
 * The console's measures: gzipped JavaScript on first load (the entry chunk and what it
 * preloads), time to interactive of the overview in headless Chromium on loopback, and a
 * screenshot of each screen under docs/console/ (Conversations also at phone width).
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

const ADMIN = 'bench-admin-token-0123456789abcdef';
// A webhook receiver and a HubSpot stand-in on loopback, so every screen has something to show.
const receiver = await startReceiver(200);
const hs = await startHubSpotStandin({ clientId: 'bench-client', clientSecret: 'bench-client-secret' });
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
    HUBSPOT_CLIENT_SECRET: 'bench-client-secret',
    HUBSPOT_API_BASE: hs.url,
    HUBSPOT_AUTH_BASE: hs.url,
  },
});
const demo = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'demo.json'), 'utf8')) as { tenant: string; signing_secret: string; phone_line_ids: string[] };
const admin = (method: string, p: string, body?: unknown) =>
  fetch(`${server.url}${p}`, { method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
const tenantApi = (method: string, p: string, body?: unknown) =>
  fetch(`${server.url}${p}`, { method, headers: { authorization: `Bearer ${demo.signing_secret}`, 'x-service-tenant': demo.tenant, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

try {
  // Some life for the screenshots: a webhook endpoint first, so the inbound events are delivered.
  await tenantApi('POST', '/api/v1/webhook-subscriptions', { url: `${receiver.url}/blueline`, events: ['message.received'] });
  const people = ['+14155550101', '+14155550102', '+14155550103', '+14155550104'];
  const lines = ['Hi! Is the blue one still available?', 'Can I pick it up Saturday?', 'Thanks, got it 🙌', 'What are your opening hours?'];
  for (const [i, from] of people.entries()) await admin('POST', `/admin/v1/lines/${demo.phone_line_ids[i % 2]}/simulate/inbound`, { from, text: lines[i] });
  const reply = (await (await tenantApi('POST', '/api/v1/send', { phone: people[0], body: 'Yes! Want me to hold one for you?' })).json()) as { message_id: string; chat_id: string };
  // Tapbacks both ways in that thread: theirs through the simulator, ours through the API.
  await admin('POST', `/admin/v1/lines/${demo.phone_line_ids[0]}/simulate/inbound`, { from: people[0], reaction: { message_id: reply.message_id, reaction: 'love' } });
  const question = ((await (await tenantApi('GET', `/api/v1/chats/${reply.chat_id}/messages`)).json()) as { messages: { id: string; direction: string }[] }).messages.find((m) => m.direction === 'inbound')!;
  await tenantApi('POST', `/api/v1/messages/${question.id}/react`, { reaction: 'like' });
  await tenantApi('POST', '/api/v1/send', { phone: '+14155550188', body: 'Hi Sam, your order #1042 is ready for pickup.' });
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
  await shot('operator-simulator', '/operator/simulator', '.devlog-row');
  console.log(`screenshots: ${fs.readdirSync(out).join(', ')} in docs/console/`);
  await browser.close();
} finally {
  server.cleanup();
  await receiver.close();
  await hs.close();
}
