/**
 * A console session stands for one tenant. A request made with its cookie that names another
 * tenant in `x-<brand>-tenant` (a sibling tenant of the same multi-tenant account, another
 * account's, or an unknown one) is refused with 2001, as a bearer request naming a tenant its
 * credentials cannot reach is: it is never served, or acted on, as the session's tenant.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

const ORIGIN = 'http://console.test';

describe('a console session and the tenant header', () => {
  let t: TestApp;
  let secret: string;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const a = (await t.admin('POST', '/admin/v1/accounts', { name: 'Agency', multi_tenant: true })).json();
    secret = a.signing_secret;
    for (const [slug, n] of [['agency-east', '+14155550211'], ['agency-west', '+14155550222']] as const) {
      expect((await t.admin('POST', '/admin/v1/tenants', { account_id: a.account.id, slug })).statusCode).toBe(201);
      expect((await t.admin('POST', '/admin/v1/lines', { tenant: slug, phone_number: n, driver: 'simulator' })).statusCode).toBe(201);
    }
  });
  afterAll(async () => t.close());

  const tenantHeader = () => `x-${t.config.headerBrand}-tenant`;

  async function signIn(tenant: string) {
    const res = await t.request({ method: 'POST', url: '/api/v1/console/sessions', payload: { kind: 'tenant', tenant, secret }, headers: { host: 'console.test', origin: ORIGIN } });
    expect(res.statusCode).toBe(201);
    return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrf: res.json().csrf_token as string };
  }

  it("refuses a request naming another tenant than the session's (2001) instead of serving the session's tenant", async () => {
    const east = await signIn('agency-east');
    const lines = (tenant?: string) =>
      t.request({ method: 'GET', url: '/api/v1/phone-numbers', headers: { cookie: east.cookie, ...(tenant !== undefined && { [tenantHeader()]: tenant }) } });
    // Without the header, or naming its own tenant: the session's tenant.
    for (const tenant of [undefined, 'agency-east', ' agency-east ']) {
      const res = await lines(tenant);
      expect(res.statusCode, String(tenant)).toBe(200);
      expect(res.json().phone_numbers.map((l: { phone_number: string }) => l.phone_number)).toEqual(['+14155550211']);
    }
    // Naming a sibling tenant, the demo tenant of another account, or nothing that exists.
    for (const tenant of ['agency-west', t.demo.tenant, 'no-such-tenant']) {
      const res = await lines(tenant);
      expect(res.statusCode, tenant).toBe(404);
      expect(res.json().error.code, tenant).toBe(2001);
      expect(res.body, tenant).not.toContain('+14155550211');
    }
  });

  it("changes nothing on the session's tenant when the header names another one", async () => {
    const east = await signIn('agency-east');
    const patch = await t.request({
      method: 'PATCH',
      url: '/api/v1/settings',
      payload: { daily_first_touch_cap: 7 },
      headers: { host: 'console.test', origin: ORIGIN, cookie: east.cookie, 'x-csrf-token': east.csrf, [tenantHeader()]: 'agency-west' },
    });
    expect(patch.statusCode).toBe(404);
    expect(patch.json().error.code).toBe(2001);
    const eastSettings = await t.api('GET', '/api/v1/settings', undefined, { secret, tenant: 'agency-east' });
    expect(eastSettings.json().settings.daily_first_touch_cap).not.toBe(7);
  });
});
