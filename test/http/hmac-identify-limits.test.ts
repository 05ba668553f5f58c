/**
 * A signature without the tenant header is matched against every single-tenant account's
 * secret, and each try hashes the whole body: the work is bounded per request and across
 * requests (signature-owner.ts), so a wrongly signed large body cannot stall the service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest, startTestApp, type TestApp } from '../support/app.js';
import { IDENTIFY_LIMITS as DEFAULTS } from '../../src/domain/accounts-tenants/signature-owner.js';
// The default reach and burst; the budget refills at 64 KiB/s instead of 32 MiB/s, because the test
// clock runs with the wall clock: at the real rate a slow machine refills a try's worth between two
// requests and the budget is never seen spent. retry_after grows to match, and the test moves the clock.
const IDENTIFY_LIMITS = { ...DEFAULTS, budgetPerSecond: 64 * 1024 };

// An unknown route authenticates first: a signer found reaches the 404 (2011).
const URL = '/api/v1/nothing-here';
const BODY = JSON.stringify({ pad: 'x'.repeat(1_000_000 - 10) });
const ACCOUNTS = 20;

describe('identifying a signer without the tenant header, with many accounts and a large body', () => {
  let t: TestApp;
  const secrets: string[] = [];
  beforeAll(async () => {
    t = await startTestApp('sqlite', {}, { identifyLimits: IDENTIFY_LIMITS });
    for (let i = 0; i < ACCOUNTS; i++) {
      const a = (await t.admin('POST', '/admin/v1/accounts', { name: `Single ${i}` })).json();
      expect((await t.admin('POST', '/admin/v1/tenants', { account_id: a.account.id, slug: `single-${i}` })).statusCode).toBe(201);
      secrets.push(a.signing_secret);
    }
  });
  afterAll(async () => t.close());

  const post = (signature: string, tenant?: string) =>
    t.request({
      method: 'POST',
      url: URL,
      payload: BODY,
      headers: { 'content-type': 'application/json', 'x-service-signature': signature, ...(tenant && { 'x-service-tenant': tenant }) },
    });
  const perRequest = Math.floor(IDENTIFY_LIMITS.perRequestBytes / (BODY.length + 1024 + 11));

  it('finds a recent signer at once, and asks an account beyond the per-request reach to name its tenant (2001)', async () => {
    expect(perRequest).toBeLessThan(ACCOUNTS + 1);
    // Every account but the first signs a small request (matched against all of them), the demo one last:
    // the most recently matched are tried first, so the first account is last in line.
    for (const secret of [...secrets.slice(1), t.demo.signing_secret]) {
      const res = await t.request({ method: 'GET', url: '/api/v1/phone-numbers', headers: { 'x-service-signature': signRequest(secret, '') } });
      expect(res.statusCode, res.body).toBe(200);
    }
    const demo = await post(signRequest(t.demo.signing_secret, BODY));
    expect(demo.statusCode, demo.body).toBe(404);
    expect(demo.json().error.code).toBe(2011);
    // Behind the 20 others: out of reach at this size.
    const far = await post(signRequest(secrets[0]!, BODY));
    expect(far.statusCode).toBe(404);
    expect(far.json().error).toMatchObject({ code: 2001, message: expect.stringContaining('name the tenant') });
    // Named, it is served; a small body is matched against every account.
    expect((await post(signRequest(secrets[0]!, BODY), 'single-0')).json().error.code).toBe(2011);
    const small = await t.request({ method: 'GET', url: '/api/v1/phone-numbers', headers: { 'x-service-signature': signRequest(secrets[0]!, '') } });
    expect(small.statusCode, small.body).toBe(200);
  });

  it('answers 1007 with retry_after once wrong signatures spend the shared budget; named tenants are still served', async () => {
    t.clock.advance((IDENTIFY_LIMITS.budgetBurst / IDENTIFY_LIMITS.budgetPerSecond) * 1000); // a full budget
    const wrong = signRequest('not-a-secret', BODY);
    const spent = Math.floor(IDENTIFY_LIMITS.budgetBurst / (perRequest * (BODY.length + 1024 + 11)));
    for (let i = 0; i < spent; i++) expect((await post(wrong)).json().error.code, `request ${i + 1}`).toBe(2001);
    const refused = await post(wrong);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toMatchObject({ code: 1007, retryable: true, message: expect.stringContaining('name the tenant') });
    const retryAfter = refused.json().error.retry_after as number;
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(refused.headers['retry-after']).toBe(String(retryAfter));
    // The right signature is refused alike while the budget is spent, unless the tenant is named.
    expect((await post(signRequest(t.demo.signing_secret, BODY))).statusCode).toBe(429);
    expect((await post(signRequest(t.demo.signing_secret, BODY), 'demo')).json().error.code).toBe(2011);
    expect((await t.api('GET', '/api/v1/phone-numbers')).statusCode).toBe(200);
    // A wrong signature naming a tenant looks for its signer on a budget of its own: a typo'd
    // slug, correctly signed, is still told so (2001), and a flood of wrong ones naming a tenant
    // spends only that budget, then finds no one (2004) and never answers 1007.
    const typo = await post(signRequest(t.demo.signing_secret, BODY), 'demo-typo');
    expect(typo.json().error).toMatchObject({ code: 2001, message: 'tenant "demo-typo" not found' });
    for (let i = 0; i < spent + 2; i++) {
      const res = await post(signRequest('not-a-secret', BODY), 'demo');
      expect(res.statusCode, `request ${i + 1}`).toBe(401);
      expect(res.json().error.code).toBe(2004);
    }
    const late = await post(signRequest(t.demo.signing_secret, BODY), 'demo-typo');
    expect(late.json().error).toMatchObject({ code: 2004, message: 'signature does not match' });
    // After retry_after, searches run again.
    t.clock.advance(retryAfter * 1000);
    const again = await post(signRequest(t.demo.signing_secret, BODY));
    expect(again.statusCode, again.body).toBe(404);
    expect(again.json().error.code).toBe(2011);
  });
});
