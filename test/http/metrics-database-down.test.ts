/**
 * A scrape while the database does not answer. The database's figures cannot be read, so the
 * scrape says so (`blueline_database_up 0`, a scrape error counted) instead of passing off zeros
 * as figures: a process that never read them shows none of them, and one that did keeps the last
 * ones it read. The process's own figures (requests, sends, Node's) are there either way.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { prepareSandbox } from '../support/messaging.js';
import { promtoolInstalled, promtoolProblems, sample } from '../support/metrics-text.js';

const TOKEN = `metrics-${randomBytes(12).toString('hex')}`;
/** Read from the database at each scrape. */
const DATABASE_GAUGES = [
  'blueline_phone_lines',
  'blueline_webhook_deliveries_pending',
  'blueline_webhook_oldest_pending_age_seconds',
  'blueline_first_touches_used',
  'blueline_first_touches_cap',
  'blueline_tenants_at_first_touch_cap',
  'blueline_line_first_touch_capacity',
  'blueline_lines_at_first_touch_limit',
];

describe('GET /metrics while the database does not answer', () => {
  let t: TestApp;
  afterEach(async () => t?.app.close());

  const scrape = async () => {
    const res = await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode, res.body).toBe(200);
    return res.body;
  };
  const series = (text: string, name: string) => text.split('\n').filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));

  it('a process that never read them shows none of the database figures, not zeros, and says the database is down', async () => {
    t = await startTestApp('sqlite', { METRICS_TOKEN: TOKEN });
    await prepareSandbox(t);
    await t.testStore.store.close();
    const text = await scrape();
    expect(series(text, 'blueline_database_up')).toEqual(['blueline_database_up 0']);
    expect(sample(text, 'blueline_metrics_scrape_errors_total')).toBe(1);
    for (const name of DATABASE_GAUGES) expect(series(text, name), name).toEqual([]);
    // The process's own figures are there.
    expect(series(text, 'blueline_sse_connections')).toEqual(['blueline_sse_connections 0']);
    expect(series(text, 'process_cpu_user_seconds_total')).toHaveLength(1);
    expect(text).toContain('blueline_http_requests_total{');
    if (promtoolInstalled) expect(promtoolProblems(text)).toBe('');
  });

  it('a process that read them keeps the last figures it read, and says the database is down until it answers again', async () => {
    t = await startTestApp('sqlite', { METRICS_TOKEN: TOKEN });
    await prepareSandbox(t);
    const up = await scrape();
    expect(sample(up, 'blueline_database_up')).toBe(1);
    expect(sample(up, 'blueline_metrics_scrape_errors_total')).toBe(0);
    const cap = sample(up, 'blueline_first_touches_cap');
    expect(cap).toBeGreaterThan(0);
    expect(sample(up, 'blueline_phone_lines', { state: 'up' })).toBeGreaterThan(0);

    await t.testStore.store.close();
    const down = await scrape();
    expect(sample(down, 'blueline_database_up')).toBe(0);
    expect(sample(down, 'blueline_metrics_scrape_errors_total')).toBe(1);
    expect(sample(down, 'blueline_first_touches_cap')).toBe(cap);
    expect(sample(down, 'blueline_phone_lines', { state: 'up' })).toBe(sample(up, 'blueline_phone_lines', { state: 'up' }));
  });
});
