/**
 * An event with several destinations whose jobs change at the same moment (two workers, or a
 * replay and a worker) ends with the status all its jobs say, on PostgreSQL. There a statement
 * that waited for the event row's lock writes the row as it is after the other transaction, but
 * reads the jobs as they were when it started: unless the store notices, the last writer sets a
 * status from a job state that is no longer true, and nothing settles the event again.
 *
 * The interleaving is forced, not hoped for: one side runs inside a transaction the test holds
 * open (the real store code, bound to that transaction), the other side's real statement is
 * seen waiting for the event row in pg_stat_activity, then the test commits.
 * SQLite has one writer at a time, so there is no such interleaving to test.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStore, joinTestStore, type TestStore } from '../support/stores.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { startReceiver, type Receiver, HAND_DRIVEN_DELIVERY_ENV } from '../support/receiver.js';
import { prepareSandbox } from '../support/messaging.js';
import type { Repos } from '../../src/store/index.js';

/** Resolves once some session of the test database waits for a lock (a row another transaction holds). */
async function lockWaitSeen(url: string, ms = 5_000): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const deadline = Date.now() + ms;
    for (;;) {
      const { rows } = await c.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
      if (rows[0]!.n > 0) return;
      if (Date.now() > deadline) throw new Error('no statement came to wait for the held transaction');
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    await c.end();
  }
}

/**
 * Runs `work` in a transaction of `ts` and keeps it open (its locks held) until `commit()`;
 * `ready` resolves once `work` is done.
 */
function heldTransaction(ts: TestStore, work: (tx: Repos) => Promise<unknown>) {
  let commit!: () => void;
  const released = new Promise<void>((r) => (commit = r));
  let ready!: () => void;
  const done = new Promise<void>((r) => (ready = r));
  const finished = ts.store.transaction(async (tx) => {
    await work(tx);
    ready();
    await released;
  });
  return { ready: Promise.race([done, finished]), commit: () => (commit(), finished) };
}

const event = (id: string) => ({
  id, tenant_id: 'ten_1', type: 'message.received', event_id: `k_${id}`, lead_id: null, convo_id: null, payload: '{"x":1}',
  status: 'pending' as const, dev_inbox: false, delivered_at: null, created_at: 1_000,
});
const job = (id: string, eventRef: string, subscriptionId: string, nextAttemptAt: number) => ({
  id, event_ref: eventRef, subscription_id: subscriptionId, tenant_id: 'ten_1', url: 'https://example.com/h', state: 'pending' as const,
  attempts: 0, next_attempt_at: nextAttemptAt, lease_until: null, created_at: 1_000,
});
const attempt = (id: string, eventRef: string, subscriptionId: string, status: number) => ({
  id, event_ref: eventRef, subscription_id: subscriptionId, at: 2_000, status, duration_ms: 5, error: null,
});

describe('two workers finishing jobs of one event at the same moment (postgres)', () => {
  let ts: TestStore;
  let other: TestStore;
  beforeAll(async () => {
    ts = await createTestStore('postgres');
    other = await joinTestStore(ts); // the second worker's process
  });
  afterAll(async () => {
    await other.cleanup();
    await ts.cleanup();
  });

  it.each([
    { second: 'delivered' as const, answer: 200, expected: 'delivered' },
    { second: 'failed' as const, answer: 400, expected: 'failed' },
  ])('one destination fails while the other is $second: the event ends $expected', async ({ second, answer, expected }) => {
    const id = `evt_${second}`;
    await ts.store.events.insertEvent(event(id));
    await ts.store.events.insertJobs([job(`job_${second}_a`, id, 'sub_a', 0), job(`job_${second}_b`, id, 'sub_b', 1)]);
    const [a] = await ts.store.events.claimDueJobs('worker-a', 1_000, 60_000, 1);
    const [b] = await other.store.events.claimDueJobs('worker-b', 1_000, 60_000, 1);
    expect([a?.id, b?.id]).toEqual([`job_${second}_a`, `job_${second}_b`]);

    // Worker B records its result and settles the event, and its transaction stays open.
    const workerB = heldTransaction(other, (tx) =>
      tx.deliveries.finishAttempt(b!, 'worker-b', attempt(`dla_${second}_b`, id, 'sub_b', answer), { state: second, attempts: 1, next_attempt_at: 1 }, 3_000),
    );
    await workerB.ready;
    // Worker A's job fails (final 4xx); settling the event, it waits for B's lock on the event.
    const workerA = ts.store.deliveries.finishAttempt(a!, 'worker-a', attempt(`dla_${second}_a`, id, 'sub_a', 404), { state: 'failed', attempts: 1, next_attempt_at: 0 }, 4_000);
    await lockWaitSeen(ts.location);
    await workerB.commit();
    expect(await workerA).toBe(true);

    expect((await ts.store.events.jobsOf(id)).map((j) => j.state)).toEqual(['failed', second]);
    const settled = await ts.store.events.eventById(id);
    expect(settled?.status).toBe(expected);
    expect(settled?.delivered_at).toBe(second === 'delivered' ? 3_000 : null);
  });

  it("a replay delivering to a new destination while the event's only job fails: the event ends delivered", async () => {
    const id = 'evt_new_destination';
    await ts.store.events.insertEvent(event(id));
    await ts.store.events.insertJobs([job('job_only', id, 'sub_a', 0)]);
    const [a] = await ts.store.events.claimDueJobs('worker-a', 1_000, 60_000, 10);
    expect(a?.id).toBe('job_only');

    // The replay's store steps for a destination the event had no job for (it delivered), held open.
    const replay = heldTransaction(other, async (tx) => {
      await tx.events.insertAttempt(attempt('dla_new_b', id, 'sub_b', 200));
      await tx.events.insertJobs([{ ...job('job_new_b', id, 'sub_b', 0), state: 'delivered', attempts: 1 }]);
      await tx.events.settleEventStatus(id, 3_000);
    });
    await replay.ready;
    // The worker's statement sees one job (the new one is not committed) and waits to set the status from it alone.
    const worker = ts.store.deliveries.finishAttempt(a!, 'worker-a', attempt('dla_only_a', id, 'sub_a', 404), { state: 'failed', attempts: 1, next_attempt_at: 0 }, 4_000);
    await lockWaitSeen(ts.location);
    await replay.commit();
    expect(await worker).toBe(true);

    expect((await ts.store.events.jobsOf(id)).map((j) => j.state)).toEqual(['delivered', 'failed']);
    expect(await ts.store.events.eventById(id)).toMatchObject({ status: 'delivered', delivered_at: 3_000 });
  });
});

describe('a replay and a worker changing jobs of one event at the same moment (postgres)', () => {
  let t: TestApp;
  let one: Receiver;
  let two: Receiver;
  let subTwo: string;
  beforeAll(async () => {
    t = await startTestApp('postgres', HAND_DRIVEN_DELIVERY_ENV);
    await prepareSandbox(t);
    [one, two] = [await startReceiver(), await startReceiver()];
    for (const rx of [one, two]) {
      const res = await t.api('POST', '/api/v1/webhook-subscriptions', { url: rx.url, events: ['message.received'] });
      expect(res.statusCode).toBe(201);
      if (rx === two) subTwo = res.json().id;
    }
  });
  afterAll(async () => {
    await one.close();
    await two.close();
    await t.close();
  });

  it("a failed replay to the destination that had it, while the other's last retry fails: the event ends failed", async () => {
    await t.admin('POST', `/admin/v1/lines/${t.demo.phone_line_ids[0]}/simulate/inbound`, { from: '+14155550131', text: 'race' });
    const id: string = (await t.api('GET', '/api/v1/events?limit=1', undefined, { tenant: 'demo' })).json().events[0].id;
    const { store } = t.testStore;
    // Destination one answers 503 (a retry is due at once), two delivers: the event is delivered.
    one.script([503]);
    two.script([200]);
    await t.services.worker.tick();
    expect((await t.api('GET', `/api/v1/events/${id}`, undefined, { tenant: 'demo' })).json().delivery.status).toBe('delivered');

    // A worker takes destination one's retry; its 4xx is recorded in a transaction held open.
    const [retry] = await store.events.claimDueJobs('worker-r', Date.now(), 60_000, 10);
    expect(retry?.event_ref).toBe(id);
    const worker = heldTransaction(t.testStore, (tx) =>
      tx.deliveries.finishAttempt(retry!, 'worker-r', attempt('dla_race_one', id, retry!.subscription_id, 410), { state: 'failed', attempts: 2, next_attempt_at: 0 }, t.clock.now()),
    );
    await worker.ready;
    // Meanwhile a replay to destination two fails, and its settling waits for the worker's lock.
    two.script([404]);
    const replay = t.api('POST', `/api/v1/events/${id}/replay?subscription_id=${subTwo}`, undefined, { tenant: 'demo' });
    await lockWaitSeen(t.testStore.location);
    await worker.commit();
    expect((await replay).statusCode).toBe(502);

    // Both destinations ended without a 2xx: failed, and listed as such.
    const after = (await t.api('GET', `/api/v1/events/${id}`, undefined, { tenant: 'demo' })).json();
    expect(after.delivery).toMatchObject({ status: 'failed', delivered_at: null });
    const failed = (await t.api('GET', '/api/v1/events?status=failed&limit=200', undefined, { tenant: 'demo' })).json().events;
    expect(failed.map((e: { id: string }) => e.id)).toContain(id);
  });
});
