/**
 * An event's status after automatic deliveries to several destinations: delivered once any
 * answered 2xx, failed once all ended without, pending while a retry is due. On PostgreSQL the
 * worker settles the status in the statement that records the attempt only for an event with
 * one destination (store/deliveries.ts); with several it settles it after, as both stores did.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { STORE_KINDS } from '../support/stores.js';
import { eventually } from '../support/messaging.js';

/** A receiver that answers 4xx slowly: its result is recorded after the other destination's. */
async function slowRefuser(ms: number): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => setTimeout(() => res.writeHead(400).end('no'), ms));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

const ENV = { BLUELINE_ALLOW_PRIVATE_NETWORKS: '1', BLUELINE_WEBHOOK_BACKOFF_MS: '20,40', BLUELINE_WEBHOOK_TIMEOUT_MS: '300' };

describe.each(STORE_KINDS)('event status over several destinations (%s)', (kind) => {
  let t: TestApp;
  let one: Receiver;
  let two: Receiver;
  let seq = 0;
  const subs: string[] = [];

  beforeAll(async () => {
    t = await startTestApp(kind, ENV);
    [one, two] = [await startReceiver(), await startReceiver()];
  });
  afterAll(async () => {
    await one.close();
    await two.close();
    await t.close();
  });

  const subscribe = async (rx: Receiver) => {
    const res = await t.api('POST', '/api/v1/webhook-subscriptions', { url: rx.url, events: ['message.received'] });
    expect(res.statusCode).toBe(201);
    subs.push(res.json().id);
  };
  const unsubscribeAll = async () => {
    for (const id of subs.splice(0)) await t.api('DELETE', `/api/v1/webhook-subscriptions/${id}`);
  };
  /** Injects one message and waits until its event's status is final (or `ms` passed). */
  const eventAfter = async (until: (status: string) => boolean, guid = `status-${kind}-${seq++}`) => {
    await t.admin('POST', `/admin/v1/lines/${t.demo.phone_line_ids[0]}/simulate/inbound`, { from: '+16285550100', text: 'status', guid });
    const list = async () =>
      ((await t.api('GET', '/api/v1/events?limit=100', undefined, { tenant: 'demo' })).json().events as { payload: { message_guid: string }; delivery: { status: string; attempts: unknown[] } }[]).find(
        (e) => e.payload.message_guid === guid,
      );
    return eventually(list, (e) => e !== undefined && until(e.delivery.status), 5_000);
  };

  it('one destination answers 2xx, the other 4xx: delivered', async () => {
    await subscribe(one);
    await subscribe(two);
    one.script([200]);
    two.script([400]);
    const e = await eventAfter((s) => s === 'delivered');
    expect(e!.delivery.status).toBe('delivered');
    expect(e!.delivery.attempts).toHaveLength(2);
  });

  it('both answer 4xx: failed', async () => {
    one.script([404]);
    two.script([400]);
    const e = await eventAfter((s) => s === 'failed');
    expect(e!.delivery.status).toBe('failed');
  });

  it('one 4xx, the other 5xx then 2xx: pending while the retry is due, then delivered', async () => {
    one.script([400]);
    two.script([503, 200]);
    const e = await eventAfter((s) => s === 'delivered');
    expect(e!.delivery.status).toBe('delivered');
    expect(e!.delivery.attempts).toHaveLength(3);
  });

  it('a 4xx recorded after the other destination delivered does not undo the delivery', async () => {
    await unsubscribeAll();
    const slow = await slowRefuser(150);
    try {
      await subscribe(one);
      const res = await t.api('POST', '/api/v1/webhook-subscriptions', { url: slow.url, events: ['message.received'] });
      subs.push(res.json().id);
      one.script([200]);
      const guid = `slow-${kind}`;
      expect((await eventAfter((s) => s !== 'pending', guid))!.delivery.status).toBe('delivered');
      // The slow 4xx is recorded meanwhile (the same guid again records nothing new).
      await new Promise((r) => setTimeout(r, 300));
      const after = await eventAfter((s) => s !== 'pending', guid);
      expect(after!.delivery.attempts).toHaveLength(2);
      expect(after!.delivery.status).toBe('delivered');
    } finally {
      await slow.close();
    }
  });

  it('a single destination: 5xx three times is failed, 5xx then 2xx delivered', async () => {
    await unsubscribeAll();
    await subscribe(one);
    one.script([500, 502, 500]);
    const failed = await eventAfter((s) => s === 'failed');
    expect(failed!.delivery.attempts).toHaveLength(3);
    one.script([500, 200]);
    const delivered = await eventAfter((s) => s === 'delivered');
    expect(delivered!.delivery.attempts).toHaveLength(2);
  });
});
