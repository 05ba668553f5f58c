/**
 * Delivery jobs have an owner (issue 16, item 2): a worker whose lease ran out while it was
 * still delivering must not overwrite the result of the worker that claimed the job next.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryWorker } from '../../src/delivery/worker.js';
import { eventBus } from '../../src/domain/events/bus.js';
import { testClock } from '../../src/clock.js';
import { STORE_KINDS, createTestStore, joinTestStore, type TestStore } from '../support/stores.js';

const event = (id: string) => ({
  id, tenant_id: 'ten_1', type: 'message.received', event_id: `k_${id}`, lead_id: null, convo_id: null, payload: '{"x":1}',
  status: 'pending' as const, dev_inbox: false, delivered_at: null, created_at: 1_000,
});
const job = (id: string, eventRef: string, subscriptionId = 'sub_1') => ({
  id, event_ref: eventRef, subscription_id: subscriptionId, tenant_id: 'ten_1', url: 'https://example.com/h', state: 'pending' as const,
  attempts: 0, next_attempt_at: 0, lease_until: null, created_at: 1_000,
});

describe.each(STORE_KINDS)('delivery job leases on %s', (kind) => {
  let ts: TestStore;
  let other: TestStore;
  beforeAll(async () => {
    ts = await createTestStore(kind);
    other = await joinTestStore(ts); // the second worker's process
  });
  afterAll(async () => {
    await other.cleanup();
    await ts.cleanup();
  });

  it("refuses a late release from the worker whose lease expired, and keeps the new owner's claim", async () => {
    await ts.store.events.insertEvent(event('evt_l1'));
    await ts.store.events.insertJobs([job('job_l1', 'evt_l1')]);
    const [a] = await ts.store.events.claimDueJobs('worker-a', 1_000, 100, 10);
    expect(a).toMatchObject({ id: 'job_l1', locked_by: 'worker-a', lease_until: 1_100 });
    // A's lease runs out; B (another process) claims the job.
    expect(await other.store.events.claimDueJobs('worker-b', 1_050, 60_000, 10)).toEqual([]);
    const [b] = await other.store.events.claimDueJobs('worker-b', 1_200, 60_000, 10);
    expect(b).toMatchObject({ id: 'job_l1', locked_by: 'worker-b' });

    // A finishes late: refused, and B still holds the job (no third claim while B works).
    expect(await ts.store.events.releaseJob('job_l1', 'worker-a', { state: 'failed', attempts: 1, next_attempt_at: 0 })).toBe(false);
    expect(await ts.store.events.endJob('job_l1', 'failed', 'worker-a')).toBe(false);
    expect(await ts.store.events.claimDueJobs('worker-c', 1_300, 60_000, 10)).toEqual([]);
    expect((await ts.store.events.jobsOf('evt_l1'))[0]).toMatchObject({ state: 'pending', attempts: 0, locked_by: 'worker-b' });

    // B's result stands, and A's later attempt to finish changes nothing.
    expect(await other.store.events.releaseJob('job_l1', 'worker-b', { state: 'pending', attempts: 1, next_attempt_at: 9_000 })).toBe(true);
    expect(await ts.store.events.releaseJob('job_l1', 'worker-a', { state: 'delivered', attempts: 1, next_attempt_at: 0 })).toBe(false);
    expect((await ts.store.events.jobsOf('evt_l1'))[0]).toMatchObject({ state: 'pending', attempts: 1, next_attempt_at: 9_000, lease_until: null, locked_by: null });
    await ts.store.events.endJob('job_l1', 'delivered'); // out of the next test's way
  });

  it('two real workers: the first one, finishing after its lease ran out, does not turn a delivered event into failed', async () => {
    // Request 1 (worker A) is answered 400 after 400 ms; request 2 (worker B) 200 after 800 ms.
    const plan = [
      { delayMs: 400, status: 400 },
      { delayMs: 800, status: 200 },
    ];
    let seen = 0;
    const server = http.createServer((req, res) => {
      const step = plan[Math.min(seen++, plan.length - 1)]!;
      req.resume();
      setTimeout(() => res.writeHead(step.status).end(), step.delayMs);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      await ts.store.events.insertSubscription({ id: 'sub_w', tenant_id: 'ten_1', url, events: ['message.received'], secret: 'whsec_x', created_at: 1_000 });
      await ts.store.events.insertEvent(event('evt_w'));
      await ts.store.events.insertJobs([job('job_w', 'evt_w', 'sub_w')]);
      const settings = { timeoutMs: 5_000, allowPrivateNetworks: true, brand: 'service', backoffMs: [60_000], pollMs: 60_000, batch: 8 };
      const clock = testClock();
      const a = deliveryWorker({ store: ts.store, clock, bus: eventBus() }, { ...settings, leaseMs: 100 });
      const b = deliveryWorker({ store: other.store, clock, bus: eventBus() }, { ...settings, leaseMs: 60_000 });
      expect(a.name).not.toBe(b.name);

      const first = a.tick();
      while (seen < 1) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 150)); // A's lease is over; its request is still open
      const second = b.tick();
      expect(await first).toBe(1); // A heard 400 (final) while B was still delivering
      expect(await second).toBe(1);

      expect((await ts.store.events.jobsOf('evt_w'))[0]).toMatchObject({ state: 'delivered', attempts: 1, locked_by: null });
      expect((await ts.store.events.eventById('evt_w'))?.status).toBe('delivered');
      // Both attempts are in the log: nothing the receiver saw is hidden.
      expect((await ts.store.events.attemptsOf('evt_w')).map((x) => x.status).sort()).toEqual([200, 400]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
