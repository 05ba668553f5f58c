/**
 * Retries through a misbehaving network (a real proxy in front of the real service): a send
 * whose answer was lost is retried with the same idempotency key and goes out once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Blueline, BlueLineConnectionError, DeliveryFailedError, LineUnavailableError, ValidationError } from '@blueline/sdk';
import { FIRST_TOUCH_GAP_MS, startService, type Service } from './support/service.js';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy.js';
import { freePort } from '../../test/support/ports.js';

let svc: Service;
let proxy: FaultProxy;
let client: Blueline;

beforeAll(async () => {
  svc = await startService();
  proxy = await startFaultProxy(svc.url);
  client = new Blueline({ ...svc.options, baseUrl: proxy.url, retryBaseDelayMs: 20 });
});
afterAll(async () => {
  await proxy?.close();
  await svc?.stop();
});

const bodyOf = (i: number) => JSON.parse(proxy.seen[i]!.body) as { idempotency_key?: string };
const sendsOnly = (_m: string, url: string) => url === '/api/v1/send';

describe('retries', () => {
  it('a send whose answer was lost is retried with its generated key and sent once', async () => {
    proxy.seen.length = 0;
    proxy.plan(['lose-answer'], sendsOnly);
    const sent = await client.messages.send({ phone: '+14155550201', body: 'exactly once' });
    expect(sent.status).toBe('sent');
    expect(proxy.seen.map((r) => r.fault)).toEqual(['lose-answer', 'pass']);
    const key = bodyOf(0).idempotency_key;
    expect(key).toMatch(/^sdk_/);
    expect(bodyOf(1).idempotency_key).toBe(key);
    // The device was asked once: the retry got the recorded answer.
    const log = await svc.deviceLog(sent.phone_line_id!);
    expect(log.filter((e) => JSON.stringify(e).includes('exactly once'))).toHaveLength(1);
  });

  it("the caller's own key wins, across retries", async () => {
    proxy.seen.length = 0;
    proxy.plan(['lose-answer', 'reset'], sendsOnly);
    const sent = await client.messages.send({ phone: '+14155550201', body: 'mine', idempotency_key: 'order-42' });
    expect(proxy.seen.map((r) => bodyOf(proxy.seen.indexOf(r)).idempotency_key)).toEqual(['order-42', 'order-42', 'order-42']);
    const again = await client.messages.send({ phone: '+14155550201', body: 'mine', idempotency_key: 'order-42' });
    expect(again.message_id).toBe(sent.message_id);
    const log = await svc.deviceLog(sent.phone_line_id!);
    expect(log.filter((e) => JSON.stringify(e).includes('"mine"'))).toHaveLength(1);
  });

  it('chat creation carries a key too, so a lost answer does not create twice', async () => {
    await svc.advance(FIRST_TOUCH_GAP_MS);
    proxy.seen.length = 0;
    proxy.plan(['lose-answer'], (_m, url) => url === '/api/v1/chats');
    const created = await client.chats.create({ to: ['+14155550211', '+14155550212'], message: { parts: [{ type: 'text', value: 'group once' }] } });
    expect(proxy.seen).toHaveLength(2);
    expect(bodyOf(0).idempotency_key).toBe(bodyOf(1).idempotency_key);
    const all = await svc.allSent();
    expect(all.filter((e) => JSON.stringify(e).includes('group once'))).toHaveLength(1);
    expect(created.chat.id).toMatch(/^ch_/);
  });

  it('never retries an ambiguous failure of a call without a key (an edit)', async () => {
    const sent = await client.messages.send({ phone: '+14155550201', body: 'to edit' });
    proxy.seen.length = 0;
    proxy.plan(['lose-answer'], (_m, url) => url.endsWith('/edit'));
    const err = await client.messages.edit(sent.message_id, { new_text: 'edited once' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BlueLineConnectionError);
    expect((err as BlueLineConnectionError).ambiguous).toBe(true);
    expect(proxy.seen).toHaveLength(1);
  });

  it('retries a 503 with Retry-After after waiting for it, and an unambiguous reset of a read', async () => {
    proxy.seen.length = 0;
    const busy = JSON.stringify({ success: false, error: { status: 503, code: 3002, message: 'busy', retryable: true, retry_after: 1 }, trace_id: 't' });
    proxy.plan([{ status: 503, headers: { 'retry-after': '1' }, body: busy }, 'reset']);
    const started = Date.now();
    expect(await client.lines.list()).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(proxy.seen.map((r) => r.fault)).toEqual([expect.objectContaining({ status: 503 }), 'reset', 'pass']);
  });

  it('does not retry what the API calls not retryable, and stops after maxRetries', async () => {
    proxy.seen.length = 0;
    const err = await client.messages.send({ phone: 'not a phone', body: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(proxy.seen).toHaveLength(1);

    proxy.seen.length = 0;
    const busy = { status: 503, body: JSON.stringify({ success: false, error: { status: 503, code: 3002, message: 'busy', retryable: true }, trace_id: 't' }) };
    proxy.plan([busy, busy, busy, busy]);
    const limited = new Blueline({ ...svc.options, baseUrl: proxy.url, maxRetries: 2, retryBaseDelayMs: 10 });
    await expect(limited.lines.list()).rejects.toBeInstanceOf(LineUnavailableError);
    expect(proxy.seen).toHaveLength(3);
    proxy.plan([]);
  });

  // A retry of it is a new attempt (the server records a failed send's message and frees its
  // key), whose answer would replace this one: the SDK once came back from three attempts on two
  // lines with "every line at its first-touch limit", the recipient's real failure and both
  // message ids lost.
  it('does not repeat a send whose failure recorded a message: the error carries that message', async () => {
    await svc.advance(FIRST_TOUCH_GAP_MS);
    proxy.seen.length = 0;
    const err = (await client.messages.send({ phone: '+15005550001', body: 'to nobody' }).catch((e: unknown) => e)) as DeliveryFailedError;
    expect(err).toBeInstanceOf(DeliveryFailedError);
    expect(err).toMatchObject({ code: 4001, retryable: true, messageId: expect.stringMatching(/^msg_/) });
    expect(proxy.seen.filter((r) => r.url === '/api/v1/send')).toHaveLength(1);
    expect((await client.messages.get(err.messageId!)).status).toBe('failed');
  });

  it('retries any call when the connection could not be made', async () => {
    let calls = 0;
    const counting: typeof fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    const dead = new Blueline({ ...svc.options, baseUrl: `http://127.0.0.1:${await freePort()}`, maxRetries: 1, retryBaseDelayMs: 10, fetch: counting });
    const err = await dead.messages.edit('msg_x', { new_text: 'y' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BlueLineConnectionError);
    expect((err as BlueLineConnectionError).ambiguous).toBe(false);
    expect(calls).toBe(2);
  });
});
