/**
 * A tenant rotates its account's signing secret itself (GET /api/v1/signing-secret,
 * POST /api/v1/signing-secret/rotate): the new secret once, the old one working until the
 * overlap ends (test clock), every tenant of the account moving with it, a console session
 * surviving the rotation, and the secret never in a log or in the metadata.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';

const ORIGIN = 'http://console.test';

describe.each(STORE_KINDS)('tenant signing-secret rotation (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('shows when the secret was issued, and never the secret', async () => {
    const res = await t.api('GET', '/api/v1/signing-secret');
    expect(res.statusCode).toBe(200);
    const s = res.json().signing_secret;
    expect(s).toMatchObject({ rotated_at: null, previous_secret_active: false, previous_secret_expires_at: null, previous_secrets: [], shared_with_tenants: [t.demo.tenant] });
    expect(s.account_id).toMatch(/^acct_/);
    expect(Date.parse(s.created_at)).toBeLessThanOrEqual(t.clock.now());
    expect(res.body).not.toContain(t.demo.signing_secret);
  });

  it('rotates: the new secret works at once, the old one until the overlap ends', async () => {
    const old = t.demo.signing_secret;
    const before = t.clock.now();
    const res = await t.api('POST', '/api/v1/signing-secret/rotate', { overlap_hours: 2 });
    expect(res.statusCode).toBe(200);
    const { signing_secret: fresh, previous_secret_expires_at } = res.json();
    expect(fresh).toMatch(/^bl_sk_/);
    expect(fresh).not.toBe(old);
    expect(Math.abs(Date.parse(previous_secret_expires_at) - (before + 2 * 3600_000))).toBeLessThan(1000);

    expect((await t.api('GET', '/api/v1/phone-numbers', undefined, { secret: fresh })).statusCode).toBe(200);
    expect((await t.api('GET', '/api/v1/phone-numbers', undefined, { secret: old })).statusCode).toBe(200);
    const status = (await t.api('GET', '/api/v1/signing-secret', undefined, { secret: fresh })).json().signing_secret;
    expect(status).toMatchObject({ previous_secret_active: true, previous_secret_expires_at });
    expect(Math.abs(Date.parse(status.rotated_at) - before)).toBeLessThan(1000);
    expect(status.previous_secrets).toHaveLength(1);

    t.clock.advance(2 * 3600_000 + 1000);
    expect((await t.api('GET', '/api/v1/phone-numbers', undefined, { secret: old })).statusCode).toBe(401);
    expect((await t.api('GET', '/api/v1/phone-numbers', undefined, { secret: fresh })).statusCode).toBe(200);
    expect((await t.api('GET', '/api/v1/signing-secret', undefined, { secret: fresh })).json().signing_secret).toMatchObject({ previous_secret_active: false, previous_secret_expires_at: null });
    t.demo.signing_secret = fresh;
    // Neither secret reached a log line.
    expect(t.logs.join('\n')).not.toContain(fresh);
    expect(t.logs.join('\n')).not.toContain(old);
  });

  it('takes the configured overlap without a body, and refuses one beyond 90 days', async () => {
    const res = await t.request({ method: 'POST', url: '/api/v1/signing-secret/rotate', headers: { authorization: `Bearer ${t.demo.signing_secret}` } });
    expect(res.statusCode).toBe(200);
    expect(Math.abs(Date.parse(res.json().previous_secret_expires_at) - (t.clock.now() + t.config.secretOverlapMs))).toBeLessThan(1000);
    t.demo.signing_secret = res.json().signing_secret;
    const tooLong = await t.api('POST', '/api/v1/signing-secret/rotate', { overlap_hours: 24 * 90 + 1 });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().error.code).toBe(1002);
    expect((await t.api('POST', '/api/v1/signing-secret/rotate', { overlap_hours: 1, secret: 'x' })).statusCode).toBe(400);
  });

  it("changes the secret of every tenant of the account (it is the account's)", async () => {
    const acct = (await t.admin('POST', '/admin/v1/accounts', { name: 'Agency', multi_tenant: true })).json();
    for (const slug of [`a-${kind}`, `b-${kind}`]) expect((await t.admin('POST', '/admin/v1/tenants', { account_id: acct.account.id, slug })).statusCode).toBe(201);
    const asA = { secret: acct.signing_secret, tenant: `a-${kind}` };
    expect((await t.api('GET', '/api/v1/signing-secret', undefined, asA)).json().signing_secret.shared_with_tenants).toEqual([`a-${kind}`, `b-${kind}`]);
    const fresh = (await t.api('POST', '/api/v1/signing-secret/rotate', { overlap_hours: 0 }, asA)).json().signing_secret;
    expect((await t.api('GET', '/api/v1/phone-numbers', undefined, { secret: fresh, tenant: `b-${kind}` })).statusCode).toBe(200);
    expect((await t.api('GET', '/api/v1/phone-numbers', undefined, { secret: acct.signing_secret, tenant: `b-${kind}` })).statusCode).toBe(401);
    // Another account's secret is untouched.
    expect((await t.api('GET', '/api/v1/phone-numbers')).statusCode).toBe(200);
  });

  it('from a console session: needs the CSRF header, and the session keeps working after the rotation', async () => {
    const signIn = await t.request({
      method: 'POST',
      url: '/api/v1/console/sessions',
      payload: { kind: 'tenant', tenant: t.demo.tenant, secret: t.demo.signing_secret },
      headers: { host: 'console.test', origin: ORIGIN },
    });
    expect(signIn.statusCode).toBe(201);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    const csrf = signIn.json().csrf_token as string;
    const rotate = (headers: Record<string, string>) =>
      t.request({ method: 'POST', url: '/api/v1/signing-secret/rotate', payload: { overlap_hours: 0 }, headers: { host: 'console.test', origin: ORIGIN, cookie, ...headers } });
    expect((await rotate({})).statusCode).toBe(403);
    const res = await rotate({ 'x-csrf-token': csrf });
    expect(res.statusCode).toBe(200);
    const fresh = res.json().signing_secret as string;
    // The old secret ended at once (overlap 0), yet the session signed in with it still works.
    expect((await t.api('GET', '/api/v1/phone-numbers')).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/api/v1/signing-secret', headers: { cookie } })).statusCode).toBe(200);
    expect((await t.request({ method: 'GET', url: '/api/v1/phone-numbers', headers: { cookie } })).statusCode).toBe(200);
    t.demo.signing_secret = fresh;
  });

  /** A fresh single-tenant account and its tenant, so each test starts from one current secret. */
  async function newAccount(slug: string): Promise<{ secret: string; tenant: string }> {
    const acct = (await t.admin('POST', '/admin/v1/accounts', { name: slug })).json();
    expect((await t.admin('POST', '/admin/v1/tenants', { account_id: acct.account.id, slug })).statusCode).toBe(201);
    return { secret: acct.signing_secret, tenant: slug };
  }
  const lines = (secret: string) => t.api('GET', '/api/v1/phone-numbers', undefined, { secret });
  const rotateWith = (secret: string, overlap_hours?: number) =>
    t.api('POST', '/api/v1/signing-secret/rotate', overlap_hours === undefined ? {} : { overlap_hours }, { secret });

  it('a replaced secret still in its overlap cannot rotate: the owner keeps the only current secret', async () => {
    const { secret: leaked } = await newAccount(`leak-${kind}`);
    // The owner answers a leak with an overlap, so its deployments can switch.
    const owner = (await rotateWith(leaked, 24)).json().signing_secret as string;
    // The leaked secret still works for the overlap, but may not rotate (and so end the owner's).
    expect((await lines(leaked)).statusCode).toBe(200);
    const attempt = await rotateWith(leaked, 0);
    expect(attempt.statusCode).toBe(403);
    expect(attempt.json().error).toMatchObject({ code: 2005, retryable: false });
    expect(attempt.json().error.message).toMatch(/replaced/);
    expect(attempt.body).not.toMatch(/bl_sk_/);
    expect((await lines(owner)).statusCode).toBe(200);
    const status = (await t.api('GET', '/api/v1/signing-secret', undefined, { secret: owner })).json().signing_secret;
    expect(status.previous_secrets).toHaveLength(1);
    // The owner, holding the current secret, can still end the leaked one at once.
    const next = (await rotateWith(owner, 0)).json().signing_secret as string;
    expect((await lines(leaked)).statusCode).toBe(401);
    expect((await lines(owner)).statusCode).toBe(401);
    expect((await lines(next)).statusCode).toBe(200);
  });

  it('an overlap is the replaced secret\'s only: earlier ones keep their own end, and 0 ends them all', async () => {
    const { secret: first } = await newAccount(`overlap-${kind}`);
    const second = (await rotateWith(first, 24)).json().signing_secret as string;
    const third = (await rotateWith(second, 1)).json().signing_secret as string;
    t.clock.advance(2 * 3600_000);
    // `second` had its hour; `first` keeps the 24 hours it was given.
    expect((await lines(second)).statusCode).toBe(401);
    expect((await lines(first)).statusCode).toBe(200);
    expect((await t.api('GET', '/api/v1/signing-secret', undefined, { secret: third })).json().signing_secret.previous_secrets).toHaveLength(1);
    const fourth = (await rotateWith(third, 0)).json().signing_secret as string;
    for (const ended of [first, second, third]) expect((await lines(ended)).statusCode).toBe(401);
    expect((await lines(fourth)).statusCode).toBe(200);
    expect((await t.api('GET', '/api/v1/signing-secret', undefined, { secret: fourth })).json().signing_secret).toMatchObject({ previous_secret_active: false, previous_secrets: [] });
  });

  it('two rotations racing with one secret: one answers a secret, the other 2005, and one secret is current', async () => {
    for (let round = 0; round < 3; round++) {
      const { secret } = await newAccount(`race-${round}-${kind}`);
      const answers = await Promise.all([rotateWith(secret, 1), rotateWith(secret, 1)]);
      expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 403]);
      const won = answers.find((a) => a.statusCode === 200)!.json().signing_secret as string;
      expect((await lines(won)).statusCode).toBe(200);
      const status = (await t.api('GET', '/api/v1/signing-secret', undefined, { secret: won })).json().signing_secret;
      expect(status.previous_secrets).toHaveLength(1);
    }
  });
});
