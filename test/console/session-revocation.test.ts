/**
 * A tenant's console session ends when its access is taken away, and stays ended: a rotation
 * with overlap 0 (the tenant's own, or the operator's) leaves no session but the one that
 * rotated; a session opened with a replaced secret ends with that secret's overlap and cannot
 * rotate meanwhile; a suspension or an account no longer verified ends the sessions for good
 * (lifting it revives none). Sessions live in the database: another process sees the same at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';

const ORIGIN = 'http://console.test';

interface Browser {
  cookie: string;
  csrf: string;
}

describe.each(STORE_KINDS)('console sessions when access is taken away (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  let n = 0;
  /** A fresh account with `tenants` tenants (multi-tenant when more than one). */
  async function newAccount(tenants = 1): Promise<{ id: string; secret: string; slugs: string[] }> {
    const name = `acct-${kind}-${++n}`;
    const acct = (await t.admin('POST', '/admin/v1/accounts', { name, multi_tenant: tenants > 1 })).json();
    const slugs = Array.from({ length: tenants }, (_, i) => `${name}-t${i}`);
    for (const slug of slugs) expect((await t.admin('POST', '/admin/v1/tenants', { account_id: acct.account.id, slug })).statusCode).toBe(201);
    return { id: acct.account.id, secret: acct.signing_secret, slugs };
  }

  async function signIn(tenant: string, secret: string, app = t): Promise<Browser> {
    const res = await app.request({
      method: 'POST',
      url: '/api/v1/console/sessions',
      payload: { kind: 'tenant', tenant, secret },
      headers: { host: 'console.test', origin: ORIGIN },
    });
    expect(res.statusCode).toBe(201);
    return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrf: res.json().csrf_token };
  }
  /** What the console's Developers screen reads: 200 while the session works. */
  const read = (b: Browser, app = t) => app.request({ method: 'GET', url: '/api/v1/signing-secret', headers: { cookie: b.cookie } });
  const rotate = (b: Browser, overlap_hours: number) =>
    t.request({
      method: 'POST',
      url: '/api/v1/signing-secret/rotate',
      payload: { overlap_hours },
      headers: { host: 'console.test', origin: ORIGIN, cookie: b.cookie, 'x-csrf-token': b.csrf },
    });
  const ended = async (b: Browser, app = t) => {
    const res = await read(b, app);
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe(2004);
    expect(res.json().error.message).toMatch(/session has ended/);
  };

  it('a rotation with overlap 0 from the console ends every other session of the account; the one that rotated stays', async () => {
    const acct = await newAccount(2);
    const [a, b] = acct.slugs as [string, string];
    const mine = await signIn(a, acct.secret);
    const colleague = await signIn(a, acct.secret);
    const sibling = await signIn(b, acct.secret);
    const res = await rotate(mine, 0);
    expect(res.statusCode).toBe(200);
    const fresh = res.json().signing_secret as string;
    expect((await read(mine)).statusCode).toBe(200);
    await ended(colleague);
    await ended(sibling);
    // The session that rotated now stands on the new secret: it can rotate again, and only it.
    const again = await rotate(mine, 0);
    expect(again.statusCode).toBe(200);
    expect((await t.api('GET', '/api/v1/phone-numbers', undefined, { secret: fresh, tenant: a })).statusCode).toBe(401);
    expect((await read(mine)).statusCode).toBe(200);
  });

  it("the operator's rotation with overlap 0 ends every console session of the account's tenants", async () => {
    const acct = await newAccount();
    const other = await newAccount();
    const session = await signIn(acct.slugs[0]!, acct.secret);
    const bystander = await signIn(other.slugs[0]!, other.secret);
    expect((await t.admin('POST', `/admin/v1/accounts/${acct.id}/rotate-secret`, { overlap_hours: 0 })).statusCode).toBe(200);
    await ended(session);
    expect((await read(bystander)).statusCode).toBe(200);
  });

  it('a session opened with a secret later replaced cannot rotate, and ends when that secret does', async () => {
    const acct = await newAccount();
    const slug = acct.slugs[0]!;
    const before = await signIn(slug, acct.secret);
    const owner = (await t.api('POST', '/api/v1/signing-secret/rotate', { overlap_hours: 1 }, { secret: acct.secret })).json().signing_secret as string;
    // Signed in with the replaced secret, during its overlap (a leaked secret, say).
    const during = await signIn(slug, acct.secret);
    for (const b of [before, during]) {
      expect((await read(b)).statusCode).toBe(200);
      const attempt = await rotate(b, 0);
      expect(attempt.statusCode).toBe(403);
      expect(attempt.json().error.code).toBe(2005);
      expect(attempt.body).not.toMatch(/bl_sk_/);
    }
    expect((await t.api('GET', '/api/v1/phone-numbers', undefined, { secret: owner })).statusCode).toBe(200);
    t.clock.advance(3600_000 + 1000);
    await ended(before);
    await ended(during);
    // Signed in with the owner's secret: a session that works.
    expect((await read(await signIn(slug, owner))).statusCode).toBe(200);
  });

  it("a suspension ends the tenant's sessions for good; its sibling's stay", async () => {
    const acct = await newAccount(2);
    const [a, b] = acct.slugs as [string, string];
    const session = await signIn(a, acct.secret);
    const sibling = await signIn(b, acct.secret);
    expect((await t.admin('PATCH', `/admin/v1/tenants/${a}`, { status: 'suspended' })).statusCode).toBe(200);
    await ended(session);
    expect((await t.admin('PATCH', `/admin/v1/tenants/${a}`, { status: 'active' })).statusCode).toBe(200);
    await ended(session);
    expect((await read(sibling)).statusCode).toBe(200);
    // Signing in again works once it is active.
    expect((await read(await signIn(a, acct.secret))).statusCode).toBe(200);
  });

  it("an account no longer verified ends its tenants' sessions for good", async () => {
    const acct = await newAccount(2);
    const sessions = await Promise.all(acct.slugs.map((slug) => signIn(slug, acct.secret)));
    expect((await t.admin('PATCH', `/admin/v1/accounts/${acct.id}`, { email_verified: false })).statusCode).toBe(200);
    expect((await t.admin('PATCH', `/admin/v1/accounts/${acct.id}`, { email_verified: true })).statusCode).toBe(200);
    for (const s of sessions) await ended(s);
  });

  it.runIf(kind === 'postgres')('another process sees it at once: a session ends there too, with no cache to wait for', async () => {
    const other = await startTestApp(kind, {}, { join: t });
    // Both processes read one time (tests above moved this one's clock).
    other.clock.advance(t.clock.offsetMs());
    try {
      const acct = await newAccount();
      const slug = acct.slugs[0]!;
      const rotated = await signIn(slug, acct.secret, other);
      const suspended = await signIn(slug, acct.secret, other);
      // Both processes have just served the sessions.
      expect((await read(rotated, other)).statusCode).toBe(200);
      expect((await read(rotated)).statusCode).toBe(200);
      expect((await t.admin('POST', `/admin/v1/accounts/${acct.id}/rotate-secret`, { overlap_hours: 0 })).statusCode).toBe(200);
      await ended(rotated, other);
      const fresh = (await t.admin('POST', `/admin/v1/accounts/${acct.id}/rotate-secret`, { overlap_hours: 24 })).json().signing_secret as string;
      const next = await signIn(slug, fresh, other);
      expect((await read(next, other)).statusCode).toBe(200);
      expect((await t.admin('PATCH', `/admin/v1/tenants/${slug}`, { status: 'suspended' })).statusCode).toBe(200);
      expect((await t.admin('PATCH', `/admin/v1/tenants/${slug}`, { status: 'active' })).statusCode).toBe(200);
      await ended(next, other);
      await ended(suspended, other);
    } finally {
      await other.close();
    }
  });
});
