/**
 * A replay (POST /api/v1/events/{id}/replay) POSTs to the receiver as the worker does: its
 * attempts count in blueline_webhook_attempts_total (src/services.ts wraps the event log's
 * `attempt` with observeReplayAttempts, src/metrics/wrap.ts).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { startReceiver, HAND_DRIVEN_DELIVERY_ENV, type Receiver } from '../support/receiver.js';
import { newRecipient, prepareSandbox } from '../support/messaging.js';

const TOKEN = `metrics-${randomBytes(12).toString('hex')}`;
let t: TestApp;
let rx: Receiver;
beforeAll(async () => {
  t = await startTestApp('sqlite', { METRICS_TOKEN: TOKEN, ...HAND_DRIVEN_DELIVERY_ENV });
  await prepareSandbox(t);
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
  await t.close();
});

const attempts = (text: string, outcome: string, statusClass: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`blueline_webhook_attempts_total{outcome="${outcome}",status_class="${statusClass}"} `));
  return line ? Number(line.split(' ').pop()) : 0;
};

it('counts a replay\'s attempts, delivered or failed, like the worker\'s', async () => {
  const scrape = async () => (await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body;
  expect((await t.api('POST', '/api/v1/webhook-subscriptions', { url: rx.url, events: ['message.received'] })).statusCode).toBe(201);
  const line = t.demo.phone_line_ids[0]!;
  const inbound = await t.admin('POST', `/admin/v1/lines/${line}/simulate/inbound`, { guid: `g-${randomBytes(6).toString('hex')}`, from: newRecipient(), parts: [{ type: 'text', value: 'hi' }] });
  expect(inbound.statusCode).toBe(202);
  await t.services.worker.tick();
  const [event] = (await t.api('GET', '/api/v1/events?limit=1', undefined, { tenant: 'demo' })).json().events;
  const before = await scrape();
  const seen = rx.received.length;
  rx.script([503, 200]);
  const failed = await t.api('POST', `/api/v1/events/${event.id}/replay`, {}, { tenant: 'demo' });
  const delivered = await t.api('POST', `/api/v1/events/${event.id}/replay`, {}, { tenant: 'demo' });
  expect([failed.json().ok, delivered.json().ok]).toEqual([false, true]);
  expect(rx.received.length - seen).toBe(2);
  const after = await scrape();
  expect(attempts(after, 'failed', '5xx') - attempts(before, 'failed', '5xx')).toBe(1);
  expect(attempts(after, 'delivered', '2xx') - attempts(before, 'delivered', '2xx')).toBe(1);
});
