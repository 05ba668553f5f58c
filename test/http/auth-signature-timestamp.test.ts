/**
 * The `<ts>` of `x-<brand>-signature: v1,<ts>,<hex>`: any run of digits is a timestamp, judged
 * against the 300 s window (2013 outside it, also for a millisecond or absurdly long one), and
 * the HMAC covers `<ts>` exactly as the header carries it.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

const LINES = '/api/v1/phone-numbers';
const hmacHex = (secret: string, signed: string) => createHmac('sha256', secret).update(signed).digest('hex');

describe('the signature timestamp', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(async () => t.close());

  const sigHeader = () => `x-${t.config.headerBrand}-signature`;
  const tenantHeader = () => `x-${t.config.headerBrand}-tenant`;
  // Named tenant (its account's secrets), and none (the signer is identified by its signature).
  const withTenant = [true, false];

  it('answers 2013 (outside the window), not "malformed", to a timestamp in milliseconds or longer', async () => {
    for (const named of withTenant) {
      for (const ts of [String(Date.now()), String(Date.now() * 1000), '9'.repeat(40)]) {
        const res = await t.request({
          method: 'GET',
          url: LINES,
          headers: { [sigHeader()]: `v1,${ts},${hmacHex(t.demo.signing_secret, `${ts}.`)}`, ...(named && { [tenantHeader()]: t.demo.tenant }) },
        });
        expect(res.statusCode, ts).toBe(401);
        expect(res.json().error.code, `${ts} named=${named}`).toBe(2013);
        expect(res.json().error.message).toMatch(/Unix seconds/);
      }
    }
  });

  it('verifies the HMAC over <ts> exactly as sent, leading zeros included', async () => {
    const ts = `00${Math.floor(Date.now() / 1000)}`;
    for (const named of withTenant) {
      const headers = (hex: string) => ({ [sigHeader()]: `v1,${ts},${hex}`, ...(named && { [tenantHeader()]: t.demo.tenant }) });
      const asSent = await t.request({ method: 'GET', url: LINES, headers: headers(hmacHex(t.demo.signing_secret, `${ts}.`)) });
      expect(asSent.statusCode, `named=${named} ${asSent.body}`).toBe(200);
      // Signed over another spelling of the same number: not what the header says was signed.
      const other = await t.request({ method: 'GET', url: LINES, headers: headers(hmacHex(t.demo.signing_secret, `${Number(ts)}.`)) });
      expect(other.statusCode, `named=${named}`).toBe(401);
      expect(other.json().error.code).toBe(2004);
    }
    // With a body too.
    const body = JSON.stringify({ filename: 'a.png', content_type: 'image/png', size_bytes: 10 });
    const post = await t.request({
      method: 'POST',
      url: '/api/v1/attachments',
      payload: body,
      headers: { 'content-type': 'application/json', [sigHeader()]: `v1,${ts},${hmacHex(t.demo.signing_secret, `${ts}.${body}`)}` },
    });
    expect(post.statusCode, post.body).toBe(200);
  });

  it('still refuses a timestamp that is not a run of digits as malformed (2004)', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const ts of [`${now}.5`, `-${now}`, `${now}e0`, ` ${now}`, '']) {
      const res = await t.request({ method: 'GET', url: LINES, headers: { [sigHeader()]: `v1,${ts},${hmacHex(t.demo.signing_secret, `${ts}.`)}` } });
      expect(res.statusCode, ts).toBe(401);
      expect(res.json().error.code, ts).toBe(2004);
    }
  });
});
