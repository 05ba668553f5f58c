import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { prepareSandbox } from '../support/messaging.js';

// Polls are set to a minute: only LISTEN/NOTIFY can wake the other process in time, that is
// well within the minute. The bound is not a latency budget (a loaded machine takes seconds);
// the stream lives longer than it.
const ENV = { BLUELINE_ALLOW_PRIVATE_NETWORKS: '1', BLUELINE_SSE_POLL_MS: '60000', BLUELINE_WORKER_POLL_MS: '60000', BLUELINE_SSE_MAX_MS: '30000' };
const IN_TIME_MS = 20_000;

describe('two processes on one PostgreSQL database', () => {
  let a: TestApp;
  let b: TestApp;
  let rx: Receiver;
  beforeAll(async () => {
    a = await startTestApp('postgres', { ...ENV, BLUELINE_DELIVERY_WORKER: '0' });
    b = await startTestApp('postgres', ENV, { join: a });
    await prepareSandbox(a);
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx.close();
    await b.close();
    await a.close();
  });

  it('wakes the other process\'s worker and streams at once', async () => {
    expect((await a.api('POST', '/api/v1/webhook-subscriptions', { url: rx.url, events: ['message.received'] })).statusCode).toBe(201);
    const base = await b.app.listen({ port: 0, host: '127.0.0.1' });
    const frames: string[] = [];
    let opened!: () => void;
    const open = new Promise<void>((r) => (opened = r));
    const req = http.get(`${base}/api/v1/events/stream`, { headers: { authorization: `Bearer ${a.demo.signing_secret}`, 'x-service-tenant': 'demo' } }, (res) => {
      res.on('data', (d) => frames.push(d.toString()));
      opened();
    });
    await open;
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    // The inbound arrives in process A, whose worker is off: B must deliver it and stream it.
    await a.admin('POST', `/admin/v1/lines/${a.demo.phone_line_ids[0]}/simulate/inbound`, { from: '+14155550101', text: 'cross-process' });
    await rx.waitFor(1, IN_TIME_MS);
    expect(rx.received).toHaveLength(1);
    while (!frames.join('').includes('cross-process') && Date.now() - started < IN_TIME_MS) await new Promise((r) => setTimeout(r, 10));
    req.destroy();
    expect(frames.join('')).toContain('cross-process');
    expect(Date.now() - started).toBeLessThan(IN_TIME_MS);
  });
});
