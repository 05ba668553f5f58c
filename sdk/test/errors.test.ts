/** Each family of the API's errors arrives as its typed class, from the envelope and from /send's flat shape. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  Blueline,
  BlueLineError,
  DeliveryFailedError,
  IdempotencyCollisionError,
  LineUnavailableError,
  NotFoundError,
  PermissionError,
  RangeNotSatisfiableError,
  RateLimitError,
  UnsupportedError,
  ValidationError,
  type ErrorCode,
} from '@blueline/sdk';
import { FIRST_TOUCH_GAP_MS, startService, type Service } from './support/service.js';

let svc: Service;
let client: Blueline;

beforeAll(async () => {
  svc = await startService();
  client = new Blueline({ ...svc.options, maxRetries: 0 });
});
afterAll(() => svc?.stop());

async function failure(p: Promise<unknown>): Promise<BlueLineError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(BlueLineError);
  return err as BlueLineError;
}

describe('typed errors', () => {
  it('validation: the flat send failure and the envelope', async () => {
    const flat = await failure(client.messages.send({ phone: 'nope', body: 'x' }));
    expect(flat).toBeInstanceOf(ValidationError);
    expect(flat).toMatchObject({ status: 400, code: 1003, retryable: false, error: expect.any(String) });
    expect(flat.traceId).toEqual(expect.any(String));
    const effect = await failure(client.messages.send({ phone: '+14155550501', body: 'x', effect: 'nope' as never }));
    expect(effect).toBeInstanceOf(ValidationError);
    expect(effect.code === 4098 || effect.code === 1002).toBe(true);
    const envelope = await failure(client.webhookSubscriptions.create({ url: 'ftp://x', events: ['message.received'] }));
    expect(envelope).toMatchObject({ status: 400, code: 1002 });
    const code: ErrorCode = envelope.code; // typed as the spec's union
    expect(code).toBe(1002);
  });

  it('idempotency collision', async () => {
    await svc.advance(FIRST_TOUCH_GAP_MS);
    await client.messages.send({ phone: '+14155550502', body: 'first', idempotency_key: 'collide-1' });
    const err = await failure(client.messages.send({ phone: '+14155550502', body: 'second', idempotency_key: 'collide-1' }));
    expect(err).toBeInstanceOf(IdempotencyCollisionError);
    expect(err).toMatchObject({ status: 422, code: 'idempotency_collision' });
  });

  it('authentication and permission', async () => {
    const wrong = await failure(new Blueline({ ...svc.options, secret: 'bl_sk_wrong' }).lines.list());
    expect(wrong).toBeInstanceOf(AuthenticationError);
    expect(wrong).toMatchObject({ status: 401, code: 2004 });
    const none = await failure(new Blueline({ baseUrl: svc.url, secret: '', tenant: 'demo' }).lines.list());
    expect(none).toMatchObject({ status: 401, code: 2012 });

    await svc.admin('PATCH', '/admin/v1/tenants/demo', { status: 'suspended' });
    try {
      const suspended = await failure(client.lines.list());
      expect(suspended).toBeInstanceOf(PermissionError);
      expect(suspended).toMatchObject({ status: 403, code: 2005 });
    } finally {
      await svc.admin('PATCH', '/admin/v1/tenants/demo', { status: 'active' });
    }
  });

  it('not found', async () => {
    const err = await failure(client.messages.get('msg_00000000000000000000000000'));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({ status: 404, code: 2003 });
    expect(await failure(client.attachments.get('att_missing'))).toMatchObject({ code: 5001 });
  });

  it('delivery failed and line unavailable (the simulator forces them), with the flat failure ids', async () => {
    await svc.advance(FIRST_TOUCH_GAP_MS);
    const failed = await failure(client.messages.send({ phone: '+15005550001', body: 'unreachable' }));
    expect(failed).toBeInstanceOf(DeliveryFailedError);
    expect(failed).toMatchObject({ status: 502, code: 4001, retryable: true });
    // The message it recorded (failed), so the caller can look it up before sending again.
    const failedId = (failed as DeliveryFailedError).send?.messageId;
    expect(failedId).toMatch(/^msg_/);
    expect(await client.messages.get(failedId!)).toMatchObject({ status: 'failed' });
    await svc.advance(FIRST_TOUCH_GAP_MS);
    const down = await failure(client.messages.send({ phone: '+15005550004', body: 'line down' }));
    expect(down).toBeInstanceOf(LineUnavailableError);
    expect(down).toMatchObject({ status: 503, code: 3002, retryable: true });
  });

  it('unsupported', async () => {
    const sent = await client.messages.send({ phone: '+14155550502', body: 'edit me' });
    await svc.admin('PATCH', `/admin/v1/lines/${sent.phone_line_id}`, { driver_config: { edits: false } });
    const err = await failure(client.messages.edit(sent.message_id, { new_text: 'edited' }));
    expect(err).toBeInstanceOf(UnsupportedError);
    expect(err).toMatchObject({ code: 4099, retryable: false });
  });

  it('rate limit, with retryAfter', async () => {
    await svc.admin('PATCH', '/admin/v1/tenants/demo', { rate_limit: { per_second: 0.01, burst: 1 } });
    try {
      await client.messages.send({ phone: '+14155550502', body: 'one' }).catch(() => undefined);
      const err = await failure(client.messages.send({ phone: '+14155550502', body: 'two' }));
      expect(err).toBeInstanceOf(RateLimitError);
      expect(err).toMatchObject({ status: 429, code: 1007, retryable: true });
      expect(err.retryAfter).toBeGreaterThan(0);
    } finally {
      await svc.admin('PATCH', '/admin/v1/tenants/demo', { rate_limit: { per_second: 20, burst: 40 } });
    }
  });
});

describe('answers without an error code of their own', () => {
  it('a download range outside the file (416, no body) is a RangeNotSatisfiableError with the file\'s size', async () => {
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2]);
    const attachment = await client.attachments.upload(bytes, { filename: 'ten.png', contentType: 'image/png' });
    const part = await client.attachments.download(attachment.attachment_id, { range: 'bytes=2-4' });
    expect(part.status).toBe(206);
    expect([...new Uint8Array(await new Response(part.body).arrayBuffer())]).toEqual([0x4e, 0x47, 0x0d]);
    const err = await client.attachments.download(attachment.attachment_id, { range: 'bytes=10-' }).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(RangeNotSatisfiableError);
    expect(err).toMatchObject({ status: 416, range: 'bytes=10-', size: 10, traceId: expect.stringMatching(/^tr_/) });
  });

  it('a method the path does not take (405 / 2011) carries the methods it takes', async () => {
    // As an SDK newer than the service would meet it: the call arrives with a method the path lacks.
    const asPatch = new Blueline({ ...svc.options, maxRetries: 0, fetch: (url, init) => fetch(url, { ...init, method: 'PATCH' }) });
    const err = await failure(asPatch.lines.list());
    expect(err).toMatchObject({ status: 405, code: 2011, retryable: false, allowedMethods: ['GET', 'HEAD'] });
  });
});
