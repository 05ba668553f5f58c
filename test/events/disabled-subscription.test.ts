/**
 * A disabled webhook subscription receives nothing more (contract: "false: new events are not
 * sent here"), not even a delivery that was already due when it was disabled: a retry already
 * scheduled, or a job recorded just before. The attempt log says why nothing was sent and that
 * the event can be replayed; a replay sends to it only once it is enabled again. A real receiver
 * on loopback counts what arrives; the worker is driven by hand (retries are due at once), and
 * the test clock, not sleeping, moves business time.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { startReceiver, type Receiver, HAND_DRIVEN_DELIVERY_ENV } from '../support/receiver.js';
import { prepareSandbox } from '../support/messaging.js';

interface EventRecord {
  id: string;
  delivery: { status: string; url: string | null; attempts: { status: number; subscription_id: string; error?: string }[] };
}

describe.each(STORE_KINDS)('a disabled subscription on %s', (kind) => {
  let t: TestApp;
  let rx: Receiver;
  let subId: string;
  beforeAll(async () => {
    t = await startTestApp(kind, HAND_DRIVEN_DELIVERY_ENV);
    await prepareSandbox(t);
    rx = await startReceiver();
    subId = (await t.api('POST', '/api/v1/webhook-subscriptions', { url: rx.url, events: ['message.received'] })).json().id;
  });
  afterAll(async () => {
    await rx.close();
    await t.close();
  });
  beforeEach(async () => {
    rx.script([], 200);
    expect((await setEnabled(true)).statusCode).toBe(200);
  });

  let n = 0;
  async function newEvent(): Promise<string> {
    await t.admin('POST', `/admin/v1/lines/${t.demo.phone_line_ids[0]}/simulate/inbound`, { from: '+14155550131', text: `disabled ${++n}` });
    return (await t.api('GET', '/api/v1/events?limit=1', undefined, { tenant: 'demo' })).json().events[0].id;
  }
  const setEnabled = (enabled: boolean) => t.api('PATCH', `/api/v1/webhook-subscriptions/${subId}`, { enabled });
  const event = async (id: string): Promise<EventRecord> => (await t.api('GET', `/api/v1/events/${id}`, undefined, { tenant: 'demo' })).json();
  const replay = (id: string, query = '') => t.api('POST', `/api/v1/events/${id}/replay${query}`, undefined, { tenant: 'demo' });
  const tick = () => t.services.worker.tick();

  it('a retry already scheduled when it was disabled is not sent: the attempt says why and that a replay can deliver it', async () => {
    const id = await newEvent();
    rx.script([503]);
    const before = rx.received.length;
    await tick(); // attempt 1: 503, attempt 2 due
    expect(rx.received.length).toBe(before + 1);
    expect((await event(id)).delivery.status).toBe('pending');

    expect((await setEnabled(false)).json().enabled).toBe(false);
    t.clock.advance(60_000);
    await tick(); // attempt 2 was due: nothing goes out
    await tick();
    expect(rx.received.length).toBe(before + 1);
    const after = await event(id);
    expect(after.delivery.status).toBe('failed');
    expect(after.delivery.attempts).toHaveLength(2);
    const last = after.delivery.attempts[1]!;
    expect(last).toMatchObject({ status: 0, subscription_id: subId });
    expect(last.error).toMatch(/disabled/);
    expect(last.error).toMatch(/replay/);
    expect((await t.api('GET', '/api/v1/events?status=failed&limit=200', undefined, { tenant: 'demo' })).json().events.map((e: EventRecord) => e.id)).toContain(id);
  });

  it('a delivery recorded just before it was disabled is not sent either', async () => {
    const id = await newEvent();
    await setEnabled(false);
    const before = rx.received.length;
    await tick();
    expect(rx.received.length).toBe(before);
    const after = await event(id);
    expect(after.delivery.status).toBe('failed');
    expect(after.delivery.attempts).toHaveLength(1);
    expect(after.delivery.attempts[0]!.error).toMatch(/disabled/);
  });

  it('replay sends nothing to it while disabled (400 / 1002 saying so), and delivers once it is enabled again', async () => {
    const id = await newEvent();
    await setEnabled(false);
    await tick();
    const before = rx.received.length;

    for (const query of ['', `?subscription_id=${subId}`]) {
      const refused = await replay(id, query);
      expect(refused.statusCode, query).toBe(400);
      expect(refused.json().error.code, query).toBe(1002);
      expect(refused.json().error.message, query).toContain(`${subId} is disabled`);
    }
    expect(rx.received.length).toBe(before);
    expect((await event(id)).delivery.attempts).toHaveLength(1);

    await setEnabled(true);
    const delivered = await replay(id);
    expect(delivered.statusCode).toBe(200);
    expect(rx.received.length).toBe(before + 1);
    const after = await event(id);
    expect(after.delivery.status).toBe('delivered');
    expect(after.delivery.attempts.map((a) => a.status)).toEqual([0, 200]);
  });
});
