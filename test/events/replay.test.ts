/**
 * Replay and the event's delivery status (spec States: "status updated from the replay result"),
 * with the delivery worker driven by hand so every attempt happens exactly when the test says.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { startReceiver, type Receiver, HAND_DRIVEN_DELIVERY_ENV } from '../support/receiver.js';
import { prepareSandbox } from '../support/messaging.js';

interface EventRecord {
  id: string;
  delivery: { status: string; attempts: { status: number }[]; delivered_at: string | null };
}

describe.each(STORE_KINDS)('replay on %s', (kind) => {
  let t: TestApp;
  let rx: Receiver;
  let subId: string;
  beforeAll(async () => {
    t = await startTestApp(kind, HAND_DRIVEN_DELIVERY_ENV);
    await prepareSandbox(t);
    rx = await startReceiver();
    const sub = await t.api('POST', '/api/v1/webhook-subscriptions', { url: rx.url, events: ['message.received'] });
    expect(sub.statusCode).toBe(201);
    subId = sub.json().id;
  });
  afterAll(async () => {
    await rx.close();
    await t.close();
  });
  afterEach(() => rx.script([], 200));

  let n = 0;
  /** A new inbound event (its delivery is due, nothing attempted yet). */
  async function newEvent(): Promise<string> {
    await t.admin('POST', `/admin/v1/lines/${t.demo.phone_line_ids[0]}/simulate/inbound`, { from: '+14155550121', text: `replay ${++n}` });
    return (await t.api('GET', '/api/v1/events?limit=1', undefined, { tenant: 'demo' })).json().events[0].id;
  }
  const event = async (id: string): Promise<EventRecord> => (await t.api('GET', `/api/v1/events/${id}`, undefined, { tenant: 'demo' })).json();
  const replay = (id: string) => t.api('POST', `/api/v1/events/${id}/replay`, undefined, { tenant: 'demo' });
  const tick = () => t.services.worker.tick();
  const statuses = (e: EventRecord) => e.delivery.attempts.map((a) => a.status);

  it('a failed replay fails a delivered event; a successful one delivers it again with a fresh delivered_at', async () => {
    const id = await newEvent();
    await tick();
    const delivered = await event(id);
    expect(delivered.delivery.status).toBe('delivered');
    expect(delivered.delivery.delivered_at).not.toBeNull();

    rx.script([503]);
    expect((await replay(id)).statusCode).toBe(502);
    const failed = await event(id);
    expect(failed.delivery).toMatchObject({ status: 'failed', delivered_at: null });
    expect(statuses(failed)).toEqual([200, 503]);
    expect((await t.api('GET', '/api/v1/events?status=failed&limit=200', undefined, { tenant: 'demo' })).json().events.map((e: EventRecord) => e.id)).toContain(id);
    // A failed replay is final for that delivery: the worker does not pick it up again.
    await tick();
    expect(statuses(await event(id))).toEqual([200, 503]);

    t.clock.advance(60_000);
    const replayedAt = t.clock.now();
    expect((await replay(id)).statusCode).toBe(200);
    const again = await event(id);
    expect(again.delivery.status).toBe('delivered');
    expect(statuses(again)).toEqual([200, 503, 200]);
    expect(Date.parse(again.delivery.delivered_at!)).toBeGreaterThanOrEqual(replayedAt);
    expect(Date.parse(again.delivery.delivered_at!)).toBeGreaterThan(Date.parse(delivered.delivery.delivered_at!) + 59_000);
  });

  it('a failed replay while automatic retries are due leaves them running, and the last one decides', async () => {
    const id = await newEvent();
    rx.script([500, 500, 500, 200]);
    await tick(); // automatic attempt 1: 500, retry due
    expect((await replay(id)).statusCode).toBe(502); // the replay: 500
    expect((await event(id)).delivery.status).toBe('pending');
    await tick(); // automatic attempt 2: 500
    await tick(); // automatic attempt 3: 200
    const done = await event(id);
    expect(statuses(done)).toEqual([500, 500, 500, 200]);
    expect(done.delivery.status).toBe('delivered');
  });

  it('a replay does not use up the automatic attempts: all 3 still happen when every answer fails', async () => {
    const id = await newEvent();
    rx.script([], 500);
    await tick();
    expect((await replay(id)).statusCode).toBe(502);
    for (let i = 0; i < 4; i++) await tick();
    const done = await event(id);
    expect(statuses(done)).toEqual([500, 500, 500, 500]);
    expect(done.delivery.status).toBe('failed');
  });

  it('a successful replay while automatic retries are due ends them as delivered', async () => {
    const id = await newEvent();
    rx.script([500, 200]);
    await tick();
    expect((await replay(id)).statusCode).toBe(200);
    await tick();
    const done = await event(id);
    expect(statuses(done)).toEqual([500, 200]);
    expect(done.delivery.status).toBe('delivered');
  });

  it('an automatic attempt failing while a replay delivers does not undo the replay', async () => {
    const id = await newEvent();
    const before = rx.received.length;
    rx.script(['timeout', 200]);
    const attempt = tick(); // claims the delivery and waits on a receiver that never answers
    await rx.waitFor(before + 1);
    expect((await replay(id)).statusCode).toBe(200);
    await attempt; // times out: would schedule a retry
    await tick();
    const done = await event(id);
    expect(done.delivery.status).toBe('delivered');
    expect(statuses(done)).toEqual([200, 0]);
    expect(rx.received.length).toBe(before + 2);
  });

  it('with two destinations: succeeds when one delivers; retryable only when a failure may pass', async () => {
    const rx2 = await startReceiver();
    const sub2 = (await t.api('POST', '/api/v1/webhook-subscriptions', { url: rx2.url, events: ['message.received'] })).json();
    try {
      const id = await newEvent();
      await tick();
      rx.script([500]);
      const mixed = await replay(id);
      // The event is delivered (one destination has it), and the replay says so.
      expect(mixed.statusCode).toBe(200);
      expect(mixed.json()).toMatchObject({ ok: true, downstream_status: 200 });
      expect(mixed.json().message).toBe(`delivered to 1 of 2 destination(s); subscription ${subId} answered 500`);
      const after = await event(id);
      expect(after.delivery.status).toBe('delivered');
      expect((after.delivery as unknown as { url: string }).url).toBe(rx2.url);

      // Every destination answered 4xx: their final word, not worth retrying.
      rx.script([404]);
      rx2.script([410]);
      const final = await replay(id);
      expect(final.statusCode).toBe(502);
      expect(final.json()).toMatchObject({ ok: false, error: 'replay_failed', downstream_status: 404, code: 4001, retryable: false });
      // A 5xx among them may pass on a later replay.
      rx.script([404]);
      rx2.script([503]);
      expect((await replay(id)).json()).toMatchObject({ ok: false, retryable: true });
    } finally {
      await t.api('DELETE', `/api/v1/webhook-subscriptions/${sub2.id}`);
      await rx2.close();
    }
  });
});
