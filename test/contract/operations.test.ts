/**
 * Checks every operation of the contract runs (unkey's common route tests): without
 * credentials 2012, with wrong ones 2004, malformed JSON 1004 once authenticated; every
 * answer matches the schema the operation declares for its status (see support/contract.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { firstTouch, prepareSandbox } from '../support/messaging.js';
import { assertMatchesContract, pathOf } from '../support/contract.js';
import { operations } from '../../src/contract/index.js';
import type { OperationSpec } from '../../src/contract/operation.js';

const checked = operations.filter((o) => o.auth !== 'none');

describe('every operation', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(async () => t.close());

  const send = (op: OperationSpec, headers: Record<string, string>, payload?: string) =>
    t.request({
      method: op.method,
      url: pathOf(op, { id: 'x_unknown' }),
      headers: { ...(payload !== undefined && { 'content-type': 'application/json' }), ...headers },
      ...(payload !== undefined && { payload }),
    });
  const tenantHeader = () => ({ [`x-${t.config.headerBrand}-tenant`]: t.demo.tenant });
  const credentials = (op: OperationSpec, secret?: string) =>
    op.auth === 'admin' ? { authorization: `Bearer ${secret ?? t.adminToken}` } : { authorization: `Bearer ${secret ?? t.demo.signing_secret}`, ...tenantHeader() };

  it.each(checked.map((o) => [o.operationId, o] as const))('%s: no credentials → 2012', async (_id, op) => {
    const res = await send(op, op.auth === 'tenant-header' ? tenantHeader() : {}, op.body ? '{}' : undefined);
    expect(res.statusCode).toBe(401);
    const body = res.json();
    expect(body.error?.code ?? body.code).toBe(2012);
    assertMatchesContract(op, res.statusCode, body);
  });

  it.each(checked.map((o) => [o.operationId, o] as const))('%s: wrong credentials → 2004', async (_id, op) => {
    const res = await send(op, credentials(op, 'sk_wrong_0123456789abcdef'), op.body ? '{}' : undefined);
    expect(res.statusCode).toBe(401);
    const body = res.json();
    expect(body.error?.code ?? body.code).toBe(2004);
    assertMatchesContract(op, res.statusCode, body);
  });

  const withJsonBody = checked.filter((o) => o.body && o.auth !== 'bearer-only');
  it.each(withJsonBody.map((o) => [o.operationId, o] as const))('%s: malformed JSON → 1004 once authenticated', async (_id, op) => {
    const res = await send(op, credentials(op), '{"broken": ');
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error?.code ?? body.code).toBe(1004);
    assertMatchesContract(op, res.statusCode, body);
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
