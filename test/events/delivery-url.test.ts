/**
 * `delivery.url` of an event record (GET /api/v1/events/{id}) is where its delivery went: the URL
 * the destination's most recent attempt used, also after the subscription's url was changed
 * (PATCH) between attempts; while nothing has been attempted, where the subscription points now
 * (where the first attempt will go). Two real receivers on loopback show where each attempt went;
 * the worker is driven by hand and retries are due at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { startReceiver, type Receiver, HAND_DRIVEN_DELIVERY_ENV } from '../support/receiver.js';
import { prepareSandbox } from '../support/messaging.js';

interface EventRecord {
  delivery: { status: string; url: string | null; attempts: { status: number; subscription_id: string }[] };
}

describe.each(STORE_KINDS)('delivery.url after the subscription url changed (%s)', (kind) => {
  let t: TestApp;
  let a: Receiver;
  let b: Receiver;
  let subId: string;
  beforeAll(async () => {
    t = await startTestApp(kind, HAND_DRIVEN_DELIVERY_ENV);
    await prepareSandbox(t);
    [a, b] = await Promise.all([startReceiver(), startReceiver()]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    await t.close();
  });

  /** A fresh subscription at `url` (the earlier test's one deleted), so each test has one destination. */
  async function subscribe(url: string) {
    if (subId) await t.api('DELETE', `/api/v1/webhook-subscriptions/${subId}`);
    subId = (await t.api('POST', '/api/v1/webhook-subscriptions', { url, events: ['message.received'] })).json().id;
  }
  let n = 0;
  async function newEvent(): Promise<string> {
    await t.admin('POST', `/admin/v1/lines/${t.demo.phone_line_ids[0]}/simulate/inbound`, { from: '+14155550141', text: `url ${++n}` });
    return (await t.api('GET', '/api/v1/events?limit=1', undefined, { tenant: 'demo' })).json().events[0].id;
  }
  const moveTo = async (url: string) => expect((await t.api('PATCH', `/api/v1/webhook-subscriptions/${subId}`, { url })).statusCode).toBe(200);
  const event = async (id: string): Promise<EventRecord> => (await t.api('GET', `/api/v1/events/${id}`, undefined, { tenant: 'demo' })).json();
  const tick = () => t.services.worker.tick();

  it('a retry that went to the new url: delivery.url is that url, where the event was delivered', async () => {
    await subscribe(a.url);
    const id = await newEvent();
    a.script([503]);
    await tick(); // attempt 1 at a: 503
    expect((await event(id)).delivery).toMatchObject({ status: 'pending', url: a.url });

    await moveTo(b.url);
    const [fromA, fromB] = [a.received.length, b.received.length];
    await tick(); // attempt 2, at the url the subscription has now
    expect([a.received.length, b.received.length]).toEqual([fromA, fromB + 1]);
    const after = await event(id);
    expect(after.delivery.status).toBe('delivered');
    expect(after.delivery.attempts.map((x) => x.status)).toEqual([503, 200]);
    expect(after.delivery.url).toBe(b.url);
  });

  it('nothing attempted yet: delivery.url is where the subscription points now, where the first attempt goes', async () => {
    await subscribe(a.url);
    const id = await newEvent();
    await moveTo(b.url);
    expect((await event(id)).delivery).toMatchObject({ status: 'pending', url: b.url, attempts: [] });
    const fromB = b.received.length;
    await tick();
    expect(b.received.length).toBe(fromB + 1);
    expect((await event(id)).delivery).toMatchObject({ status: 'delivered', url: b.url });
  });

  it('delivered before the change: delivery.url stays where it was delivered, until a replay sends it to the new url', async () => {
    await subscribe(a.url);
    const id = await newEvent();
    await tick();
    expect((await event(id)).delivery).toMatchObject({ status: 'delivered', url: a.url });

    await moveTo(b.url);
    expect((await event(id)).delivery.url).toBe(a.url);

    const fromB = b.received.length;
    expect((await t.api('POST', `/api/v1/events/${id}/replay`, undefined, { tenant: 'demo' })).statusCode).toBe(200);
    expect(b.received.length).toBe(fromB + 1);
    expect((await event(id)).delivery).toMatchObject({ status: 'delivered', url: b.url });
  });
});
