import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

describe('admin API', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(async () => t.close());

  it('refuses missing credentials (2012), wrong tokens and tenant signing secrets (2004)', async () => {
    expect((await t.request({ method: 'GET', url: '/admin/v1/tenants' })).json().error.code).toBe(2012);
    for (const token of ['nope', t.demo.signing_secret]) {
      const res = await t.request({ method: 'GET', url: '/admin/v1/tenants', headers: { authorization: `Bearer ${token}` } });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe(2004);
    }
  });

  it('never lets the admin token act as a tenant credential', async () => {
    const res = await t.api('GET', '/api/v1/phone-numbers', undefined, { secret: t.adminToken });
    expect(res.statusCode).toBe(401);
  });

  it('creates an account whose secret is shown once, then tenants and lines', async () => {
    const created = await t.admin('POST', '/admin/v1/accounts', { name: 'Acme' });
    expect(created.statusCode).toBe(201);
    const { account, signing_secret } = created.json();
    expect(signing_secret).toMatch(/^bl_sk_[A-Za-z0-9_-]{43}$/);
    expect(account).toMatchObject({ name: 'Acme', multi_tenant: false, email_verified: true });
    const listed = await t.admin('GET', '/admin/v1/accounts');
    expect(JSON.stringify(listed.json())).not.toContain(signing_secret);

    const tenant = await t.admin('POST', '/admin/v1/tenants', {
      account_id: account.id,
      slug: 'acme',
      timezone: 'Europe/Berlin',
      sending_window: { start: '08:00', end: '20:00' },
      daily_first_touch_cap: 50,
      rate_limit: { per_second: 5, burst: 10 },
    });
    expect(tenant.statusCode).toBe(201);
    expect(tenant.json().tenant).toMatchObject({ slug: 'acme', name: 'acme', timezone: 'Europe/Berlin', status: 'active', daily_first_touch_cap: 50 });
    expect((await t.admin('GET', '/admin/v1/tenants/acme')).json().tenant.sending_window).toEqual({ start: '08:00', end: '20:00' });
    const patched = await t.admin('PATCH', '/admin/v1/tenants/acme', { daily_first_touch_cap: 7, name: 'Acme GmbH' });
    expect(patched.json().tenant).toMatchObject({ daily_first_touch_cap: 7, name: 'Acme GmbH', timezone: 'Europe/Berlin' });

    const line = await t.admin('POST', '/admin/v1/lines', {
      tenant: 'acme',
      phone_number: '+49 (30) 1234-5678',
      driver: 'bluebubbles',
      driver_config: { url: 'http://mac.local:1234', password: 'hunter2-bb' },
    });
    expect(line.statusCode).toBe(201);
    const pl = line.json().phone_line;
    expect(pl).toMatchObject({ phone_number: '+493012345678', tenant: 'acme', driver: 'bluebubbles', driver_config_keys: ['password', 'url'] });
    expect(line.body).not.toContain('hunter2-bb');
    // Listed (and so cached) before the change: the tenant sees the change at once all the same.
    const before = await t.api('GET', '/api/v1/phone-numbers', undefined, { secret: signing_secret });
    expect(before.json().phone_numbers).toEqual([expect.objectContaining({ phone_number: '+493012345678', is_active: true })]);
    expect(before.headers['content-type']).toBe('application/json; charset=utf-8');
    const off = await t.admin('PATCH', `/admin/v1/lines/${pl.id}`, { is_active: false });
    expect(off.json().phone_line.is_active).toBe(false);
    const all = await t.admin('GET', '/admin/v1/lines');
    expect(all.body).not.toContain('hunter2-bb');
    expect(all.json().phone_lines.map((l: { tenant: string }) => l.tenant)).toContain('acme');
    const tenantView = await t.api('GET', '/api/v1/phone-numbers', undefined, { secret: signing_secret });
    expect(tenantView.json().phone_numbers).toEqual([expect.objectContaining({ phone_number: '+493012345678', is_active: false })]);

    // Active but without `send`: the tenant is told it cannot send from it (is_active false, as
    // the spec has it), which the send confirms; the operator still sees its switch as set.
    const receiveOnly = (await t.admin('PATCH', `/admin/v1/lines/${pl.id}`, { is_active: true, capabilities: ['receive'] })).json().phone_line;
    expect(receiveOnly).toMatchObject({ is_active: true, capabilities: ['receive'] });
    expect((await t.api('GET', '/api/v1/phone-numbers', undefined, { secret: signing_secret })).json().phone_numbers).toEqual([expect.objectContaining({ phone_number: '+493012345678', is_active: false })]);
    const send = await t.api('POST', '/api/v1/send', { phone: '+14155550123', body: 'hi', phone_line_id: pl.id }, { secret: signing_secret });
    expect(send.json()).toMatchObject({ code: 3002 });
  });

  it('validates settings with the spec codes', async () => {
    const acct = (await t.admin('POST', '/admin/v1/accounts', { name: 'V' })).json().account.id;
    const bad = async (body: object, code: number) => {
      const res = await t.admin('POST', '/admin/v1/tenants', { account_id: acct, ...body });
      expect(res.json().error?.code, JSON.stringify(body)).toBe(code);
    };
    await bad({ slug: 'Bad Slug' }, 1002);
    await bad({ slug: 'tz-co', timezone: 'Mars/Olympus' }, 1002);
    await bad({ slug: 'win-co', sending_window: { start: '25:00', end: '10:00' } }, 1002);
    await bad({ slug: 'demo' }, 1012);
    await bad({}, 1001);
    const unknownAccount = await t.admin('POST', '/admin/v1/tenants', { account_id: 'acct_nope', slug: 'zz' });
    expect(unknownAccount.json().error.code).toBe(2011);
    const badPhone = await t.admin('POST', '/admin/v1/lines', { tenant: 'demo', phone_number: '555-0100', driver: 'simulator' });
    expect(badPhone.json().error.code).toBe(1003);
    const badDriver = await t.admin('POST', '/admin/v1/lines', { tenant: 'demo', phone_number: '+14155550999', driver: 'carrier-pigeon' });
    expect(badDriver.json().error.code).toBe(1002);
    // A line that could never send is refused when it is saved, saying what is missing.
    const unconfigured = await t.admin('POST', '/admin/v1/lines', { tenant: 'demo', phone_number: '+14155550998', driver: 'bluebubbles' });
    expect(unconfigured.statusCode).toBe(400);
    expect(unconfigured.json().error).toMatchObject({ code: 1002, message: expect.stringContaining('driver_config.url is required') });
    const switched = await t.admin('PATCH', `/admin/v1/lines/${t.demo.phone_line_ids[0]}`, { driver: 'bluebubbles', driver_config: { url: 'https://mac.example.com' } });
    expect(switched.json().error).toMatchObject({ code: 1002, message: expect.stringContaining('driver_config.password is required') });
    expect((await t.api('GET', '/api/v1/phone-numbers')).json().phone_numbers.map((l: { phone_number: string }) => l.phone_number)).not.toContain('+14155550998');
    const dup = await t.admin('POST', '/admin/v1/lines', { tenant: 'demo', phone_number: '+15550100001', driver: 'simulator' });
    expect(dup.json().error.code).toBe(1012);
    const noTenant = await t.admin('PATCH', '/admin/v1/tenants/nope', { name: 'x' });
    expect(noTenant.json().error.code).toBe(2001);
    // A rate limit slower than one request in 1,000 s: refused (its Retry-After was 1e300 seconds).
    await bad({ slug: 'slow-co', rate_limit: { per_second: 1e-300, burst: 1 } }, 1002);
  });

  it('takes names people can read: a visible character, no NUL, no lone surrogate; emoji and other scripts are kept', async () => {
    const refused = "body field 'name' must be text with a visible character, without NUL or a lone surrogate";
    // A lone surrogate was acknowledged as sent, then read back as U+FFFD.
    // As the JSON text carries them: escapes (a raw NUL is no JSON at all).
    for (const name of ['   ', 'a\\u0000b', 'a\\ud800b', '\\udc00']) {
      const res = await t.request({ method: 'POST', url: '/admin/v1/accounts', headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' }, payload: `{"name":"${name}"}` });
      expect(res.statusCode, name).toBe(400);
      expect(res.json().error).toMatchObject({ code: 1002, message: refused });
    }
    const acct = (await t.admin('POST', '/admin/v1/accounts', { name: 'Läden 🛍️ שלום' })).json().account;
    expect((await t.admin('GET', `/admin/v1/accounts/${acct.id}`)).json().account.name).toBe('Läden 🛍️ שלום');
    expect((await t.admin('PATCH', '/admin/v1/tenants/demo', { name: 'x\ud83d' })).json().error).toMatchObject({ code: 1002, message: refused });
    expect((await t.admin('PATCH', `/admin/v1/accounts/${acct.id}`, { name: '\t' })).json().error).toMatchObject({ code: 1002, message: refused });
  });

  it('keeps a single-tenant account at one tenant, so its secret always names one', async () => {
    const { account, signing_secret } = (await t.admin('POST', '/admin/v1/accounts', { name: 'Solo' })).json();
    expect((await t.admin('POST', '/admin/v1/tenants', { account_id: account.id, slug: 'solo-one' })).statusCode).toBe(201);
    const second = await t.admin('POST', '/admin/v1/tenants', { account_id: account.id, slug: 'solo-two' });
    expect(second.statusCode).toBe(402);
    expect(second.json().error).toMatchObject({ code: 2008, retryable: false });
    // Without a tenant header the secret still reaches its one tenant.
    expect((await t.api('GET', '/api/v1/phone-numbers', undefined, { secret: signing_secret })).statusCode).toBe(200);
    // Made multi-tenant it may grow, and then cannot go back while it has two.
    expect((await t.admin('PATCH', `/admin/v1/accounts/${account.id}`, { multi_tenant: true })).statusCode).toBe(200);
    expect((await t.admin('POST', '/admin/v1/tenants', { account_id: account.id, slug: 'solo-two' })).statusCode).toBe(201);
    const back = await t.admin('PATCH', `/admin/v1/accounts/${account.id}`, { multi_tenant: false });
    expect(back.statusCode).toBe(409);
    expect(back.json().error.code).toBe(1012);
  });

  it('moves business time with the test clock', async () => {
    const before = t.clock.now();
    const res = await t.admin('POST', '/admin/v1/clock/advance', { ms: 3_600_000 });
    expect(res.statusCode).toBe(200);
    expect(Date.parse(res.json().now) - before).toBeGreaterThanOrEqual(3_600_000);
    expect((await t.admin('POST', '/admin/v1/clock/advance', { ms: -5 })).json().error.code).toBe(1002);
    // Past the year 9999 no time can be written: refused before the move, so the service keeps working.
    const now = t.clock.now();
    for (const ms of [1e20, 8_640_000_000_000_000]) {
      const far = await t.admin('POST', '/admin/v1/clock/advance', { ms });
      expect(far.statusCode).toBe(400);
      expect(far.json().error).toMatchObject({ code: 1002, message: expect.stringContaining('cannot move past 9999-12-31T23:59:59.999Z') });
    }
    expect(t.clock.now() - now).toBeLessThan(60_000);
    expect((await t.api('GET', '/api/v1/stats')).statusCode).toBe(200);
    expect((await t.admin('POST', '/admin/v1/clock/advance', { ms: 0 })).statusCode).toBe(200);
  });
});

describe('admin API without the test clock', () => {
  it('has no clock route (404)', async () => {
    const t = await startTestApp('sqlite', { BLUELINE_TEST_CLOCK: '0' });
    try {
      const res = await t.admin('POST', '/admin/v1/clock/advance', { ms: 1000 });
      expect(res.statusCode).toBe(404);
      expect(res.json().success).toBe(false);
    } finally {
      await t.close();
    }
  });
});
