/**
 * verifyWebhook against real deliveries: the service signs, a loopback receiver verifies with
 * the SDK (good, tampered, stale, rotated secret); signTestWebhook round-trips.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Blueline } from '@blueline/sdk';
import { checkWebhookSignature, signTestWebhook, verifyWebhook, WebhookVerificationError, type InboundPart } from '@blueline/sdk/webhooks';
import { startService, until, type Service } from './support/service.js';
import { startReceiver, type Receiver } from '../../test/support/receiver.js';

let svc: Service;
let client: Blueline;
let receiver: Receiver;

beforeAll(async () => {
  svc = await startService();
  client = new Blueline(svc.options);
  receiver = await startReceiver(204);
});
afterAll(async () => {
  await receiver?.close();
  await svc?.stop();
});

const reasonOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.reason;
    throw err;
  }
  return 'ok';
};

describe('verifyWebhook on real deliveries', () => {
  it('accepts a good delivery, refuses a tampered, stale or future one, and follows a rotation', async () => {
    const sub = await client.webhookSubscriptions.create({ url: receiver.url, events: ['message.received'] });
    await svc.inbound('+14155550601', 'signed hello');
    const [delivery] = await receiver.waitFor(1);
    expect(delivery).toBeDefined();
    const { body, headers } = delivery!;

    const event = verifyWebhook(body, headers, sub.secret);
    expect(event).toMatchObject({ event_type: 'message.received', data: { message: { direction: 'inbound' } } });
    // A delivery is any event type the subscription lists: narrowed on event_type.
    if (event.event_type !== 'message.received') throw new Error('expected message.received');
    expect(event.data.message.parts).toEqual([{ type: 'text', value: 'signed hello' }]);
    // Typed from the contract: parts narrow by type, the legacy aliases are always strings.
    const texts = event.data.message.parts.map((p: InboundPart) => (p.type === 'text' ? p.value : p.attachment_id));
    const aliases: string[] = [event.from, event.to, event.text, event.message_guid, event.line_id];
    expect(texts).toEqual([event.text]);
    expect(aliases.every((v) => v.length > 0)).toBe(true);

    const tampered = Buffer.from(body.toString('utf8').replace('signed hello', 'signed hellO'));
    expect(reasonOf(() => verifyWebhook(tampered, headers, sub.secret))).toBe('signature_mismatch');
    expect(reasonOf(() => verifyWebhook(body, headers, 'whsec_wrong'))).toBe('signature_mismatch');

    const ts = Number(headers['x-webhook-timestamp']);
    expect(reasonOf(() => verifyWebhook(body, headers, sub.secret, { nowSeconds: ts + 301 }))).toBe('timestamp_out_of_tolerance');
    expect(reasonOf(() => verifyWebhook(body, headers, sub.secret, { nowSeconds: ts - 301 }))).toBe('timestamp_out_of_tolerance');
    expect(reasonOf(() => verifyWebhook(body, headers, sub.secret, { nowSeconds: ts + 300 }))).toBe('ok');
    expect(reasonOf(() => verifyWebhook(body, headers, sub.secret, { nowSeconds: ts + 600, toleranceSeconds: 900 }))).toBe('ok');

    // The legacy header alone verifies too.
    const legacy = { 'x-service-signature': headers['x-service-signature'] as string };
    expect(checkWebhookSignature(body, legacy, sub.secret).ok).toBe(true);

    // Rotation: the next delivery carries both secrets' signatures; either verifies.
    const rotated = await client.webhookSubscriptions.rotateSecret(sub.id, { overlap_hours: 1 });
    await svc.inbound('+14155550601', 'after rotation');
    const second = (await receiver.waitFor(2))[1]!;
    expect(String(second.headers['x-webhook-signature']).match(/v1=/g)).toHaveLength(2);
    expect(reasonOf(() => verifyWebhook(second.body, second.headers, sub.secret))).toBe('ok');
    expect(reasonOf(() => verifyWebhook(second.body, second.headers, rotated.secret))).toBe('ok');
    expect(reasonOf(() => verifyWebhook(second.body, second.headers, [rotated.secret, sub.secret]))).toBe('ok');
    expect(reasonOf(() => verifyWebhook(second.body, second.headers, 'whsec_other'))).toBe('signature_mismatch');

    // The event log saw both deliveries succeed.
    const records = await until('delivered events', async () => {
      const page = await client.events.list({ status: 'delivered' }).page();
      return page.events.length >= 2 ? page.events : undefined;
    });
    expect(records).toHaveLength(2);
  });

  it('signTestWebhook produces what verifyWebhook accepts, in both header forms', () => {
    const payload = { event: 'message.received', event_type: 'message.received', event_id: 'test:msg:1', data: {} };
    const { body, headers } = signTestWebhook(payload, 'whsec_test');
    expect(verifyWebhook(body, headers, 'whsec_test')).toEqual(payload);
    expect(checkWebhookSignature(body, { 'x-service-signature': headers['x-service-signature']! }, 'whsec_test').ok).toBe(true);
    expect(() => verifyWebhook(body + ' ', headers, 'whsec_test')).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(JSON.parse(body) as never, headers, 'whsec_test')).toThrow(TypeError);
  });
});
