/**
 * blueline_messages_received_total counts inbound messages recorded: one a line reports twice (a
 * redelivered BlueBubbles webhook) is recorded once, and counted once. Needs
 * domain/messaging/line-events.ts to answer false for the second report (src/metrics/wrap.ts).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { newRecipient, prepareSandbox } from '../support/messaging.js';
import { STORE_KINDS } from '../support/stores.js';

const TOKEN = `metrics-${randomBytes(12).toString('hex')}`;
const received = (text: string) => Number(/^blueline_messages_received_total (\S+)$/m.exec(text)?.[1] ?? NaN);

// Both stores: PostgreSQL records a text message by its own single-statement path (inbound-direct.ts).
describe.each(STORE_KINDS)('inbound reported twice (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { METRICS_TOKEN: TOKEN });
    await prepareSandbox(t);
  });
  afterAll(() => t.close());

  it('is counted once, as it is recorded once', async () => {
    const scrape = async () => (await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body;
    const line = t.demo.phone_line_ids[0]!;
    const before = received(await scrape());
    const message = { guid: `g-${randomBytes(6).toString('hex')}`, from: newRecipient(), parts: [{ type: 'text', value: 'twice' }] };
    for (let i = 0; i < 2; i++) expect((await t.admin('POST', `/admin/v1/lines/${line}/simulate/inbound`, message)).statusCode).toBe(202);
    const events = (await t.api('GET', '/api/v1/events?type=message.received', undefined, { tenant: 'demo' })).json().events as { payload: unknown }[];
    expect(events.filter((e) => JSON.stringify(e.payload).includes(message.guid))).toHaveLength(1);
    expect(received(await scrape()) - before).toBe(1);
  });
});
