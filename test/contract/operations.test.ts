/**
 * Checks every operation of the contract runs (unkey's common route tests): without
 * credentials 2012, with wrong ones 2004, malformed JSON 1004 once authenticated; every
 * answer matches the schema the operation declares for its status (see support/contract.ts).
 *
 * The app has the HubSpot integration configured, so its operations are checked like the
 * rest: the HubSpot-facing ones (auth 'hubspot') refuse a missing or wrong signature with
 * 401 2004 in the CRM body and answer malformed JSON, once signed, with HTTP 200 ok:false
 * 1004. Without the integration configured, "not configured" (404 2011) comes first, before
 * any credentials are looked at: checked below on an app without it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { firstTouch, prepareSandbox } from '../support/messaging.js';
import { assertMatchesContract, pathOf } from '../support/contract.js';
import { operations } from '../../src/contract/index.js';
import type { OperationSpec } from '../../src/contract/operation.js';
import { CLIENT_ID, CLIENT_SECRET, PUBLIC_BASE, hubspotHeaders } from '../crm/hubspot/helpers.js';

const checked = operations.filter((o) => o.auth !== 'none');
const isHubSpot = (o: OperationSpec) => /\/hubspot(\/|$)/.test(o.path);
/** The HubSpot integration configured (no HubSpot call is made: every check fails before one). */
const HUBSPOT_ENV = { HUBSPOT_CLIENT_ID: CLIENT_ID, HUBSPOT_CLIENT_SECRET: CLIENT_SECRET, PUBLIC_BASE_URL: PUBLIC_BASE };

describe('every operation', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', HUBSPOT_ENV);
  });
  afterAll(async () => t.close());

  const urlOf = (op: OperationSpec) => pathOf(op, { id: 'x_unknown', portal_id: '62515' });
  const send = (op: OperationSpec, headers: Record<string, string>, payload?: string) =>
    t.request({
      method: op.method,
      url: urlOf(op),
      headers: { ...(payload !== undefined && { 'content-type': 'application/json' }), ...headers },
      ...(payload !== undefined && { payload }),
    });
  const tenantHeader = () => ({ [`x-${t.config.headerBrand}-tenant`]: t.demo.tenant });
  /** HubSpot-facing operations: HubSpot's v3 signature of exactly this request (with the app's client secret, or `secret`). */
  const credentials = (op: OperationSpec, secret?: string, payload = '') =>
    op.auth === 'hubspot'
      ? hubspotHeaders(op.method, urlOf(op), payload, { secret: secret ?? CLIENT_SECRET })
      : op.auth === 'admin'
        ? { authorization: `Bearer ${secret ?? t.adminToken}` }
        : { authorization: `Bearer ${secret ?? t.demo.signing_secret}`, ...tenantHeader() };

  it.each(checked.map((o) => [o.operationId, o] as const))('%s: no credentials → 2012 (no HubSpot signature: 2004)', async (_id, op) => {
    const res = await send(op, op.auth === 'tenant-header' ? tenantHeader() : {}, op.body ? '{}' : undefined);
    expect(res.statusCode).toBe(401);
    const body = res.json();
    expect(body.error?.code ?? body.code).toBe(op.auth === 'hubspot' ? 2004 : 2012);
    if (op.auth === 'hubspot') expect(body).toMatchObject({ ok: false, retryable: false, trace_id: res.headers['x-trace-id'] });
    assertMatchesContract(op, res.statusCode, body);
  });

  it.each(checked.map((o) => [o.operationId, o] as const))('%s: wrong credentials → 2004', async (_id, op) => {
    const payload = op.body ? '{}' : undefined;
    const res = await send(op, credentials(op, 'sk_wrong_0123456789abcdef', payload), payload);
    expect(res.statusCode).toBe(401);
    const body = res.json();
    expect(body.error?.code ?? body.code).toBe(2004);
    assertMatchesContract(op, res.statusCode, body);
  });

  const withJsonBody = checked.filter((o) => o.body && o.auth !== 'bearer-only');
  it.each(withJsonBody.map((o) => [o.operationId, o] as const))('%s: malformed JSON → 1004 once authenticated (HubSpot-facing: HTTP 200 ok:false)', async (_id, op) => {
    const payload = '{"broken": ';
    const res = await send(op, credentials(op, undefined, payload), payload);
    expect(res.statusCode).toBe(op.auth === 'hubspot' ? 200 : 400);
    const body = res.json();
    expect(body.error?.code ?? body.code).toBe(1004);
    if (op.auth === 'hubspot') expect(body.ok).toBe(false);
    assertMatchesContract(op, res.statusCode, body);
  });

  it('the HubSpot OAuth callback with an unknown state: 400 2014 in the envelope', async () => {
    const op = operations.find((o) => o.operationId === 'hubspotOAuthCallback')!;
    const res = await t.request({ method: 'GET', url: `${op.path}?code=c&state=unknown-state` });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe(2014);
    assertMatchesContract(op, res.statusCode, res.json());
  });

  describe("another tenant's ids", () => {
    /** The demo tenant's resources, by the path prefix that names them. */
    const owned: Record<string, string> = {};
    let intruder: string;
    beforeAll(async () => {
      await prepareSandbox(t);
      const sent = (await firstTouch(t, { phone: '+14155550170', body: 'hello' })).json();
      owned.messages = sent.message_id;
      const group = await t.api('POST', '/api/v1/chats', { to: ['+14155550171', '+14155550172'], message: { parts: [{ type: 'text', value: 'hi all' }] } });
      t.clock.advance(11 * 60_000);
      owned.chats = group.json().chat.id;
      owned.attachments = (await t.api('POST', '/api/v1/attachments', { filename: 'a.png', content_type: 'image/png', size_bytes: 10 })).json().attachment_id;
      owned['webhook-subscriptions'] = (await t.api('POST', '/api/v1/webhook-subscriptions', { url: 'https://dev-inbox', events: ['message.received'] })).json().id;
      await t.admin('POST', `/admin/v1/lines/${t.demo.phone_line_ids[0]}/simulate/inbound`, { from: '+14155550173', text: 'inbound' });
      owned.events = (await t.api('GET', '/api/v1/events', undefined, { tenant: t.demo.tenant })).json().events[0].id;
      owned['voice-notes'] = owned.attachments;
      const account = (await t.admin('POST', '/admin/v1/accounts', { name: 'Intruder' })).json();
      await t.admin('POST', '/admin/v1/tenants', { account_id: account.account.id, slug: 'intruder' });
      intruder = account.signing_secret;
    });

    /** A body each operation accepts, so the lookup (not validation) decides the answer. */
    const BODIES: Record<string, unknown> = {
      editMessage: { new_text: 'changed' },
      reactToMessage: { reaction: 'love' },
      sendChatMessage: { message: { parts: [{ type: 'text', value: 'x' }] } },
      addChatParticipant: { address: '+14155550174' },
      updateChat: { display_name: 'renamed' },
      rotateWebhookSubscriptionSecret: {},
      updateWebhookSubscription: { enabled: false },
    };
    const withIds = checked.filter((o) => /^\/api\/v1\/[a-z-]+\/\{id\}/.test(o.path) && o.auth !== 'admin' && !o.rawBody);

    it.each(withIds.map((o) => [o.operationId, o] as const))('%s: another tenant\'s id → 404 in its own code, nothing touched', async (_id, op) => {
      const resource = op.path.split('/')[3]!;
      const id = owned[resource];
      expect(id, `a ${resource} id of the demo tenant`).toBeTruthy();
      const body = BODIES[op.operationId];
      const res = await t.request({
        method: op.method,
        url: pathOf(op, { id, address: '+14155550171' }),
        headers: { authorization: `Bearer ${intruder}`, [`x-${t.config.headerBrand}-tenant`]: 'intruder', ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { payload: JSON.stringify(body) }),
      });
      expect(res.statusCode, res.body).toBe(404);
      const json = res.json();
      expect([2002, 2003, 2011, 5001]).toContain(json.error?.code ?? json.code);
      assertMatchesContract(op, res.statusCode, json);
      // The owner still sees it as it was.
      if (resource === 'messages') expect((await t.api('GET', `/api/v1/messages/${id}`)).json().message.parts[0].value).toBe('hello');
    });
  });
});

describe('every HubSpot operation, the integration not configured', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(async () => t.close());

  const hubspot = operations.filter(isHubSpot);
  it('covers the tenant-facing, the HubSpot-facing and the OAuth callback operations', () => {
    expect(hubspot.map((o) => o.auth).sort()).toEqual(['hubspot', 'hubspot', 'hubspot', 'hubspot', 'none', 'tenant', 'tenant', 'tenant', 'tenant', 'tenant', 'tenant']);
  });

  it.each(hubspot.map((o) => [o.operationId, o] as const))('%s: 404 2011 "not configured" comes first, even with valid credentials', async (_id, op) => {
    const url = pathOf(op, { portal_id: '62515' });
    const payload = op.body !== undefined ? '{}' : undefined;
    const headers = op.auth === 'tenant' ? { authorization: `Bearer ${t.demo.signing_secret}` } : op.auth === 'hubspot' ? hubspotHeaders(op.method, url, payload ?? '') : {};
    const res = await t.request({ method: op.method, url, headers: { ...headers, ...(payload !== undefined && { 'content-type': 'application/json' }) }, ...(payload !== undefined && { payload }) });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatchObject({ code: 2011, message: expect.stringMatching(/HubSpot integration is not configured/) });
    assertMatchesContract(op, res.statusCode, res.json());
  });
});
