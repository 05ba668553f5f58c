/**
 * HubSpot reply push at volume: 1,000 pending replies across 10 portals, pushed
 * to the stand-in HubSpot on loopback with HubSpot's per-portal budget enforced
 * (110 requests per rolling 10 s, real time: this run takes about 11 s of it).
 * Reports HubSpot calls per push (must be 2.0), the share of each portal's
 * budget used while its backlog lasted, and the 429s received.
 * Targets: calls per push 2.0, budget share ≥ 90 %, 0 429s.
 *   npx tsx bench/crm-push.ts
 *
 * In one process (Blueline in-process over SQLite, the stand-in on loopback):
 * the reply-notify job's one run is called directly once the backlog is there.
 * Budget share = calls / (110 × the 10-second windows begun while the portal
 * had replies left): the last window is partly idle only because the backlog
 * ran out in it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { testClock } from '../src/clock.js';
import { createLogger } from '../src/logging.js';
import { fsBlobStore } from '../src/blobs/index.js';
import { openStore } from '../src/store/index.js';
import { createDemoSandbox } from '../src/domain/accounts-tenants/demo.js';
import { startHubSpotStandin } from '../test/support/hubspot/standin.js';

const PORTALS = 10;
const CONTACTS_PER_PORTAL = 10;
const REPLIES_PER_CONTACT = 10;
const BUDGET = { max: 110, intervalMs: 10_000 };
const ADMIN = 'bench-admin-token-0123456789';

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-crm-push-'));
  const clock = testClock();
  const hs = await startHubSpotStandin({ clientId: 'bench-client', clientSecret: 'bench-secret', now: () => clock.now(), rateLimit: BUDGET });
  const config = loadConfig({
    BLUELINE_TEST_CLOCK: '1', LOG_LEVEL: 'warn', BLUELINE_DELIVERY_WORKER: '0', DATA_DIR: dir,
    HUBSPOT_CLIENT_ID: 'bench-client', HUBSPOT_CLIENT_SECRET: 'bench-secret', HUBSPOT_API_BASE: hs.url, HUBSPOT_AUTH_BASE: hs.url, PUBLIC_BASE_URL: 'https://blueline.example.com',
  });
  const store = await openStore({ sqlitePath: path.join(dir, 'blueline.sqlite'), masterKey: randomBytes(32) });
  const logger = createLogger({ level: config.logLevel, brand: config.headerBrand, stream: new Writable({ write: (_c, _e, cb) => cb() }) });
  const { app, services } = await buildApp({ config, store, clock, adminToken: ADMIN, logger, blobs: fsBlobStore(path.join(dir, 'blobs')), hookSecret: randomBytes(16) });
  const demo = await createDemoSandbox(services, { baseUrl: 'http://127.0.0.1', adminToken: ADMIN });
  const admin = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) => app.inject({ method, url, headers: { authorization: `Bearer ${ADMIN}` }, ...(payload && { payload }) });
  const tenant = (await store.tenants.getBySlug('demo'))!;
  await admin('PATCH', '/admin/v1/tenants/demo', { crm_install_slots: PORTALS, rate_limit: { per_second: 10_000, burst: 10_000 } });

  // Ten portals installed through the OAuth flow, each with contacts whose handles a CRM send linked.
  const portals = Array.from({ length: PORTALS }, (_, i) => 81_000 + i);
  let phone = 0;
  for (const p of portals) {
    hs.addPortal(p, 'STANDARD');
    const start = await app.inject({ method: 'POST', url: '/api/v1/integrations/hubspot/install', headers: { authorization: `Bearer ${demo.signing_secret}` } });
    hs.authorizeAs(p);
    const back = new URL((await fetch(start.json().install_url, { redirect: 'manual' })).headers.get('location')!);
    const cb = await app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    if (cb.statusCode !== 200) throw new Error(`install of portal ${p}: ${cb.statusCode} ${cb.body}`);
    for (let c = 0; c < CONTACTS_PER_PORTAL; c++) {
      const handle = `+1415555${String(1000 + phone++).padStart(4, '0')}`;
      const contact = hs.addContact(p, { mobilephone: handle });
      await store.hubspot.linkContact({ tenant_id: tenant.id, handle, portal_id: String(p), contact_id: contact, linked_at: clock.now() });
    }
  }
  // The first run (nothing to push yet) sets the schedule; the backlog then builds up.
  await services.hubspot!.replyPush.runDue();
  clock.advance(1_000);
  const line = demo.phone_line_ids[0]!;
  for (let r = 0; r < REPLIES_PER_CONTACT; r++) {
    for (let h = 0; h < phone; h++) {
      const res = await admin('POST', `/admin/v1/lines/${line}/simulate/inbound`, { from: `+1415555${String(1000 + h).padStart(4, '0')}`, text: `reply ${r} from ${h}` });
      if (res.statusCode !== 202) throw new Error(`inbound: ${res.statusCode} ${res.body}`);
    }
  }
  const backlog = (await services.hubspot!.replyPush.status(tenant.id)).pushBacklog;
  hs.resetCalls();
  clock.advance(config.crmPushIntervalMs);

  const t0 = Date.now();
  await services.hubspot!.replyPush.runDue();
  const seconds = (Date.now() - t0) / 1000;

  const pushed = [...portals].reduce((n, p) => n + hs.portal(p)!.communications.size, 0);
  const calls = portals.reduce((n, p) => n + hs.calls(p), 0);
  const rows = portals.map((p) => {
    const at = hs.requests.filter((q) => q.portalId === p).map((q) => q.at);
    const span = Math.max(...at) - Math.min(...at);
    const windows = Math.floor(span / BUDGET.intervalMs) + 1;
    const firstWindow = at.filter((t) => t < Math.min(...at) + BUDGET.intervalMs).length;
    return { portal: p, calls: at.length, share: at.length / (BUDGET.max * windows), firstWindow, over: hs.overBudget(p) };
  });
  const minShare = Math.min(...rows.map((r) => r.share));
  const over = rows.reduce((n, r) => n + r.over, 0);
  console.log(`reply push: ${backlog} pending replies over ${PORTALS} portals; pushed ${pushed} in ${seconds.toFixed(1)} s`);
  for (const r of rows) console.log(`  portal ${r.portal}: ${r.calls} calls, budget share ${(r.share * 100).toFixed(1)} % (first 10 s: ${r.firstWindow}/${BUDGET.max}), 429s ${r.over}`);
  console.log(`HubSpot calls per push: ${(calls / pushed).toFixed(2)} (target 2.0)`);
  console.log(`budget share used (lowest portal): ${(minShare * 100).toFixed(1)} % (target ≥ 90 %)`);
  console.log(`429s received: ${over} (target 0)`);
  const ok = pushed === backlog && calls === 2 * pushed && minShare >= 0.9 && over === 0;
  console.log(ok ? 'PASS' : 'FAIL');

  await app.close();
  await store.close();
  await hs.close();
  fs.rmSync(dir, { recursive: true, force: true });
  process.exitCode = ok ? 0 : 1;
}

await main();
