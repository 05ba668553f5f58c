import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../support/stores.js';
import { signRequest, startTestApp, type TestApp } from '../support/app.js';

const LINES = '/api/v1/phone-numbers';

describe.each(STORE_KINDS)('authentication on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(async () => t.close());

  const sigHeader = () => `x-${t.config.headerBrand}-signature`;
  const tenantHeader = () => `x-${t.config.headerBrand}-tenant`;

  it('lists the tenant lines with a bearer token, in the spec shape', async () => {
    const res = await t.api('GET', LINES);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.phone_numbers).toHaveLength(2);
    for (const line of body.phone_numbers) {
      expect(Object.keys(line).sort()).toEqual(['capabilities', 'id', 'is_active', 'phone_line_id', 'phone_number', 'service']);
      expect(line.id).toBe(line.phone_line_id);
      expect(line.phone_number).toMatch(/^\+[1-9]\d+$/);
      expect(line.service).toBe('imessage');
      expect(line.is_active).toBe(true);
      expect(line.capabilities).toEqual(expect.arrayContaining(['imessage', 'send', 'receive']));
    }
    expect(body.phone_numbers.map((l: { id: string }) => l.id).sort()).toEqual([...t.demo.phone_line_ids].sort());
    expect(res.headers['x-trace-id']).toMatch(/^tr_[0-9a-f]{24}$/);
  });

  it('refuses unknown query parameters with 1002, as every route does', async () => {
    const res = await t.api('GET', `${LINES}?page=2`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 1002, message: "unknown query field 'page'" });
  });

  it('answers 2012 with the envelope and trace id when no credentials are sent', async () => {
    const res = await t.request({ method: 'GET', url: LINES });
    expect(res.statusCode).toBe(401);
    const body = res.json();
    expect(body).toEqual({
      success: false,
      error: { status: 401, code: 2012, message: expect.any(String), retryable: false },
      trace_id: res.headers['x-trace-id'],
    });
  });

  it('answers 2004 to a wrong bearer token and to a non-bearer Authorization', async () => {
    for (const authorization of ['Bearer bl_sk_wrong', 'Basic dXNlcjpwYXNz', 'Bearer']) {
      const res = await t.request({ method: 'GET', url: LINES, headers: { authorization } });
      expect(res.statusCode, authorization).toBe(401);
      expect(res.json().error.code, authorization).toBe(2004);
    }
  });

  it('accepts an HMAC signature over "<ts>." for a request without a body', async () => {
    const res = await t.request({
      method: 'GET',
      url: LINES,
      headers: { [sigHeader()]: signRequest(t.demo.signing_secret, ''), [tenantHeader()]: 'demo' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().phone_numbers).toHaveLength(2);
  });

  it('checks the HMAC over the exact raw body bytes', async () => {
    // No tenant route takes a body yet; an unknown route still authenticates
    // first, so a good signature reaches the 404 and a bad one stops at 401.
    const raw = '{"b": 1,  "a":"é"}';
    const good = await t.request({
      method: 'POST',
      url: '/api/v1/nothing-here',
      payload: raw,
      headers: { 'content-type': 'application/json', [sigHeader()]: signRequest(t.demo.signing_secret, raw), [tenantHeader()]: 'demo' },
    });
    expect(good.statusCode).toBe(404);
    expect(good.json().error.code).toBe(2011);
    const reordered = '{"a":"é","b":1}';
    const bad = await t.request({
      method: 'POST',
      url: '/api/v1/nothing-here',
      payload: reordered,
      headers: { 'content-type': 'application/json', [sigHeader()]: signRequest(t.demo.signing_secret, raw), [tenantHeader()]: 'demo' },
    });
    expect(bad.statusCode).toBe(401);
    expect(bad.json().error.code).toBe(2004);
  });

  it('takes no body it cannot sign-check: a text/plain body is 415, whatever the signature covers', async () => {
    const raw = 'anything at all';
    for (const signedOver of ['', raw]) {
      const res = await t.request({
        method: 'POST',
        url: '/api/v1/send',
        payload: raw,
        headers: { 'content-type': 'text/plain', [sigHeader()]: signRequest(t.demo.signing_secret, signedOver), [tenantHeader()]: 'demo' },
      });
      expect(res.statusCode, signedOver).toBe(415);
      // /send answers in its flat failure shape (spec rule 5).
      expect(res.json()).toMatchObject({ status: 'failed', code: 1002, retryable: false });
    }
  });

  it('answers 2013 outside the 300 s window in both directions, and accepts inside it', async () => {
    const now = Math.floor(Date.now() / 1000);
    const call = (ts: number) =>
      t.request({
        method: 'GET',
        url: LINES,
        headers: { [sigHeader()]: signRequest(t.demo.signing_secret, '', ts), [tenantHeader()]: 'demo' },
      });
    expect((await call(now - 310)).json().error.code).toBe(2013);
    expect((await call(now + 310)).json().error.code).toBe(2013);
    expect((await call(now - 290)).statusCode).toBe(200);
    expect((await call(now + 290)).statusCode).toBe(200);
  });

  it('rejects malformed signature headers with 2004, never a 5xx', async () => {
    const ts = Math.floor(Date.now() / 1000);
    const hex = signRequest(t.demo.signing_secret, '', ts).split(',')[2]!;
    const cases = [
      'v1',
      'v1,abc,00',
      `v1,${ts}`,
      `v1,${ts},${hex.slice(0, 63)}`,
      `v1,${ts},${hex}00`,
      `v1,${ts},${'z'.repeat(64)}`,
      `v1,${ts},${hex},extra`,
      `v2,${ts},${hex}`,
      `v1,12a4,${hex}`,
      `v1,-${ts},${hex}`,
      `t=${ts},v1=${hex}`,
      '💥'.repeat(20),
    ];
    for (const header of cases) {
      const res = await t.request({ method: 'GET', url: LINES, headers: { [sigHeader()]: header, [tenantHeader()]: 'demo' } });
      expect(res.statusCode, header).toBe(401);
      expect(res.json().error.code, header).toBe(2004);
    }
  });

  it('identifies a single-tenant account from its HMAC signature alone (no tenant header)', async () => {
    for (let i = 0; i < 2; i++) {
      // Once from the database, once from the cached candidates.
      const get = await t.request({ method: 'GET', url: LINES, headers: { [sigHeader()]: signRequest(t.demo.signing_secret, '') } });
      expect(get.statusCode, get.body).toBe(200);
      expect(get.json().phone_numbers.map((l: { id: string }) => l.id).sort()).toEqual([...t.demo.phone_line_ids].sort());
    }
    // With a body: the signature covers the exact bytes.
    const body = JSON.stringify({ filename: 'a.png', content_type: 'image/png', size_bytes: 10 });
    const post = await t.request({ method: 'POST', url: '/api/v1/attachments', payload: body, headers: { 'content-type': 'application/json', [sigHeader()]: signRequest(t.demo.signing_secret, body) } });
    expect(post.statusCode, post.body).toBe(200);
    // A wrong signature, or the right one over other bytes, stays 2004.
    for (const signature of [signRequest(t.demo.signing_secret + 'x', ''), signRequest(t.demo.signing_secret, 'other body')]) {
      const res = await t.request({ method: 'GET', url: LINES, headers: { [sigHeader()]: signature } });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe(2004);
    }
    // A tenant route (events) still needs the header once the signer is known.
    const events = await t.request({ method: 'GET', url: '/api/v1/events', headers: { [sigHeader()]: signRequest(t.demo.signing_secret, '') } });
    expect(events.json().error.code).toBe(2001);
  });

  it('tells the signer a tenant named with HMAC is not its own (2001), and anyone else nothing (2004 either way)', async () => {
    // A typo in the slug, correctly signed: the answer says so, as it does for a bearer token.
    for (const body of ['', JSON.stringify({ filename: 'a.png', content_type: 'image/png', size_bytes: 10 })]) {
      const typo = await t.request({
        method: body ? 'POST' : 'GET',
        url: body ? '/api/v1/attachments' : LINES,
        ...(body && { payload: body }),
        headers: { ...(body && { 'content-type': 'application/json' }), [sigHeader()]: signRequest(t.demo.signing_secret, body), [tenantHeader()]: 'demo-typo' },
      });
      expect(typo.statusCode, typo.body).toBe(404);
      expect(typo.json().error).toMatchObject({ code: 2001, message: 'tenant "demo-typo" not found' });
    }
    // A wrong signature learns nothing of the slug: the same 401 for a tenant that exists and one that doesn't.
    const wrong = signRequest(t.demo.signing_secret + 'x', '');
    const [existing, unknown] = await Promise.all(
      [t.demo.tenant, 'no-such-tenant'].map((slug) => t.request({ method: 'GET', url: LINES, headers: { [sigHeader()]: wrong, [tenantHeader()]: slug } })),
    );
    for (const res of [existing!, unknown!]) {
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toMatchObject({ code: 2004, message: 'signature does not match' });
    }
    expect({ ...existing!.json(), trace_id: '' }).toEqual({ ...unknown!.json(), trace_id: '' });
  });

  describe('multi-tenant accounts and isolation', () => {
    let multi: { secret: string; accountId: string };
    let other: { secret: string; accountId: string };
    beforeAll(async () => {
      const a = (await t.admin('POST', '/admin/v1/accounts', { name: 'Agency', multi_tenant: true })).json();
      multi = { secret: a.signing_secret, accountId: a.account.id };
      for (const [slug, n] of [['agency-east', '+14155550111'], ['agency-west', '+14155550122']] as const) {
        expect((await t.admin('POST', '/admin/v1/tenants', { account_id: a.account.id, slug })).statusCode).toBe(201);
        expect((await t.admin('POST', '/admin/v1/lines', { tenant: slug, phone_number: n, driver: 'simulator' })).statusCode).toBe(201);
      }
      const b = (await t.admin('POST', '/admin/v1/accounts', { name: 'Other' })).json();
      other = { secret: b.signing_secret, accountId: b.account.id };
      await t.admin('POST', '/admin/v1/tenants', { account_id: b.account.id, slug: 'other-co' });
      await t.admin('POST', '/admin/v1/lines', { tenant: 'other-co', phone_number: '+14155550133', driver: 'simulator' });
    });

    it('selects each of its tenants with the tenant header, by bearer and by HMAC', async () => {
      for (const [slug, number] of [['agency-east', '+14155550111'], ['agency-west', '+14155550122']]) {
        const bearer = await t.api('GET', LINES, undefined, { secret: multi.secret, tenant: slug });
        expect(bearer.json().phone_numbers.map((l: { phone_number: string }) => l.phone_number)).toEqual([number]);
        const hmac = await t.request({
          method: 'GET',
          url: LINES,
          headers: { [sigHeader()]: signRequest(multi.secret, ''), [tenantHeader()]: slug },
        });
        expect(hmac.json().phone_numbers.map((l: { phone_number: string }) => l.phone_number)).toEqual([number]);
      }
    });

    it('is told to name the tenant when it signs without the header (2001, as with a bearer token); a rotated-out secret is 2004', async () => {
      const res = await t.request({ method: 'GET', url: LINES, headers: { [sigHeader()]: signRequest(multi.secret, '') } });
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toMatchObject({ code: 2001, message: expect.stringContaining('x-service-tenant') });
      // Another single-tenant account is told apart from the demo one by its own secret.
      const own = await t.request({ method: 'GET', url: LINES, headers: { [sigHeader()]: signRequest(other.secret, '') } });
      expect(own.json().phone_numbers.map((l: { phone_number: string }) => l.phone_number)).toEqual(['+14155550133']);
      // Rotated without overlap: the old secret identifies no one at once (the cache is cleared), the new one does.
      const rotated = (await t.admin('POST', `/admin/v1/accounts/${other.accountId}/rotate-secret`, { overlap_hours: 0 })).json();
      const old = await t.request({ method: 'GET', url: LINES, headers: { [sigHeader()]: signRequest(other.secret, '') } });
      expect(old.json().error.code).toBe(2004);
      const next = await t.request({ method: 'GET', url: LINES, headers: { [sigHeader()]: signRequest(rotated.signing_secret, '') } });
      expect(next.statusCode).toBe(200);
      other.secret = rotated.signing_secret;
    });

    it('needs the tenant header on a multi-tenant account (2001), also when its credentials are cached', async () => {
      // The first request loads the account and its tenants, the second finds them in memory.
      for (let i = 0; i < 2; i++) {
        const res = await t.api('GET', LINES, undefined, { secret: multi.secret });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toMatchObject({ success: false, error: { code: 2001 } });
        expect(res.json().error.message).toContain('x-service-tenant');
        expect(res.headers['x-trace-id']).toBe(res.json().trace_id);
      }
    });

    it('never shows or accepts another account\'s tenant (2001, same as unknown), by bearer and by HMAC', async () => {
      const foreign = await t.api('GET', LINES, undefined, { secret: other.secret, tenant: 'agency-east' });
      const unknown = await t.api('GET', LINES, undefined, { secret: other.secret, tenant: 'agency-nowhere' });
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json().error.code).toBe(2001);
      expect(foreign.json().error.message).toBe(unknown.json().error.message.replace('agency-nowhere', 'agency-east'));
      for (const slug of ['agency-east', 'agency-nowhere']) {
        const signed = await t.request({ method: 'GET', url: LINES, headers: { [sigHeader()]: signRequest(other.secret, ''), [tenantHeader()]: slug } });
        expect(signed.statusCode, slug).toBe(404);
        expect(signed.json().error, slug).toEqual({ ...foreign.json().error, message: foreign.json().error.message.replace('agency-east', slug) });
      }
      const own = await t.api('GET', LINES, undefined, { secret: other.secret });
      expect(own.json().phone_numbers.map((l: { phone_number: string }) => l.phone_number)).toEqual(['+14155550133']);
      const demo = await t.api('GET', LINES);
      expect(JSON.stringify(demo.json())).not.toContain('+14155550133');
    });

    it('answers 2001 for odd tenant slugs without failing', async () => {
      for (const slug of ['../etc/passwd', 'UPPER', 'a'.repeat(300), 'x y', "o'hara", '%00', '-lead']) {
        const res = await t.api('GET', LINES, undefined, { secret: multi.secret, tenant: slug });
        expect(res.statusCode, slug).toBe(404);
        expect(res.json().error.code, slug).toBe(2001);
      }
    });
  });

  it('answers 2005 for a suspended tenant and 2007 for an unverified account', async () => {
    const a = (await t.admin('POST', '/admin/v1/accounts', { name: 'Susp' })).json();
    await t.admin('POST', '/admin/v1/tenants', { account_id: a.account.id, slug: 'susp-co' });
    expect((await t.api('GET', LINES, undefined, { secret: a.signing_secret })).statusCode).toBe(200);
    expect((await t.admin('PATCH', '/admin/v1/tenants/susp-co', { status: 'suspended' })).json().tenant.status).toBe('suspended');
    for (let i = 0; i < 2; i++) {
      // Once from the database, once from the credentials cache.
      const suspended = await t.api('GET', LINES, undefined, { secret: a.signing_secret });
      expect(suspended.statusCode).toBe(403);
      expect(suspended.json().error.code).toBe(2005);
    }
    await t.admin('PATCH', '/admin/v1/tenants/susp-co', { status: 'active' });
    await t.admin('PATCH', `/admin/v1/accounts/${a.account.id}`, { email_verified: false });
    const unverified = await t.api('GET', LINES, undefined, { secret: a.signing_secret });
    expect(unverified.statusCode).toBe(403);
    expect(unverified.json().error.code).toBe(2007);
  });

  it('keeps the old secret working through the rotation overlap, then retires it', async () => {
    const a = (await t.admin('POST', '/admin/v1/accounts', { name: 'Rotating' })).json();
    await t.admin('POST', '/admin/v1/tenants', { account_id: a.account.id, slug: 'rot-co' });
    const old = a.signing_secret;
    const rotated = await t.admin('POST', `/admin/v1/accounts/${a.account.id}/rotate-secret`);
    expect(rotated.statusCode).toBe(200);
    const fresh = rotated.json().signing_secret;
    expect(fresh).not.toBe(old);
    for (const secret of [old, fresh]) {
      expect((await t.api('GET', LINES, undefined, { secret })).statusCode).toBe(200);
      const hmac = await t.request({ method: 'GET', url: LINES, headers: { [sigHeader()]: signRequest(secret, ''), [tenantHeader()]: 'rot-co' } });
      expect(hmac.statusCode).toBe(200);
    }
    // The very same signed header, already accepted (and remembered) before the overlap ends.
    const oldSigned = { [sigHeader()]: signRequest(old, ''), [tenantHeader()]: 'rot-co' };
    expect((await t.request({ method: 'GET', url: LINES, headers: oldSigned })).statusCode).toBe(200);
    expect((await t.request({ method: 'GET', url: LINES, headers: oldSigned })).statusCode).toBe(200);
    t.clock.advance(24 * 3600_000 + 1_000);
    expect((await t.api('GET', LINES, undefined, { secret: old })).json().error.code).toBe(2004);
    expect((await t.request({ method: 'GET', url: LINES, headers: oldSigned })).json().error.code).toBe(2004);
    const oldHmac = await t.request({ method: 'GET', url: LINES, headers: { [sigHeader()]: signRequest(old, ''), [tenantHeader()]: 'rot-co' } });
    expect(oldHmac.json().error.code).toBe(2004);
    expect((await t.api('GET', LINES, undefined, { secret: fresh })).statusCode).toBe(200);
  });
});
