/**
 * The simulator's recipients whose line answer never comes — +15005550006 (the send never reaches
 * the device) and +15005550007 (the device gets it) — answer as a line that timed out: at once,
 * 503 / 3002 in the send's flat failure shape with the message `sending` (a retry under the same
 * idempotency key: 409 / 1012), and reconciliation settles them from the device log when the
 * line's send window ends: `failed` with 4001 (never left) and `sent`. A group creation with them
 * likewise: 503 / 3002, then no group or the group recorded. Before, the request never answered.
 * The clock is moved past the window, never slept through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { deviceLog, eventually, FIRST_TOUCH_GAP_MS, prepareSandbox } from '../support/messaging.js';
import { STORE_KINDS } from '../support/stores.js';
import { SIMULATOR_RECIPIENTS } from '../../src/drivers/simulator/reserved.js';

const NEVER_LEFT = SIMULATOR_RECIPIENTS.stallsBeforeDevice;
const ON_DEVICE = SIMULATOR_RECIPIENTS.stallsAfterDevice;
/** The simulator's send window: a message not in its device log by then never left. */
const SEND_WINDOW_MS = 2_000;

describe.each(STORE_KINDS)('simulated sends whose answer never comes (%s)', (kind) => {
  let t: TestApp;
  let lineA: string;
  let lineB: string;
  beforeAll(async () => {
    t = await startTestApp(kind);
    await prepareSandbox(t);
    [lineA, lineB] = t.demo.phone_line_ids as [string, string];
  });
  afterAll(async () => t?.close());

  const message = async (id: string) => (await t.api('GET', `/api/v1/messages/${id}`)).json().message;
  const onDevice = async (lineId: string, phone: string) => (await deviceLog(t, lineId)).filter((e) => e.to === phone || (e.handles as string[] | undefined)?.includes(phone));
  /** Moves the clock to `at` (it only goes forward). */
  const moveTo = (at: number) => t.clock.advance(Math.max(0, at - t.clock.now()));

  it('answer 503 / 3002 at once with the message `sending`; the same key answers 409 / 1012; settled when the window ends', async () => {
    t.clock.advance(FIRST_TOUCH_GAP_MS);
    // One line each, so both are first touches now.
    const body = (phone: string, lineId: string) => ({ phone, body: `are you there? (${kind})`, idempotency_key: `sim-timeout-${phone}-${kind}`, phone_line_id: lineId });
    const neverLeft = await t.api('POST', '/api/v1/send', body(NEVER_LEFT, lineA));
    const reached = await t.api('POST', '/api/v1/send', body(ON_DEVICE, lineB));
    // A first look right away: the device log has one of them; the other's window is not over.
    const early = await t.services.sendReconciler.sweep();

    for (const [res, lineId] of [[neverLeft, lineA], [reached, lineB]] as const) {
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json()).toMatchObject({
        status: 'failed', error: 'delivery_unavailable', code: 3002, retryable: true,
        message_id: expect.stringMatching(/^msg_/), phone_line_id: lineId, lead_created: true,
      });
      expect(res.json().reason).toMatch(/did not answer in time.*stays `sending`/);
      expect(res.json().reason).toContain(`GET /api/v1/messages/${res.json().message_id}`);
    }
    const [leftId, reachedId] = [neverLeft.json().message_id as string, reached.json().message_id as string];
    expect((await onDevice(lineA, NEVER_LEFT)).length).toBe(0);
    expect((await onDevice(lineB, ON_DEVICE)).map((e) => e.ref)).toEqual([reachedId]);

    const windowEnd = Date.parse((await message(leftId)).sent_at) + SEND_WINDOW_MS;
    expect(early).toMatchObject({ sent: 1, failed: 0, pending: 1, nextAt: windowEnd });
    expect(await message(leftId)).toMatchObject({ status: 'sending' });
    expect(await message(reachedId)).toMatchObject({ status: 'sent' });

    // The same request again while the line is still being asked: 409 / 1012, nothing sent again.
    const retried = await t.api('POST', '/api/v1/send', body(NEVER_LEFT, lineA));
    expect(retried.statusCode, retried.body).toBe(409);
    expect(retried.json()).toMatchObject({ status: 'failed', code: 1012, retryable: false });
    expect(retried.json().reason).toMatch(/still in progress: its outcome is being confirmed with the line/);

    // Shortly before the window ends it may still be under way (the test clock runs on meanwhile); at its end it never left.
    moveTo(windowEnd - 500);
    expect(await t.services.sendReconciler.sweep()).toMatchObject({ failed: 0, pending: 1, nextAt: windowEnd });
    expect(await message(leftId)).toMatchObject({ status: 'sending' });
    moveTo(windowEnd);
    expect(await t.services.sendReconciler.sweep()).toMatchObject({ failed: 1, pending: 0 });
    expect(await message(leftId)).toMatchObject({ status: 'failed', error_code: 4001 });

    // Settled: the same key answers the message that went out, sent once.
    const answered = await t.api('POST', '/api/v1/send', body(ON_DEVICE, lineB));
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answered.json()).toMatchObject({ status: 'sent', message_id: reachedId, message_ids: [reachedId] });
    expect(await onDevice(lineB, ON_DEVICE)).toHaveLength(1);
    // And sends again the one that never left (a failed first touch waits for its line's gap again).
    t.clock.advance(FIRST_TOUCH_GAP_MS);
    const again = await t.api('POST', '/api/v1/send', body(NEVER_LEFT, lineA));
    expect(again.statusCode, again.body).toBe(503);
    expect(again.json().message_id).not.toBe(leftId);
    expect(await message(again.json().message_id)).toMatchObject({ status: 'sending' });
  });

  it('group creation: 503 / 3002 at once, 409 / 1012 under the same key, then the group recorded or dropped when the window ends', async () => {
    t.clock.advance(FIRST_TOUCH_GAP_MS);
    const create = (member: string, lineId: string) =>
      t.api('POST', '/api/v1/chats', { to: [member, '+14155550777'], message: { parts: [{ type: 'text', value: 'Kickoff' }] }, phone_line_id: lineId, idempotency_key: `sim-group-${member}-${kind}` });
    const neverLeft = await create(NEVER_LEFT, lineA);
    const reached = await create(ON_DEVICE, lineB);
    const started = t.clock.now();
    for (const res of [neverLeft, reached]) {
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json()).toMatchObject({ success: false, error: { status: 503, code: 3002, retryable: true } });
      expect(res.json().error.message).toMatch(/did not answer in time.*same idempotency_key/);
      const retried = await create(res === neverLeft ? NEVER_LEFT : ON_DEVICE, res === neverLeft ? lineA : lineB);
      expect(retried.statusCode, retried.body).toBe(409);
      expect(retried.json().error).toMatchObject({ code: 1012, retryable: false });
    }
    expect(await onDevice(lineA, NEVER_LEFT)).toEqual([]);
    expect((await onDevice(lineB, ON_DEVICE)).filter((e) => e.kind === 'create_group')).toHaveLength(1);

    // The device log has one group: recorded, and the retry answers it. The other's window is not over.
    expect((await t.services.sendReconciler.sweep()).groups).toEqual({ recorded: 1, dropped: 0, pending: 1 });
    const recorded = await create(ON_DEVICE, lineB);
    expect(recorded.statusCode, recorded.body).toBe(201);
    expect(recorded.json().chat).toMatchObject({ is_group: true, phone_line_id: lineB });
    expect([...recorded.json().chat.handles].sort()).toEqual([ON_DEVICE, '+14155550777'].sort());
    expect(recorded.json().message).toMatchObject({ status: 'sent', parts: [{ type: 'text', value: 'Kickoff' }] });
    expect((await create(NEVER_LEFT, lineA)).json().error.code).toBe(1012);

    // Its window over, the other never happened: dropped, and the same key creates it afresh (its line is free again).
    moveTo(started + SEND_WINDOW_MS);
    expect((await t.services.sendReconciler.sweep()).groups).toEqual({ recorded: 0, dropped: 1, pending: 0 });
    const afresh = await create(NEVER_LEFT, lineA);
    expect(afresh.statusCode, afresh.body).toBe(503);
    expect(afresh.json().error.code).toBe(3002);
    expect((await t.api('GET', `/api/v1/chats?q=${encodeURIComponent(NEVER_LEFT)}`)).json().chats.filter((c: { chat: { is_group: boolean } }) => c.chat.is_group)).toEqual([]);
  });

  it('a running reconciler settles them by itself once the window ends, not at its next round a minute later', async () => {
    await t.services.sendReconciler.start();
    try {
      t.clock.advance(FIRST_TOUCH_GAP_MS);
      const res = await t.api('POST', '/api/v1/send', { phone: ON_DEVICE, body: `wake up (${kind})`, phone_line_id: lineB });
      expect(res.statusCode, res.body).toBe(503);
      // The lost answer wakes the sweep for the window's end (its timer runs on real time: 2 s here).
      const settled = await eventually(() => message(res.json().message_id), (m) => m.status !== 'sending', 20_000);
      expect(settled).toMatchObject({ status: 'sent' });
    } finally {
      await t.services.sendReconciler.stop();
    }
  });
});
