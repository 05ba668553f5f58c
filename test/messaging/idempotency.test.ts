/**
 * A final failure (the line refused a message that had been recorded) is recorded under the
 * idempotency key: the same request again answers exactly what the first answered, ids
 * included, and nothing is sent twice. Driven through a BlueBubbles stand-in whose send
 * route is missing (a 404 page), which the driver reads as "not supported" (4099/501).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { FIRST_TOUCH_GAP_MS, newRecipient } from '../support/messaging.js';
import type { StandIn } from '../drivers/bluebubbles/standin.js';
import { appWithBlueBubblesLine } from '../support/bluebubbles-line.js';

const SEND_TEXT = 'POST /api/v1/message/text';

describe('idempotency records a final failure and replays it', () => {
  let t: TestApp;
  let bb: StandIn;
  let lineId: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ t, bb, lineId, close } = await appWithBlueBubblesLine());
  });
  afterAll(async () => close());

  const sends = () => bb.requestsTo('POST', '/api/v1/message/text').length;

  it('on /send: the same flat failure with its ids, and no second send', async () => {
    t.clock.advance(FIRST_TOUCH_GAP_MS + 1_000);
    const request = { phone: newRecipient(), body: 'once only', phone_line_id: lineId, idempotency_key: 'final-send' };
    bb.inject(SEND_TEXT, { html: 404 });
    const first = await t.api('POST', '/api/v1/send', request);
    expect(first.statusCode, first.body).toBe(501);
    expect(first.json()).toMatchObject({ status: 'failed', code: 4099, retryable: false, lead_created: true, phone_line_id: lineId });
    expect(first.json().lead_id).toBeTruthy();
    const before = sends();

    const again = await t.api('POST', '/api/v1/send', request);
    expect(again.statusCode).toBe(501);
    expect(again.json()).toEqual(first.json());
    expect(sends()).toBe(before);
    const history = (await t.api('GET', `/api/v1/chats/${first.json().chat_id}/messages`)).json().messages;
    expect(history.map((m: { status: string; error_code?: number }) => [m.status, m.error_code])).toEqual([['failed', 4099]]);
  });

  it('on POST /chats: the same envelope, and no second send', async () => {
    t.clock.advance(FIRST_TOUCH_GAP_MS + 1_000);
    const request = { to: newRecipient(), message: { parts: [{ type: 'text', value: 'hello once' }] }, phone_line_id: lineId, idempotency_key: 'final-chat' };
    bb.inject(SEND_TEXT, { html: 404 });
    const first = await t.api('POST', '/api/v1/chats', request);
    expect(first.statusCode, first.body).toBe(501);
    expect(first.json().error).toMatchObject({ code: 4099, status: 501, retryable: false });
    const before = sends();

    const again = await t.api('POST', '/api/v1/chats', request);
    expect(again.statusCode).toBe(501);
    expect(again.json().error).toEqual(first.json().error);
    expect(sends()).toBe(before);
  });
});
