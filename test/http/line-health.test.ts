/**
 * GET /admin/v1/lines/{id}/health: a simulator line up with its service epoch (a restart
 * changes it), a turned-off line inactive with its recorded epoch, and BlueBubbles lines on a
 * stand-in Mac: up with the Mac's epoch, down when the Mac answers 502, unknown when it does
 * not answer within 2 s. The metrics' line gauge counts the same states.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { startStandIn, type StandIn } from '../drivers/bluebubbles/standin.js';
import { eventually } from '../support/messaging.js';

let t: TestApp;
let bb: StandIn;
let numbers = 0;

beforeAll(async () => {
  t = await startTestApp('sqlite', { BLUELINE_ALLOW_PRIVATE_NETWORKS: '1', METRICS_TOKEN: 'metrics-token-0123456789' });
  bb = await startStandIn();
});
afterAll(async () => {
  await bb?.stop();
  await t?.close();
});

const health = async (id: string) => {
  const res = await t.admin('GET', `/admin/v1/lines/${id}/health`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().health;
};
const addBlueBubblesLine = async (config: Record<string, unknown> = {}) => {
  const res = await t.admin('POST', '/admin/v1/lines', { tenant: 'demo', phone_number: `+1415555066${numbers++}`, driver: 'bluebubbles', driver_config: bb.config(config) });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().phone_line.id as string;
};

describe('line health', () => {
  it('a simulator line whose first message went out before anyone asked its epoch still names a real one', async () => {
    // The first touch writes the line's state row with a placeholder where the epoch goes.
    await t.admin('PATCH', '/admin/v1/tenants/demo', { rate_limit: { per_second: 1000, burst: 1000 } });
    const id = t.demo.phone_line_ids[1]!;
    const sent = await t.api('POST', '/api/v1/send', { phone: '+14155550677', body: 'first', phone_line_id: id });
    expect(sent.statusCode, sent.body).toBe(200);
    const h = await health(id);
    expect(h).toMatchObject({ state: 'up', service_epoch_source: 'live' });
    expect(h.service_epoch).toMatch(/^epoch-/);
  });

  it('a simulator line is up with its service epoch; a restart gives a new one', async () => {
    const id = t.demo.phone_line_ids[0]!;
    const first = await health(id);
    expect(first).toMatchObject({ phone_line_id: id, state: 'up', reason: null, service_epoch_source: 'live' });
    expect(first.service_epoch).toMatch(/^epoch-/);
    expect(Math.abs(Date.parse(first.checked_at) - t.clock.now())).toBeLessThan(1000);
    expect((await health(id)).service_epoch).toBe(first.service_epoch);
    const restarted = await t.admin('POST', `/admin/v1/lines/${id}/simulate/restart`);
    expect(restarted.statusCode).toBe(200);
    const after = await health(id);
    expect(after.service_epoch).not.toBe(first.service_epoch);
    expect(after.service_epoch).toBe(restarted.json().service_epoch);
  });

  it('a turned-off line is inactive and shows the epoch it last recorded', async () => {
    const id = t.demo.phone_line_ids[1]!;
    const { service_epoch } = await health(id);
    expect((await t.admin('PATCH', `/admin/v1/lines/${id}`, { is_active: false })).statusCode).toBe(200);
    expect(await health(id)).toMatchObject({ state: 'inactive', reason: 'the line is turned off', service_epoch, service_epoch_source: 'recorded' });
    await t.admin('PATCH', `/admin/v1/lines/${id}`, { is_active: true });
  });

  it('a BlueBubbles line is up with its Mac-derived epoch, down on a 502, unknown after 2 s of silence', async () => {
    const up = await addBlueBubblesLine();
    const h = await health(up);
    expect(h).toMatchObject({ state: 'up', service_epoch_source: 'live' });
    expect(h.service_epoch).toMatch(/^bb:/);

    // The Mac answers its first probe with a proxy's 502: the line is down, and no epoch is invented.
    bb.inject('GET /api/v1/server/info', { html: 502 });
    // The line's first probe runs in the background from its creation: wait for it to be seen.
    // It is not probed again before the metrics below, however slow the machine (the default
    // recheck is 5 s of wall clock, after which the Mac would answer).
    const down = await addBlueBubblesLine({ health_recheck_ms: 600_000 });
    const seenDown = await eventually(() => health(down), (h) => h.state === 'down');
    expect(seenDown).toMatchObject({ state: 'down', reason: 'its messaging service is not answering', service_epoch: null, service_epoch_source: null });

    // The Mac takes the probe and answers only long after the 2 s a check may take: 'unknown'
    // shows the check gave up before the answer came (had it waited, the line would be up), and
    // its time shows it did wait its 2 s. No upper bound tighter than the answer: the machine
    // may be loaded.
    const HANG_MS = 20_000;
    bb.inject('GET /api/v1/server/info', { hangMs: HANG_MS });
    const silent = await addBlueBubblesLine();
    const at = Date.now();
    expect(await health(silent)).toMatchObject({ state: 'unknown', reason: 'no answer within 2 s' });
    const took = Date.now() - at;
    expect(took).toBeGreaterThanOrEqual(1_900);
    expect(took).toBeLessThan(HANG_MS / 2);

    const metrics = await t.request({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer metrics-token-0123456789' } });
    expect(metrics.body).toMatch(/blueline_phone_lines\{state="down"\} 1/);
  }, 30_000);

  it('is 404 for an unknown line, and for tenants not at all', async () => {
    const res = await t.admin('GET', '/admin/v1/lines/nope/health');
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe(2011);
    expect((await t.api('GET', `/admin/v1/lines/${t.demo.phone_line_ids[0]}/health`)).statusCode).toBe(401);
  });
});
