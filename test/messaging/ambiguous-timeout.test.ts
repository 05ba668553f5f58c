/**
 * A BlueBubbles send whose answer never comes while the service runs: the Mac may have sent it,
 * so it is neither `sent` nor `failed` but `sending` (answered 503 / 3002 with its message id),
 * until reconciliation asks the Mac: `sent` with the Mac's guid if it went out, `failed` (4001)
 * if not. The clock is moved past the line's send window, never slept through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appWithBlueBubblesLine } from '../support/bluebubbles-line.js';
import type { TestApp } from '../support/app.js';
import type { StandIn } from '../drivers/bluebubbles/standin.js';
import { sample } from '../support/metrics-text.js';

const METRICS_TOKEN = 'metrics-ambiguous-timeout';

describe('a BlueBubbles send that times out', () => {
  let t: TestApp;
  let bb: StandIn;
  let lineId: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ t, bb, lineId, close } = await appWithBlueBubblesLine({ timeout_ms: 300 }, { METRICS_TOKEN }));
  });
  afterAll(async () => close());

  const status = async (id: string) => (await t.api('GET', `/api/v1/messages/${id}`)).json().message;
  const textSends = async () => {
    const text = (await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).body;
    return { sent: sample(text, 'blueline_messages_sent_total', { kind: 'text', result: 'sent' }), failed: sample(text, 'blueline_messages_sent_total', { kind: 'text', result: 'failed' }) };
  };

  it('is `sending` until the Mac is asked: `sent` if it went out, `failed` if it did not', async () => {
    const phone = '+14155550671';
    const opened = await t.api('POST', '/api/v1/send', { phone, body: 'hello', phone_line_id: lineId });
    expect(opened.statusCode, opened.body).toBe(200);

    const before = await textSends();
    // The Mac sends this one, but its answer never comes back in time.
    bb.inject('POST /api/v1/message/text', { storeThenHangMs: 3_000 });
    const wentOut = await t.api('POST', '/api/v1/send', { phone, body: 'went out' });
    expect(wentOut.statusCode).toBe(503);
    expect(wentOut.json()).toMatchObject({ status: 'failed', code: 3002, retryable: true, phone_line_id: lineId, message_id: expect.stringMatching(/^msg_/) });
    expect(wentOut.json().reason).toMatch(/stays `sending`/);
    const wentOutId = wentOut.json().message_id as string;
    expect(await status(wentOutId)).toMatchObject({ status: 'sending' });

    // This one the Mac never gets to.
    bb.inject('POST /api/v1/message/text', { hangMs: 3_000 });
    const didNot = await t.api('POST', '/api/v1/send', { phone, body: 'did not' });
    expect(didNot.statusCode).toBe(503);
    const didNotId = didNot.json().message_id as string;
    expect(await status(didNotId)).toMatchObject({ status: 'sending' });
    // Neither is counted while nobody knows how it went: not as failed, as a timeout once was.
    expect(await textSends()).toEqual(before);

    // Past the line's send window, reconciliation asks the Mac for our messages since.
    t.clock.advance(60_000);
    await t.services.sendReconciler.sweep();
    const stored = [...bb.messages.values()].find((m) => m.text === 'went out')!;
    expect(await status(wentOutId)).toMatchObject({ status: 'sent' });
    // With the Mac's guid: a reaction to it reaches the message BlueBubbles has.
    const reacted = await t.api('POST', `/api/v1/messages/${wentOutId}/react`, { reaction: 'like' });
    expect(reacted.statusCode, reacted.body).toBe(200);
    expect(bb.lastTo('POST', '/api/v1/message/react').json.selectedMessageGuid).toBe(stored.guid);
    expect(await status(didNotId)).toMatchObject({ status: 'failed', error_code: 4001 });
    // Each counted once it is settled, as what it turned out to be.
    expect(await textSends()).toEqual({ sent: before.sent + 1, failed: before.failed + 1 });
  });

  it('is `failed` when the Mac has it but Messages failed it (stored with an error), and a retry is not taken for it', async () => {
    // The Mac dates its messages by the service's moved clock, as a Mac in step with it would.
    bb.now = () => t.clock.now();
    const phone = '+14155550671';
    bb.inject('POST /api/v1/message/text', { storeThenHangMs: 3_000 });
    const lost = await t.api('POST', '/api/v1/send', { phone, body: 'stored with an error' });
    expect(lost.statusCode).toBe(503);
    const lostId = lost.json().message_id as string;
    const stored = [...bb.messages.values()].find((m) => m.text === 'stored with an error')!;
    stored.error = 22;
    t.clock.advance(60_000);
    await t.services.sendReconciler.sweep();
    expect(await status(lostId)).toMatchObject({ status: 'failed', error_code: 4001 });
    // The retry goes out, and is looked up as itself, not as the failed message with the same text.
    bb.inject('POST /api/v1/message/text', { storeThenHangMs: 3_000 });
    const retry = await t.api('POST', '/api/v1/send', { phone, body: 'stored with an error' });
    expect(retry.statusCode).toBe(503);
    t.clock.advance(60_000);
    await t.services.sendReconciler.sweep();
    expect(await status(retry.json().message_id)).toMatchObject({ status: 'sent' });
  });
});
