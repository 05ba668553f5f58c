/**
 * A webhook delivery in flight in one process, with another process on the same PostgreSQL
 * database: the other's delivery worker has nothing it can claim, so it sleeps until its poll
 * (BLUELINE_WORKER_POLL_MS) or a wake-up. Before, the job held by the first counted as due, and
 * the other process claimed (and asked when the next job is due) every 5 ms until the attempt
 * ended: two statements each time, in every other process, for as long as a slow receiver held it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { prepareSandbox } from '../support/messaging.js';

const ENV = { BLUELINE_ALLOW_PRIVATE_NETWORKS: '1', BLUELINE_WEBHOOK_TIMEOUT_MS: '4000', BLUELINE_WEBHOOK_BACKOFF_MS: '60000,60000' };

/** Counts the delivery claims `t`'s worker makes. */
function countClaims(t: TestApp): { n: number } {
  const counter = { n: 0 };
  const deliveries = t.testStore.store.deliveries;
  const claimDue = deliveries.claimDue.bind(deliveries);
  deliveries.claimDue = ((...args: Parameters<typeof claimDue>) => {
    counter.n++;
    return claimDue(...args);
  }) as typeof claimDue;
  return counter;
}

describe('delivery workers of two processes on one PostgreSQL database', () => {
  let a: TestApp;
  let b: TestApp;
  let rx: Receiver;
  beforeAll(async () => {
    a = await startTestApp('postgres', ENV);
    b = await startTestApp('postgres', ENV, { join: a });
    await prepareSandbox(a);
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx.close();
    await b.close();
    await a.close();
  });

  it('while one process waits on a slow receiver, the other sleeps between polls, and still delivers what comes meanwhile', async () => {
    expect((await a.api('POST', '/api/v1/webhook-subscriptions', { url: rx.url, events: ['message.received'] })).statusCode).toBe(201);
    const claims = [countClaims(a), countClaims(b)];
    // The first attempt gets no answer (it times out after 4 s); the next ones are answered.
    rx.script(['timeout'], 200);
    await a.admin('POST', `/admin/v1/lines/${a.demo.phone_line_ids[0]}/simulate/inbound`, { from: '+14155550199', text: 'to a slow receiver' });
    await rx.waitFor(1);
    const before = claims.map((c) => c.n);
    await new Promise((r) => setTimeout(r, 1_000));
    const during = claims.map((c, i) => c.n - before[i]!);
    // One process is in its tick, waiting on the receiver; the other polls every 500 ms at most.
    expect(during[0]! + during[1]!, `claims in 1 s: ${during}`).toBeLessThanOrEqual(6);
    // An event arriving meanwhile is delivered at once by the process that is free.
    const sent = Date.now();
    await b.admin('POST', `/admin/v1/lines/${a.demo.phone_line_ids[0]}/simulate/inbound`, { from: '+14155550198', text: 'while the first waits' });
    await rx.waitFor(2);
    expect(rx.received.map((r) => JSON.parse(r.body.toString()).text)).toEqual(['to a slow receiver', 'while the first waits']);
    expect(Date.now() - sent).toBeLessThan(2_500);
  });
});
