/** A Blueline app wired to the stand-in HubSpot, and requests signed as HubSpot signs them. */
import { createHash, createHmac } from 'node:crypto';
import { expect } from 'vitest';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp } from '../../support/app.js';
import { startHubSpotStandin, type HubSpotStandin } from '../../support/hubspot/standin.js';
import type { StoreKind } from '../../support/stores.js';
import { assertMatchesContract } from '../../support/contract.js';
import { operations } from '../../../src/contract/index.js';
import { LEASE_MS } from '../../../src/domain/messaging/idempotency.js';
import { moveToNextNoonUtc, prepareSandbox } from '../../support/messaging.js';

export const CLIENT_ID = 'client-id-123';
export const CLIENT_SECRET = 'yyyyyyyy-yyyy-yyyy-yyyy-yyyyyyyyyyyy';
export const PUBLIC_BASE = 'https://blueline.example.com';
export const PORTAL = 62515;
export const SANDBOX_PORTAL = 99001;
export const OTHER_PORTAL = 70001;

export interface HubSpotHarness {
  t: TestApp;
  hs: HubSpotStandin;
  close(): Promise<void>;
}

export async function startHarness(kind: StoreKind, env: Record<string, string> = {}, join?: HubSpotHarness): Promise<HubSpotHarness> {
  let clockNow: () => number = Date.now;
  const hs = join?.hs ?? (await startHubSpotStandin({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, appId: 4242, now: () => clockNow() }));
  if (!join) {
    hs.addPortal(PORTAL, 'STANDARD');
    hs.addPortal(SANDBOX_PORTAL, 'SANDBOX');
    hs.addPortal(OTHER_PORTAL, 'STANDARD');
  }
  const t = await startTestApp(
    kind,
    {
      HUBSPOT_CLIENT_ID: CLIENT_ID,
      HUBSPOT_CLIENT_SECRET: CLIENT_SECRET,
      HUBSPOT_API_BASE: hs.url,
      HUBSPOT_AUTH_BASE: hs.url,
      PUBLIC_BASE_URL: PUBLIC_BASE,
      BLUELINE_DELIVERY_WORKER: '0',
      ...env,
    },
    join ? { join: join.t } : {},
  );
  if (!join) clockNow = () => t.clock.now();
  // Every answer of a HubSpot operation these tests get, tenant-facing ones included, is checked against its contract.
  const { api, request } = t;
  t.api = async (method, url, ...rest) => checked(method, url, await api(method, url, ...rest));
  t.request = async (opts) => checked(String(opts.method ?? 'GET'), String(opts.url), await request(opts));
  return {
    t,
    hs,
    async close() {
      await t.close();
      if (!join) await hs.close();
    },
  };
}

/** The whole install as a tenant and a browser do it: start, HubSpot's consent (stand-in), the callback. */
export async function install(h: HubSpotHarness, portalId: number) {
  const start = await h.t.api('POST', '/api/v1/integrations/hubspot/install');
  expect(start.statusCode).toBe(201);
  h.hs.authorizeAs(portalId);
  const consent = await fetch(start.json().install_url, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const back = new URL(consent.headers.get('location')!);
  return h.t.request({ method: 'GET', url: `${back.pathname}${back.search}` });
}

export type SignOpts = { version?: 'v3' | 'v2' | 'v1'; timestampMs?: number; secret?: string; signedUrl?: string; signedBody?: string };

/** HubSpot's signature headers for a request to `url` (path and query) with `body`, computed independently of src/. */
export function hubspotHeaders(method: string, url: string, body: string, opts: SignOpts = {}): Record<string, string> {
  const secret = opts.secret ?? CLIENT_SECRET;
  const full = opts.signedUrl ?? `${PUBLIC_BASE}${url}`;
  const signedBody = opts.signedBody ?? body;
  const version = opts.version ?? 'v3';
  if (version === 'v3') {
    const ts = String(opts.timestampMs ?? Date.now());
    // HubSpot decodes these characters of the URI before signing v3 (its request-validation docs).
    const uri = full.replace(/%3A/gi, ':').replace(/%2F/gi, '/').replace(/%3F/gi, '?').replace(/%40/gi, '@').replace(/%21/gi, '!').replace(/%24/gi, '$')
      .replace(/%27/gi, "'").replace(/%28/gi, '(').replace(/%29/gi, ')').replace(/%2A/gi, '*').replace(/%2C/gi, ',').replace(/%3B/gi, ';');
    const sig = createHmac('sha256', secret).update(`${method}${uri}${signedBody}${ts}`).digest('base64');
    return { 'x-hubspot-signature-v3': sig, 'x-hubspot-request-timestamp': ts };
  }
  const source = version === 'v2' ? `${secret}${method}${full}${signedBody}` : `${secret}${signedBody}`;
  return { 'x-hubspot-signature': createHash('sha256').update(source).digest('hex'), 'x-hubspot-signature-version': version };
}

const HUBSPOT_OPERATIONS = operations
  .filter((o) => o.path.includes('/hubspot'))
  .map((o) => ({ op: o, pattern: new RegExp(`^${o.path.replace(/\{[^}]+\}/g, '[^/]+')}$`) }));

function checked(method: string, url: string, res: LightMyRequestResponse): LightMyRequestResponse {
  const path = url.split('?')[0]!;
  const found = HUBSPOT_OPERATIONS.find((o) => o.op.method === method.toUpperCase() && o.pattern.test(path));
  if (found && String(res.headers['content-type']).startsWith('application/json')) assertMatchesContract(found.op, res.statusCode, res.json());
  return res;
}

/** A signed request as HubSpot makes it; every answer is JSON, checked against the operation's contract for its status. */
export async function signed(h: HubSpotHarness, method: 'GET' | 'POST', url: string, body?: unknown, opts: SignOpts = {}) {
  const payload = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  // hubspot.fetch appends the user's portal (and userId, userEmail, appId) to the card's URL; the card puts the same portal in its body.
  if (url === '/crm/hubspot/card/send') url = cardSendUrl((body as { portalId: number | string }).portalId);
  const req: InjectOptions = { method, url, headers: { ...hubspotHeaders(method, url, payload, opts), ...(payload && { 'content-type': 'application/json' }) }, ...(payload && { payload }) };
  const res = await h.t.request(req);
  const op = operations.find((o) => o.method === method && o.path === url.split('?')[0]);
  expect(op, `${method} ${url} is an operation of the contract`).toBeDefined();
  expect(res.headers['content-type'], `${method} ${url} answered ${res.statusCode}`).toMatch(/^application\/json/);
  assertMatchesContract(op!, res.statusCode, res.json());
  return res;
}

export async function installsOf(h: HubSpotHarness) {
  const res = await h.t.api('GET', '/api/v1/integrations/hubspot');
  expect(res.statusCode).toBe(200);
  return res.json().installs as any[];
}

export async function installOf(h: HubSpotHarness, portalId: number) {
  return (await installsOf(h)).find((i) => i.portal_id === String(portalId));
}

export const cardSendUrl = (portalId: number | string) => `/crm/hubspot/card/send?userId=77&userEmail=rep%40example.com&portalId=${portalId}&appId=4242`;

export const cardUrl = (portalId: number, contactId: string, extra = '') =>
  `/crm/hubspot/card?userId=77&userEmail=rep%40example.com&associatedObjectId=${contactId}&associatedObjectType=CONTACT&portalId=${portalId}&appId=4242${extra}`;

export function webhookEvent(portalId: number, objectId: string, over: Record<string, unknown> = {}) {
  return { eventId: Number(objectId) + 1, subscriptionId: 12345, portalId, appId: 4242, occurredAt: Date.now(), subscriptionType: 'contact.creation', attemptNumber: 0, objectId: Number(objectId), changeSource: 'CRM', changeFlag: 'NEW', ...over };
}

export function workflowPayload(portalId: number, objectId: string, callbackId: string, over: { message?: string; phone?: string; properties?: Record<string, string> } = {}) {
  return {
    callbackId,
    origin: { portalId, actionDefinitionId: 1, actionDefinitionVersion: 1 },
    context: { source: 'WORKFLOWS', workflowId: 5 },
    object: { objectId: Number(objectId), objectType: 'CONTACT', properties: over.properties ?? { firstname: 'Ada' } },
    inputFields: { message: over.message ?? 'Hello {{firstname}}', ...(over.phone !== undefined && { phone: over.phone }) },
  };
}

/** A harness with the demo sandbox ready and PORTAL installed. */
export async function startPortal(kind: StoreKind = 'sqlite'): Promise<HubSpotHarness> {
  const h = await startHarness(kind);
  await prepareSandbox(h.t);
  expect((await install(h, PORTAL)).statusCode).toBe(200);
  return h;
}

/** The same, with one contact in the portal (Ada, with a mobile phone). */
export async function startInstalled(kind: StoreKind = 'sqlite'): Promise<{ h: HubSpotHarness; contact: string }> {
  const h = await startPortal(kind);
  return { h, contact: h.hs.addContact(PORTAL, { firstname: 'Ada', mobilephone: '+14155550123' }) };
}

/**
 * A reply-push test's start: the clock at the next noon (HubSpot's calls are counted per day: the
 * tests' moves must not cross a midnight), PORTAL installed, Ada (mobile (415) 555-0123) one of
 * its contacts, and the demo's first line.
 */
export async function startReplyPush(kind: StoreKind): Promise<{ h: HubSpotHarness; contact: string; line: string }> {
  const h = await startHarness(kind);
  moveToNextNoonUtc(h.t.clock);
  await prepareSandbox(h.t);
  expect((await install(h, PORTAL)).statusCode).toBe(200);
  const contact = h.hs.addContact(PORTAL, { firstname: 'Ada', lastname: 'Lovelace', mobilephone: '(415) 555-0123', phone: null });
  return { h, contact, line: h.t.demo.phone_line_ids[0]! };
}

/** What a process doing a workflow action holds: its claim on the callbackId, in progress, under `owner`'s lease from now. */
export async function claimWorkflowAction(h: HubSpotHarness, callbackId: string, owner: string) {
  const tenant = (await h.t.testStore.store.tenants.getBySlug('demo'))!;
  const now = h.t.clock.now();
  const claimed = await h.t.testStore.store.idempotency.claim(
    { tenant_id: tenant.id, route: 'crm:hubspot:workflow', key: `${PORTAL}:${callbackId}`, fingerprint: '', identity: '', state: 'in_progress', http_status: null, response: null, created_at: now, expires_at: now + 7 * 86_400_000, owner, lease_until: now + LEASE_MS },
    now,
  );
  expect(claimed.claimed).toBe(true);
}

/**
 * Night for two hours: the project's sending window (UTC) opens two hours from now and lasts one.
 * The test clocks (of `h` and of the other processes given) first move to a minute past the next
 * whole hour, so that "two hours and a minute on" falls inside the window whatever minute the
 * test started at (started at HH:59, it fell past the window's end).
 */
export async function closeWindowForTwoHours(h: HubSpotHarness, ...others: HubSpotHarness[]) {
  const hourMs = 3_600_000;
  const toNextHour = hourMs - (h.t.clock.now() % hourMs) + 60_000;
  for (const x of [h, ...others]) x.t.clock.advance(toNextHour);
  const hour = new Date(h.t.clock.now()).getUTCHours();
  const at = (n: number) => `${String((hour + n) % 24).padStart(2, '0')}:00`;
  expect((await h.t.admin('PATCH', '/admin/v1/tenants/demo', { timezone: 'UTC', sending_window: { start: at(2), end: at(3) } })).statusCode).toBe(200);
}
