/**
 * Requests the router refuses (a path that is not validly percent-encoded, a path parameter over
 * the length limit) run no fastify hook, so they are counted by the server's frameworkErrors
 * handler: route="unmatched", never the raw path. Needs src/app.ts to hand them to
 * registerHttpMetrics' `routingFailure` (see src/http/metrics.ts).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

const TOKEN = `metrics-${randomBytes(12).toString('hex')}`;
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp('sqlite', { METRICS_TOKEN: TOKEN });
});
afterAll(() => t.close());

const count = (text: string, labels: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`blueline_http_requests_total{${labels}} `));
  return line ? Number(line.split(' ').pop()) : 0;
};

it('counts requests the router refused as unmatched 4xx, without their raw path', async () => {
  const scrape = async () => (await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body;
  const before = await scrape();
  const long = `msg_${'z'.repeat(3000)}`;
  const bad = await t.request({ method: 'GET', url: '/api/v1/messages/%E0%A4%A' });
  const tooLong = await t.request({ method: 'GET', url: `/api/v1/messages/${long}` });
  expect([bad.statusCode, tooLong.statusCode]).toEqual([400, 400]);
  const after = await scrape();
  expect(count(after, 'method="GET",route="unmatched",status_class="4xx"') - count(before, 'method="GET",route="unmatched",status_class="4xx"')).toBe(2);
  expect(after).not.toContain('%E0');
  expect(after).not.toContain(long);
});
