/**
 * GET /metrics as an operator's Prometheus sees it: only with METRICS_TOKEN, in the text format
 * (checked by promtool, Prometheus's own checker), with the figures moving as the service works.
 */
import http from 'node:http';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { eventually, firstTouch, moveToNextNoonUtc, newRecipient, prepareSandbox } from '../support/messaging.js';
import { SIMULATOR_RECIPIENTS } from '../../src/drivers/simulator/reserved.js';
import { promtoolInstalled, sample } from '../support/metrics-text.js';

const TOKEN = `metrics-${randomBytes(12).toString('hex')}`;
const ENV = {
  METRICS_TOKEN: TOKEN,
  BLUELINE_ALLOW_PRIVATE_NETWORKS: '1',
  BLUELINE_WEBHOOK_BACKOFF_MS: '20,40',
  BLUELINE_WEBHOOK_TIMEOUT_MS: '300',
};

const promtool = promtoolInstalled;

describe('GET /metrics', () => {
  let t: TestApp;
  let rx: Receiver;
  let line: string;
  beforeAll(async () => {
    t = await startTestApp('sqlite', ENV);
    await prepareSandbox(t);
    rx = await startReceiver();
    line = t.demo.phone_line_ids[0]!;
  });
  afterAll(async () => {
    await rx.close();
    await t.close();
  });

  const scrape = async () => {
    const res = await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode, res.body).toBe(200);
    return res.body;
  };
  const inbound = () => t.admin('POST', `/admin/v1/lines/${line}/simulate/inbound`, { guid: `g-${randomBytes(6).toString('hex')}`, from: newRecipient(), parts: [{ type: 'text', value: 'hi' }] });

  it('is off without METRICS_TOKEN: 404, exactly as an unknown path', async () => {
    const off = await startTestApp('sqlite');
    try {
      const metrics = await off.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
      const unknown = await off.request({ method: 'GET', url: '/no-such-path', headers: { authorization: `Bearer ${TOKEN}` } });
      expect(metrics.statusCode).toBe(404);
      expect(metrics.json().error.code).toBe(unknown.json().error.code);
    } finally {
      await off.close();
    }
  });

  it('answers only the metrics token: 401 in the error envelope otherwise', async () => {
    const none = await t.request({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    expect(none.json().error).toMatchObject({ code: 2012 });
    for (const wrong of [t.adminToken, t.demo.signing_secret, `${TOKEN}x`]) {
      const res = await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${wrong}` } });
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toMatchObject({ code: 2004 });
      expect(res.headers['x-trace-id']).toBeTruthy();
    }
    const ok = await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    // Process metrics come along.
    expect(sample(ok.body, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  it('counts requests by route template and status class, never by raw path', async () => {
    const id = `msg_${randomBytes(16).toString('hex')}`;
    for (let i = 0; i < 3; i++) expect((await t.api('GET', `/api/v1/messages/${id}`)).statusCode).toBe(404);
    await t.request({ method: 'GET', url: `/no-such-${id}` });
    const text = await scrape();
    expect(sample(text, 'blueline_http_requests_total', { method: 'GET', route: '/api/v1/messages/:id', status_class: '4xx' })).toBe(3);
    expect(sample(text, 'blueline_http_request_duration_seconds_count', { route: '/api/v1/messages/:id', status_class: '4xx' })).toBe(3);
    expect(sample(text, 'blueline_http_requests_total', { route: 'unmatched', status_class: '4xx' })).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain(id);
  });

  it('counts sends by result, inbound messages, line restarts, and first touches against the caps', async () => {
    // First touches count per local day (the demo tenant's is UTC): the clock's moves below must
    // not cross a midnight between the two scrapes.
    moveToNextNoonUtc(t.clock);
    const before = await scrape();
    expect((await firstTouch(t, { phone: newRecipient(), body: 'hello' })).statusCode).toBe(200);
    expect((await firstTouch(t, { phone: SIMULATOR_RECIPIENTS.unreachable, body: 'nobody home' })).statusCode).toBe(502);
    expect((await inbound()).statusCode).toBe(202);
    for (let i = 0; i < 2; i++) expect((await t.admin('POST', `/admin/v1/lines/${line}/simulate/restart`)).statusCode).toBe(200);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('blueline_messages_sent_total', { kind: 'text', result: 'sent' })).toBe(1);
    expect(delta('blueline_messages_sent_total', { kind: 'text', result: 'failed' })).toBe(1);
    expect(delta('blueline_messages_received_total')).toBe(1);
    // The first restart replaces no earlier epoch of the line's service: only the second is a change.
    expect(delta('blueline_line_service_restarts_total')).toBe(1);
    // The failed first touch gave its slot back.
    expect(delta('blueline_first_touches_used')).toBe(1);
    const { tenant } = (await t.admin('GET', '/admin/v1/tenants/demo')).json();
    expect(sample(after, 'blueline_first_touches_cap')).toBe(tenant.daily_first_touch_cap);
    expect(sample(after, 'blueline_tenants_at_first_touch_cap')).toBe(0);
    // A cap of 1, already used today: the tenant shows as at its cap.
    expect((await t.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: 1 })).statusCode).toBe(200);
    const capped = await scrape();
    expect(sample(capped, 'blueline_tenants_at_first_touch_cap')).toBe(1);
    expect(sample(capped, 'blueline_first_touches_cap')).toBe(1);
    await t.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: tenant.daily_first_touch_cap });
    expect(sample(after, 'blueline_line_first_touch_capacity')).toBe(30 * t.demo.phone_line_ids.length);
    expect(sample(after, 'blueline_phone_lines', { state: 'up' })).toBe(t.demo.phone_line_ids.length);
  });

  it('reports webhook attempts by outcome, delivery latency, and pending deliveries with the age of the oldest', async () => {
    const sub = await t.api('POST', '/api/v1/webhook-subscriptions', { url: rx.url, events: ['message.received'] });
    expect(sub.statusCode).toBe(201);
    const before = await scrape();
    rx.script([500], 200);
    const seen = rx.received.length;
    expect((await inbound()).statusCode).toBe(202);
    await rx.waitFor(seen + 2);
    const after = await eventually(scrape, (text) => sample(text, 'blueline_webhook_attempts_total', { outcome: 'delivered' }) > sample(before, 'blueline_webhook_attempts_total', { outcome: 'delivered' }));
    const delta = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('blueline_webhook_attempts_total', { outcome: 'retry', status_class: '5xx' })).toBe(1);
    expect(delta('blueline_webhook_attempts_total', { outcome: 'delivered', status_class: '2xx' })).toBe(1);
    expect(delta('blueline_webhook_delivery_latency_seconds_count')).toBe(1);
    expect(sample(after, 'blueline_webhook_deliveries_pending')).toBe(0);
    expect(sample(after, 'blueline_webhook_oldest_pending_age_seconds')).toBe(0);

    // With the worker stopped, the next delivery waits: pending, and ageing with the clock.
    await t.services.worker.stop();
    expect((await inbound()).statusCode).toBe(202);
    t.clock.advance(90_000);
    const waiting = await scrape();
    expect(sample(waiting, 'blueline_webhook_deliveries_pending')).toBe(1);
    expect(sample(waiting, 'blueline_webhook_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(90);
    expect(sample(waiting, 'blueline_webhook_oldest_pending_age_seconds')).toBeLessThan(100);
  });

  it('counts open event streams', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    let req!: http.ClientRequest;
    await new Promise<void>((resolve, reject) => {
      req = http.get(`${address}/api/v1/events/stream`, { headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'x-service-tenant': 'demo' } }, (res) => {
        expect(res.statusCode).toBe(200);
        res.resume();
        resolve();
      });
      req.on('error', reject);
    });
    expect(sample(await scrape(), 'blueline_sse_connections')).toBe(1);
    req.destroy();
    const closed = await eventually(scrape, (text) => sample(text, 'blueline_sse_connections') === 0);
    expect(sample(closed, 'blueline_sse_connections')).toBe(0);
    // An open stream is a connection, not a request with a duration (it would skew the latency histogram).
    expect(sample(closed, 'blueline_http_request_duration_seconds_count', { route: '/api/v1/events/stream' })).toBe(0);
  });

  it('does not count an event stream that lived out its life as a request with that duration', async () => {
    // Its own app: streams here live 300 ms instead of 60 s (BLUELINE_SSE_MAX_MS), so the test waits for the end, not a minute.
    const short = await startTestApp('sqlite', { ...ENV, BLUELINE_SSE_MAX_MS: '300' });
    try {
      const address = await short.app.listen({ port: 0, host: '127.0.0.1' });
      const frames: string[] = [];
      await new Promise<void>((resolve, reject) => {
        http
          .get(`${address}/api/v1/events/stream`, { headers: { authorization: `Bearer ${short.demo.signing_secret}`, 'x-service-tenant': 'demo' } }, (res) => {
            expect(res.statusCode).toBe(200);
            res.on('data', (d) => frames.push(String(d)));
            res.on('end', resolve);
          })
          .on('error', reject);
      });
      expect(frames.join('')).toContain('event: close');
      const text = await eventually(
        async () => (await short.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body,
        (t) => sample(t, 'blueline_sse_connections') === 0,
      );
      expect(sample(text, 'blueline_sse_connections')).toBe(0);
      expect(sample(text, 'blueline_http_requests_total', { route: '/api/v1/events/stream' })).toBe(0);
      expect(sample(text, 'blueline_http_request_duration_seconds_count', { route: '/api/v1/events/stream' })).toBe(0);
      // A refused stream is an ordinary answered request.
      expect((await short.request({ method: 'GET', url: '/api/v1/events/stream' })).statusCode).toBe(401);
      const refused = (await short.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body;
      expect(sample(refused, 'blueline_http_requests_total', { method: 'GET', route: '/api/v1/events/stream', status_class: '4xx' })).toBe(1);
    } finally {
      await short.close();
    }
  });

  it('has every failure series at 0 before the first failure, so rate() and increase() see that failure', async () => {
    // A counter series born at 1 has no earlier sample to rise from: Prometheus' rate() over it
    // stays 0, and an alert like the README's "Sends failing" never fires for a first failure.
    const fresh = await startTestApp('sqlite', ENV);
    try {
      await prepareSandbox(fresh);
      const read = async () => (await fresh.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body;
      const has = (text: string, name: string, labels: string) => text.split('\n').some((l) => l.startsWith(`${name}{${labels}} `));
      const before = await read();
      for (const kind of ['text', 'media', 'voice_note', 'group']) {
        expect(has(before, 'blueline_messages_sent_total', `kind="${kind}",result="failed"`), kind).toBe(true);
        expect(has(before, 'blueline_messages_sent_total', `kind="${kind}",result="sent"`), kind).toBe(true);
      }
      for (const [outcome, statusClass] of [['failed', '5xx'], ['failed', 'none'], ['failed', '4xx'], ['retry', '5xx'], ['retry', 'none'], ['delivered', '2xx']]) {
        expect(has(before, 'blueline_webhook_attempts_total', `outcome="${outcome}",status_class="${statusClass}"`), `${outcome} ${statusClass}`).toBe(true);
      }
      expect(has(before, 'blueline_housekeeping_deleted_rows_total', 'kind="idempotency_record"')).toBe(true);
      // Each route's 5xx (the README's error alert), with no histogram until one is timed.
      expect(has(before, 'blueline_http_requests_total', 'method="POST",route="/api/v1/send",status_class="5xx"')).toBe(true);
      expect(has(before, 'blueline_http_request_duration_seconds_count', 'method="POST",route="/api/v1/send",status_class="5xx"')).toBe(false);
      expect(sample(before, 'blueline_messages_sent_total')).toBe(0);
      expect(sample(before, 'blueline_http_requests_total', { status_class: '5xx' })).toBe(0);

      // The first failed send moves the failed series from 0 to 1: a rise rate() sees.
      moveToNextNoonUtc(fresh.clock);
      expect((await firstTouch(fresh, { phone: SIMULATOR_RECIPIENTS.unreachable, body: 'nobody home' })).statusCode).toBe(502);
      const after = await read();
      expect(sample(after, 'blueline_messages_sent_total', { kind: 'text', result: 'failed' })).toBe(1);
      if (promtool) {
        const check = spawnSync('promtool', ['check', 'metrics'], { input: after, encoding: 'utf8' });
        expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
      }
    } finally {
      await fresh.close();
    }
  });

  it.skipIf(!promtool)('is valid Prometheus text format (promtool check metrics)', async () => {
    const text = await scrape();
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
    expect(`${check.stdout}${check.stderr}`.trim()).toBe('');
  });
  if (!promtool) it.skip('promtool is not installed (Debian package "prometheus"): the format check did not run', () => {});
});
