import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deliveryHeaders, hmacHex, signDelivery } from '../../src/delivery/signer.js';

// Independent reference: HMAC-SHA256(secret, "<ts>.<raw body>") in hex.
const ref = (secret: string, ts: number, body: string | Buffer) =>
  createHmac('sha256', secret).update(Buffer.concat([Buffer.from(`${ts}.`), Buffer.from(body)])).digest('hex');

const TS = 1_760_000_000;
const BODY = Buffer.from('{"event":"message.received","text":"h\u00e9llo \u{1F600}"}', 'utf8');

describe('hmacHex', () => {
  it('is HMAC-SHA256 over <ts>.<raw body>, for strings and buffers alike', () => {
    expect(hmacHex('sek', TS, BODY)).toBe(ref('sek', TS, BODY));
    expect(hmacHex('sek', String(TS), BODY.toString('utf8'))).toBe(ref('sek', TS, BODY));
    expect(hmacHex('sek', TS, '')).toBe(ref('sek', TS, '')); // requests without a body sign "<ts>."
  });
});

describe('signDelivery', () => {
  it('signs with one secret in both header forms', () => {
    const sig = signDelivery({ rawBody: BODY, secrets: ['whsec_new'], timestampSeconds: TS });
    const hex = ref('whsec_new', TS, BODY);
    expect(sig).toEqual({ timestamp: TS, webhookSignature: `t=${TS},v1=${hex}`, legacySignature: `v1,${TS},${hex}` });
  });

  it('carries one v1= per secret during a rotation, newest first; legacy carries only the newest', () => {
    const sig = signDelivery({ rawBody: BODY, secrets: ['new', 'old', 'new'], timestampSeconds: TS });
    expect(sig.webhookSignature).toBe(`t=${TS},v1=${ref('new', TS, BODY)},v1=${ref('old', TS, BODY)}`);
    expect(sig.legacySignature).toBe(`v1,${TS},${ref('new', TS, BODY)}`);
  });

  it('refuses to sign without a secret or with a bad timestamp', () => {
    expect(() => signDelivery({ rawBody: BODY, secrets: [], timestampSeconds: TS })).toThrow(TypeError);
    expect(() => signDelivery({ rawBody: BODY, secrets: [''], timestampSeconds: TS })).toThrow(TypeError);
    expect(() => signDelivery({ rawBody: BODY, secrets: ['s'], timestampSeconds: 1.5 })).toThrow(TypeError);
    expect(() => signDelivery({ rawBody: BODY, secrets: ['s'], timestampSeconds: -1 })).toThrow(TypeError);
  });
});

describe('deliveryHeaders', () => {
  const base = {
    eventType: 'message.received',
    eventId: 'evt_123',
    subscriptionId: 'whsub_9',
    rawBody: BODY,
    secrets: ['new', 'old'],
    timestampSeconds: TS,
  };

  it('produces exactly the spec delivery table with the default brand', () => {
    const h = deliveryHeaders(base);
    expect(h).toEqual({
      'X-Webhook-Event': 'message.received',
      'X-Webhook-Event-Id': 'evt_123',
      'X-Webhook-Timestamp': String(TS),
      'X-Webhook-Subscription-Id': 'whsub_9',
      'X-Webhook-Signature': `t=${TS},v1=${ref('new', TS, BODY)},v1=${ref('old', TS, BODY)}`,
      'content-type': 'application/json',
      'x-service-event': 'message.received',
      'x-service-event-id': 'evt_123',
      'x-service-timestamp': String(TS),
      'x-service-signature': `v1,${TS},${ref('new', TS, BODY)}`,
    });
  });

  it('brands the legacy headers and never sends a tenant header', () => {
    const h = deliveryHeaders({ ...base, brand: 'Acme' });
    expect(h['x-acme-signature']).toBe(`v1,${TS},${ref('new', TS, BODY)}`);
    expect(h['x-acme-event-id']).toBe('evt_123');
    expect(Object.keys(h).some((k) => k.startsWith('x-service-'))).toBe(false);
    expect(Object.keys(h).some((k) => /tenant/i.test(k))).toBe(false);
    expect(() => deliveryHeaders({ ...base, brand: 'bad brand' })).toThrow(TypeError);
  });
});
