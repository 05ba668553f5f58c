/**
 * A sandbox line's device log (`GET /admin/v1/lines/{id}/simulate/sent`) keeps each entry 30 days
 * (DEVICE_LOG_KEPT_MS); then housekeeping deletes it, a batch at a time. Before, it grew by one
 * row per simulated send for good. An entry a send still being settled needs (reconciliation
 * reads the log to learn whether the device got it) stays until the send is settled. The clock
 * is moved, never slept through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { deviceLog, FIRST_TOUCH_GAP_MS, firstTouch, newRecipient, prepareSandbox } from '../support/messaging.js';
import { DEVICE_LOG_KEPT_MS, housekeeping } from '../../src/domain/housekeeping.js';
import { SIMULATOR_RECIPIENTS } from '../../src/drivers/simulator/reserved.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const METRICS_TOKEN = 'device-log-metrics-token-0123';

describe.each(STORE_KINDS)('housekeeping: the device log (%s)', (kind) => {
  let t: TestApp;
  let line: string;
  let otherLine: string;
  beforeAll(async () => {
    t = await startTestApp(kind, { METRICS_TOKEN });
    await prepareSandbox(t);
    [line, otherLine] = t.demo.phone_line_ids as [string, string];
  });
  afterAll(async () => t?.close());

  const pass = () => t.services.housekeeping.drain();
  const refsOn = async (lineId: string) => (await deviceLog(t, lineId)).map((e) => e.ref);
  const send = async (phone: string, lineId: string, body: string) => {
    const res = await t.api('POST', '/api/v1/send', { phone, body, phone_line_id: lineId });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().message_id as string;
  };
  const deletedCount = async () => {
    const res = await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.statusCode).toBe(200);
    return Number(/^blueline_housekeeping_deleted_rows_total\{kind="device_log_entry"\} (\d+)/m.exec(res.body)?.[1]);
  };

  it('keeps an entry 30 days and deletes it after them; newer entries and the message stay', async () => {
    const phone = newRecipient();
    t.clock.advance(FIRST_TOUCH_GAP_MS + 1_000);
    const old = await send(phone, line, 'kept thirty days');
    t.clock.advance(10 * DAY);
    const newer = await send(phone, line, 'ten days younger');
    expect(await refsOn(line)).toEqual(expect.arrayContaining([old, newer]));
    const deletedBefore = await deletedCount();

    t.clock.advance(DEVICE_LOG_KEPT_MS - 10 * DAY - MINUTE);
    await pass();
    expect(await refsOn(line)).toEqual(expect.arrayContaining([old, newer]));

    t.clock.advance(2 * MINUTE);
    await pass();
    const left = await refsOn(line);
    expect(left).not.toContain(old);
    expect(left).toContain(newer);
    expect(await deletedCount()).toBeGreaterThanOrEqual(deletedBefore + 1);
    // The message itself is never deleted: only the simulated device's record of it.
    const message = await t.api('GET', `/api/v1/messages/${old}`);
    expect(message.statusCode).toBe(200);
    expect(message.json().message).toMatchObject({ id: old, parts: [{ type: 'text', value: 'kept thirty days' }] });
  });

  it('keeps an entry while its send is still being settled, and deletes it once reconciliation read it', async () => {
    // The device gets the send, the line's answer never comes: `sending`, known from the log alone.
    const res = await firstTouch(t, { phone: SIMULATOR_RECIPIENTS.stallsAfterDevice, body: 'settled from the log', phone_line_id: otherLine });
    expect(res.statusCode, res.body).toBe(503);
    const id = res.json().message_id as string;
    // A newer entry on the same line, from a send that was answered.
    t.clock.advance(FIRST_TOUCH_GAP_MS + 1_000);
    const answered = await send(newRecipient(), otherLine, 'answered at once');
    expect(await refsOn(otherLine)).toEqual(expect.arrayContaining([id, answered]));

    t.clock.advance(DEVICE_LOG_KEPT_MS + DAY);
    await pass();
    // Nothing of that line's log older than the pending send goes, nor anything after it.
    expect(await refsOn(otherLine)).toEqual(expect.arrayContaining([id, answered]));
    expect((await t.api('GET', `/api/v1/messages/${id}`)).json().message).toMatchObject({ status: 'sending' });

    expect(await t.services.sendReconciler.sweep()).toMatchObject({ sent: 1 });
    expect((await t.api('GET', `/api/v1/messages/${id}`)).json().message).toMatchObject({ status: 'sent' });
    await pass();
    const left = await refsOn(otherLine);
    expect(left).not.toContain(id);
    expect(left).not.toContain(answered);
  });

  it('keeps the entry of a group creation still being settled, and deletes it once the group is recorded', async () => {
    t.clock.advance(FIRST_TOUCH_GAP_MS + 1_000);
    const create = await t.api('POST', '/api/v1/chats', {
      to: [SIMULATOR_RECIPIENTS.stallsAfterDevice, newRecipient()],
      message: { parts: [{ type: 'text', value: 'Kickoff' }] },
      phone_line_id: line,
    });
    expect(create.statusCode, create.body).toBe(503);
    const creations = async () => (await deviceLog(t, line)).filter((e) => e.kind === 'create_group');
    expect(await creations()).toHaveLength(1);

    t.clock.advance(DEVICE_LOG_KEPT_MS + DAY);
    await pass();
    expect(await creations()).toHaveLength(1);
    expect((await t.services.sendReconciler.sweep()).groups).toMatchObject({ recorded: 1 });
    await pass();
    expect(await creations()).toEqual([]);
  });

  it('deletes at most a batch per pass, over every line, oldest first', async () => {
    await pass();
    const phone = newRecipient();
    t.clock.advance(FIRST_TOUCH_GAP_MS + 1_000);
    const first = await send(phone, line, 'one');
    t.clock.advance(1_000);
    const second = await send(phone, line, 'two');
    t.clock.advance(1_000);
    const third = await send(newRecipient(), otherLine, 'three');
    t.clock.advance(DEVICE_LOG_KEPT_MS + 1_000);
    const kept = await send(phone, line, 'young');

    const small = housekeeping({ store: t.testStore.store, clock: t.clock, blobs: t.blobs }, { batch: 2, blobSweep: false });
    const oldOnes = async () => [...(await refsOn(line)), ...(await refsOn(otherLine))].filter((r) => r !== kept);
    expect((await small.tick()).device_log_entry).toBe(2);
    // One of the three is left: never a line's oldest while its younger one went.
    const [left, ...more] = await oldOnes();
    expect(more).toEqual([]);
    expect([second, third]).toContain(left);
    expect((await small.tick()).device_log_entry).toBe(1);
    expect(await oldOnes()).toEqual([]);
    expect((await small.tick()).device_log_entry).toBe(0);
    expect(await refsOn(line)).toEqual([kept]);
    expect(left).not.toBe(first);
  });
});
