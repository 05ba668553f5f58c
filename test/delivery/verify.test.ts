import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  verifyWebhook,
  verifyWebhookOrThrow,
  WebhookVerificationError,
  type VerifyWebhookOptions,
} from '../../src/delivery/verify.js';
import { deliveryHeaders } from '../../src/delivery/signer.js';

// Computed independently of the code under test.
const ref = (secret: string, ts: number | string, body: Buffer) =>
  createHmac('sha256', secret).update(Buffer.concat([Buffer.from(`${ts}.`), body])).digest('hex');

const SECRET = 'whsec_current';
const NOW = 1_760_000_000;
const BODY = Buffer.from('{"event_id":"evt_1","data":{"message":{"text":"caf\u00e9"}}}', 'utf8');
const HEX = ref(SECRET, NOW, BODY);

function verify(headers: Record<string, string | string[]>, extra: Partial<VerifyWebhookOptions> = {}) {
  return verifyWebhook({ rawBody: BODY, headers, secret: SECRET, nowSeconds: NOW, ...extra } as VerifyWebhookOptions);
}

describe('verifyWebhook', () => {
  it('accepts the X-Webhook-Signature form, any header case', () => {
    expect(verify({ 'X-Webhook-Signature': `t=${NOW},v1=${HEX}` })).toEqual({ ok: true, timestamp: NOW });
    expect(verify({ 'x-webhook-signature': `t=${NOW},v1=${HEX.toUpperCase()}` })).toEqual({ ok: true, timestamp: NOW });
    expect(verify({ 'x-webhook-signature': `t=${NOW}, v1=${HEX}` }).ok).toBe(true);
  });

  it('accepts the legacy form, with a configurable brand', () => {
    expect(verify({ 'x-service-signature': `v1,${NOW},${HEX}` })).toEqual({ ok: true, timestamp: NOW });
    expect(verify({ 'X-Acme-Signature': `v1,${NOW},${HEX}` }, { brand: 'acme' }).ok).toBe(true);
    expect(verify({ 'x-service-signature': `v1,${NOW},${HEX}` }, { brand: 'acme' })).toEqual({ ok: false, reason: 'missing_signature' });
  });

  it('accepts fetch Headers and a raw string body', () => {
    const headers = new Headers({ 'X-Webhook-Signature': `t=${NOW},v1=${HEX}` });
    expect(verifyWebhook({ rawBody: BODY.toString('utf8'), headers, secret: SECRET, nowSeconds: NOW }).ok).toBe(true);
    expect(verifyWebhook({ rawBody: new Uint8Array(BODY), headers, secret: SECRET, nowSeconds: NOW }).ok).toBe(true);
  });

  it('accepts a header with several v1= values when any one matches', () => {
    const other = ref('some-other-secret', NOW, BODY);
    expect(verify({ 'x-webhook-signature': `t=${NOW},v1=${other},v1=${HEX}` }).ok).toBe(true);
    expect(verify({ 'x-webhook-signature': `t=${NOW},v1=${other}` })).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('checks every configured secret', () => {
    const h = { 'x-webhook-signature': `t=${NOW},v1=${HEX}` };
    expect(verifyWebhook({ rawBody: BODY, headers: h, secrets: ['old', SECRET], nowSeconds: NOW }).ok).toBe(true);
  });

  it('verifies what the signer produces, both forms, through a rotation', () => {
    const headers = deliveryHeaders({
      eventType: 'message.received',
      eventId: 'evt_1',
      subscriptionId: 'sub_1',
      rawBody: BODY,
      secrets: ['new', 'old'],
      timestampSeconds: NOW,
    });
    expect(verifyWebhook({ rawBody: BODY, headers, secret: 'old', nowSeconds: NOW }).ok).toBe(true);
    expect(verifyWebhook({ rawBody: BODY, headers, secret: 'new', nowSeconds: NOW }).ok).toBe(true);
    const legacyOnly = { 'x-service-signature': headers['x-service-signature'] };
    expect(verifyWebhook({ rawBody: BODY, headers: legacyOnly, secret: 'new', nowSeconds: NOW }).ok).toBe(true);
    // Documented: the legacy header carries only the newest secret's signature.
    expect(verifyWebhook({ rawBody: BODY, headers: legacyOnly, secret: 'old', nowSeconds: NOW }).ok).toBe(false);
  });

  it('rejects a tampered body and a wrong secret', () => {
    const h = { 'x-webhook-signature': `t=${NOW},v1=${HEX}` };
    const tampered = Buffer.from(BODY);
    tampered[tampered.length - 3] ^= 1;
    expect(verifyWebhook({ rawBody: tampered, headers: h, secret: SECRET, nowSeconds: NOW })).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(verify(h, { secret: 'wrong' })).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(verify({ 'x-service-signature': `v1,${NOW},${HEX}` }, { secret: 'wrong' })).toEqual({ ok: false, reason: 'signature_mismatch' });
    // A signature for another timestamp does not transfer.
    expect(verify({ 'x-webhook-signature': `t=${NOW + 1},v1=${HEX}` })).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('allows 300 s of skew either way and rejects 301 s', () => {
    for (const ts of [NOW - 300, NOW + 300]) {
      expect(verify({ 'x-webhook-signature': `t=${ts},v1=${ref(SECRET, ts, BODY)}` }).ok).toBe(true);
    }
    for (const ts of [NOW - 301, NOW + 301]) {
      const hex = ref(SECRET, ts, BODY);
      expect(verify({ 'x-webhook-signature': `t=${ts},v1=${hex}` })).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
      expect(verify({ 'x-service-signature': `v1,${ts},${hex}` })).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    }
    const old = NOW - 1000;
    expect(verify({ 'x-webhook-signature': `t=${old},v1=${ref(SECRET, old, BODY)}` }, { toleranceSeconds: 1000 }).ok).toBe(true);
  });

  it('uses the real clock by default', () => {
    const now = Math.floor(Date.now() / 1000);
    const headers = { 'x-webhook-signature': `t=${now},v1=${ref(SECRET, now, BODY)}` };
    expect(verifyWebhook({ rawBody: BODY, headers, secret: SECRET }).ok).toBe(true);
  });

  it('reports a missing signature', () => {
    expect(verify({})).toEqual({ ok: false, reason: 'missing_signature' });
    expect(verify({ 'x-webhook-signature': '  ' })).toEqual({ ok: false, reason: 'missing_signature' });
  });

  const short = HEX.slice(0, 62);
  const nonHex = `${HEX.slice(0, 63)}g`;
  it.each([
    ['x-service-signature', 'v1'],
    ['x-service-signature', 'v1,abc,00'],
    ['x-service-signature', `v1,${NOW}`],
    ['x-service-signature', `v2,${NOW},${HEX}`],
    ['x-service-signature', `v1,${NOW},${HEX},${HEX}`],
    ['x-service-signature', `v1,${NOW},${short}`],
    ['x-service-signature', `v1,${NOW},${nonHex}`],
    ['x-service-signature', `v1,-${NOW},${HEX}`],
    ['x-service-signature', `v1,${NOW}.5,${HEX}`],
    ['x-webhook-signature', 't=1'],
    ['x-webhook-signature', `v1=${HEX}`],
    ['x-webhook-signature', `t=${NOW}`],
    ['x-webhook-signature', `t=${NOW},v1=${short}`],
    ['x-webhook-signature', `t=${NOW},v1=${nonHex}`],
    ['x-webhook-signature', `t=${NOW},v1=${HEX}00`],
    ['x-webhook-signature', `t=${NOW},v1=${HEX},v1=zz`],
    ['x-webhook-signature', `t=abc,v1=${HEX}`],
    ['x-webhook-signature', `t=${NOW},t=${NOW},v1=${HEX}`],
    ['x-webhook-signature', `t=${NOW},v1=${HEX},garbage`],
    ['x-webhook-signature', `v1,${NOW},${HEX}`], // legacy format in the new header
    ['x-webhook-signature', `t=${NOW},${Array(17).fill(`v1=${HEX}`).join(',')}`],
    ['x-webhook-signature', 'x'.repeat(5000)],
  ])('rejects malformed %s: %s without throwing', (name, value) => {
    expect(verify({ [name]: value })).toEqual({ ok: false, reason: 'malformed_signature' });
  });

  it('ignores unknown signature schemes next to v1', () => {
    expect(verify({ 'x-webhook-signature': `t=${NOW},v0=deadbeef,v1=${HEX}` }).ok).toBe(true);
  });

  it('lets X-Webhook-Signature decide when both headers are present', () => {
    const headers = { 'x-webhook-signature': `t=${NOW},v1=${'0'.repeat(64)}`, 'x-service-signature': `v1,${NOW},${HEX}` };
    expect(verify(headers)).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('treats a repeated signature header as malformed', () => {
    expect(verify({ 'x-webhook-signature': [`t=${NOW},v1=${HEX}`, `t=${NOW},v1=${HEX}`] })).toEqual({
      ok: false,
      reason: 'malformed_signature',
    });
  });

  it('throws TypeError on misuse: no secret, or a parsed body instead of raw bytes', () => {
    const headers = { 'x-webhook-signature': `t=${NOW},v1=${HEX}` };
    expect(() => verifyWebhook({ rawBody: BODY, headers, secrets: [] })).toThrow(TypeError);
    expect(() => verifyWebhook({ rawBody: { event_id: 'evt_1' } as unknown as Buffer, headers, secret: SECRET })).toThrow(/raw request body/);
  });
});

describe('verifyWebhookOrThrow', () => {
  it('returns the timestamp or throws a 401 error with the reason', () => {
    expect(verifyWebhookOrThrow({ rawBody: BODY, headers: { 'x-webhook-signature': `t=${NOW},v1=${HEX}` }, secret: SECRET, nowSeconds: NOW })).toEqual({
      timestamp: NOW,
    });
    try {
      verifyWebhookOrThrow({ rawBody: BODY, headers: {}, secret: SECRET, nowSeconds: NOW });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(WebhookVerificationError);
      expect(err).toMatchObject({ reason: 'missing_signature', statusCode: 401 });
    }
  });
});

describe('the documented receiver pattern', () => {
  it('works end to end over node:http with the raw body', async () => {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const result = verifyWebhook({ rawBody: Buffer.concat(chunks), headers: req.headers, secret: SECRET });
        res.writeHead(result.ok ? 204 : 401).end(result.ok ? undefined : result.reason);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const send = (headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers, body: BODY }).then(async (r) => [r.status, await r.text()]);
    try {
      const ts = Math.floor(Date.now() / 1000);
      const headers = deliveryHeaders({ eventType: 'message.received', eventId: 'evt_1', subscriptionId: 's', rawBody: BODY, secrets: [SECRET], timestampSeconds: ts });
      expect(await send(headers)).toEqual([204, '']);
      expect(await send({ ...headers, 'X-Webhook-Signature': `t=${ts},v1=${'0'.repeat(64)}` })).toEqual([401, 'signature_mismatch']);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
