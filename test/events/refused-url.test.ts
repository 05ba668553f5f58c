/**
 * A webhook URL the service's own policy refuses at delivery time (a private or loopback address:
 * a subscription made while BLUELINE_ALLOW_PRIVATE_NETWORKS was set, or a name that now resolves
 * to one) is not a network error: the next attempt would be refused the same way. One attempt,
 * its reason recorded, and the event is failed (a replay can try again once the setting allows it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { HAND_DRIVEN_DELIVERY_ENV, startReceiver, type Receiver } from '../support/receiver.js';
import { prepareSandbox } from '../support/messaging.js';

describe.each(STORE_KINDS)('a webhook URL refused by policy (%s)', (kind) => {
  let t: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await startTestApp(kind, { ...HAND_DRIVEN_DELIVERY_ENV, BLUELINE_ALLOW_PRIVATE_NETWORKS: '0' });
    await prepareSandbox(t);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it('is attempted once, not retried, and the event is failed with the reason', async () => {
    const created = await t.api('POST', '/api/v1/webhook-subscriptions', { url: 'https://hooks.example.com/in', events: ['message.received'] });
    expect(created.statusCode, created.body).toBe(201);
    // As if made while private targets were allowed: a loopback receiver that would answer 200.
    await t.testStore.store.database.db.updateTable('webhook_subscriptions').set({ url: receiver.url }).where('id', '=', created.json().id).execute();

    await t.admin('POST', `/admin/v1/lines/${t.demo.phone_line_ids[0]}/simulate/inbound`, { from: '+14155550161', text: 'refused' });
    const id = (await t.api('GET', '/api/v1/events?limit=1', undefined, { tenant: 'demo' })).json().events[0].id;
    for (let i = 0; i < 4; i++) await t.services.worker.tick();

    const { delivery } = (await t.api('GET', `/api/v1/events/${id}`, undefined, { tenant: 'demo' })).json();
    expect(delivery.status).toBe('failed');
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0].error).toMatch(/^forbidden_address: .*BLUELINE_ALLOW_PRIVATE_NETWORKS=1/);
    expect(receiver.received).toHaveLength(0);

    // A replay is refused the same way, and says retrying will not help.
    const replay = await t.api('POST', `/api/v1/events/${id}/replay`, undefined, { tenant: 'demo' });
    expect(replay.statusCode).toBe(502);
    expect(replay.json()).toMatchObject({ ok: false, downstream_status: 0, retryable: false });
    expect(replay.json().message).toContain('has a URL this service may not send to');
    expect(receiver.received).toHaveLength(0);
  });
});
