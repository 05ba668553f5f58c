/** PATCH /api/v1/webhook-subscriptions/{id}: fields left out stay as they are, also when none is given. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';

describe.each(STORE_KINDS)('webhook subscription update (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(async () => t.close());

  it('answers an empty change with the subscription as it was (like the other PATCH routes), not 500', async () => {
    const sub = (await t.api('POST', '/api/v1/webhook-subscriptions', { url: 'https://dev-inbox', events: ['message.received'] })).json();
    const res = await t.api('PATCH', `/api/v1/webhook-subscriptions/${sub.id}`, {});
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: sub.id, url: 'https://dev-inbox', events: ['message.received'], enabled: true, created_at: sub.created_at });
    expect((await t.api('PATCH', '/api/v1/webhook-subscriptions/sub_nope', {})).json().error.code).toBe(2011);
  });
});
