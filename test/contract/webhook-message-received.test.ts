/**
 * The `message.received` contract against real deliveries: inbound messages through the
 * simulator, the envelope POSTed to a loopback receiver, its JSON and headers validated with
 * ajv against src/contract/webhook-message-received.ts. Every object is closed for the check,
 * so a field the service sends and the contract does not declare fails as surely as a
 * declared one that is missing or mistyped.
 */
import { randomBytes } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import { ajv, closed, lowercased } from '../support/contract-check.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { startReceiver, type Received, type Receiver } from '../support/receiver.js';
import { prepareSandbox } from '../support/messaging.js';
import { MessageReceived, MessageReceivedHeaders } from '../../src/contract/webhook-message-received.js';

function check(validate: ValidateFunction, value: unknown, what: string) {
  if (!validate(value)) throw new Error(`${what} does not match the contract: ${ajv.errorsText(validate.errors)}; ${JSON.stringify(value).slice(0, 800)}`);
}

const validateBody = ajv.compile(closed(MessageReceived) as object);

describe.each(STORE_KINDS)('message.received deliveries match the contract on %s', (kind) => {
  let t: TestApp;
  let rx: Receiver;
  let line: string;
  let validateHeaders: ValidateFunction;
  let subscriptionId: string;
  beforeAll(async () => {
    t = await startTestApp(kind, { BLUELINE_ALLOW_PRIVATE_NETWORKS: '1' });
    await prepareSandbox(t);
    rx = await startReceiver();
    line = t.demo.phone_line_ids[0]!;
    const res = await t.api('POST', '/api/v1/webhook-subscriptions', { url: rx.url, events: ['message.received'] });
    expect(res.statusCode).toBe(201);
    subscriptionId = res.json().id;
    validateHeaders = ajv.compile(lowercased(MessageReceivedHeaders(t.config.headerBrand)));
  });
  afterAll(async () => {
    await rx?.close();
    await t?.close();
  });

  /** Simulates one inbound message and returns its delivery. */
  async function deliver(body: Record<string, unknown>): Promise<Received> {
    const before = rx.received.length;
    const guid = `contract-${randomBytes(4).toString('hex')}`;
    const res = await t.admin('POST', `/admin/v1/lines/${line}/simulate/inbound`, { guid, ...body });
    expect(res.statusCode, res.body).toBe(202);
    const got = (await rx.waitFor(before + 1))[before];
    expect(got, 'a delivery arrived').toBeDefined();
    return got!;
  }

  function expectContract(got: Received) {
    expect(got.headers['content-type']).toBe('application/json');
    check(validateHeaders, got.headers, 'the delivery headers');
    const envelope = JSON.parse(got.body.toString('utf8'));
    check(validateBody, envelope, 'the envelope');
    return envelope as MessageReceived;
  }

  it('a text message', async () => {
    const env = expectContract(await deliver({ from: '+14155550301', text: 'hello contract' }));
    expect(env.data.message.parts).toEqual([{ type: 'text', value: 'hello contract' }]);
    expect(env.text).toBe('hello contract');
  });

  it('a media message (text and an image, and a file sent with no name or type)', async () => {
    const env = expectContract(
      await deliver({
        from: '+14155550302',
        parts: [
          { type: 'text', value: 'see attached' },
          { type: 'media', filename: 'pic.png', mime_type: 'image/png', content_base64: randomBytes(300).toString('base64') },
          { type: 'media', content_base64: randomBytes(20).toString('base64') },
        ],
      }),
    );
    expect(env.data.message.parts.map((p) => p.type)).toEqual(['text', 'media', 'media']);
    expect(env.data.message.parts[1]).toMatchObject({ filename: 'pic.png', mime_type: 'image/png', size_bytes: 300 });
    expect(env.data.message.parts[2]).toMatchObject({ mime_type: 'application/octet-stream', size_bytes: 20 });
  });

  it('a group message with media only', async () => {
    const chat = { chat_key: `iMessage;+;chat-contract-${randomBytes(4).toString('hex')}`, handles: ['+14155550304'] };
    const env = expectContract(await deliver({ from: '+14155550303', chat, parts: [{ type: 'media', filename: 'a.bin', content_base64: 'AAEC' }] }));
    expect(env.data.chat.is_group).toBe(true);
    expect(env.text).toBe('');
  });

  it('the signed sample of POST /webhook-subscriptions/{id}/test is a valid envelope too, its deep link built as a real one\'s', async () => {
    const before = rx.received.length;
    const res = await t.api('POST', `/api/v1/webhook-subscriptions/${subscriptionId}/test`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, status: 200 });
    const sample = expectContract((await rx.waitFor(before + 1))[before]!);
    expect(sample).toMatchObject({ event_id: res.json().event_id, test: true, partner_id: t.demo.tenant, from: sample.data.message.sender_handle.handle });
    expect(sample.event_id).toMatch(/^test:msg:/);
    expect(sample.message_guid).toBe(sample.event_id.replace(/^test:msg:/, ''));
    // Received on one of the tenant's lines, as a real message is.
    expect(t.demo.phone_line_ids).toContain(sample.line_id);
    expect(sample.data.chat.owner_handle).toMatchObject({ handle: sample.to, is_me: true });

    const real = expectContract(await deliver({ from: '+14155550306', text: 'a real one' }));
    expect(real.test).toBeUndefined();
    expect(sample.data.crm_deep_link).toBe(real.data.crm_deep_link.replace(encodeURIComponent(real.data.chat.id), encodeURIComponent(sample.data.chat.id)));
  });

  it('the check can fail: an undeclared field, a missing one or a wrong type is refused', async () => {
    const env = expectContract(await deliver({ from: '+14155550305', text: 'to be tampered with' }));
    expect(validateBody({ ...env, extra: 1 })).toBe(false);
    const { line_id: _, ...missing } = env;
    expect(validateBody(missing)).toBe(false);
    expect(validateBody({ ...env, data: { ...env.data, chat: { ...env.data.chat, is_group: 0 } } })).toBe(false);
  });
});
