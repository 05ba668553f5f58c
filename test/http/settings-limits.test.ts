/**
 * Numbers a project or the operator sets are stored in 32-bit integer columns: a larger one is
 * 400 / 1002 on both stores (PostgreSQL answered 500 / 3001, SQLite stored 1e300 as a float).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';

const INT32_MAX = 2_147_483_647;

describe.each(STORE_KINDS)('setting limits (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(async () => t.close());

  it('takes a daily first-touch cap up to 2^31-1 and refuses a larger one with 1002', async () => {
    const max = await t.api('PATCH', '/api/v1/settings', { daily_first_touch_cap: INT32_MAX });
    expect(max.statusCode).toBe(200);
    expect(max.json().settings.daily_first_touch_cap).toBe(INT32_MAX);
    for (const cap of [INT32_MAX + 1, 1e300]) {
      const res = await t.api('PATCH', '/api/v1/settings', { daily_first_touch_cap: cap });
      expect({ cap, status: res.statusCode, code: res.json().error?.code }).toEqual({ cap, status: 400, code: 1002 });
    }
    expect((await t.api('GET', '/api/v1/settings')).json().settings.daily_first_touch_cap).toBe(INT32_MAX);
  });

  it('refuses an operator rate-limit burst or cap past 2^31-1 with 1002', async () => {
    for (const body of [{ daily_first_touch_cap: INT32_MAX + 1 }, { rate_limit: { per_second: 5, burst: INT32_MAX + 1 } }]) {
      const res = await t.admin('PATCH', `/admin/v1/tenants/${t.demo.tenant}`, body);
      expect({ body, status: res.statusCode, code: res.json().error?.code }).toEqual({ body, status: 400, code: 1002 });
    }
  });
});
