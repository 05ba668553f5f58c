/**
 * BlueBubbles' webhooks about a send can overtake the send's answer: the Mac has the message
 * (and Messages delivers it, or fails it) while its answer is still on its way. The receipts and
 * the failure are taken in (stored and handled by the intake) before the service stores the
 * guid, and still reach the message once it does. The stand-in Mac holds its answer until then.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appWithBlueBubblesLine } from '../../support/bluebubbles-line.js';
import { eventually } from '../../support/messaging.js';
import { HOOK_SECRET, type TestApp } from '../../support/app.js';
import { webhookUrlFor } from '../../../src/drivers/bluebubbles/webhook.js';
import type { StandIn } from './standin.js';

describe("BlueBubbles webhooks that overtake their send's answer", () => {
  let t: TestApp;
  let bb: StandIn;
  let lineId: string;
  let close: () => Promise<void>;
  const phone = '+14155550697';
  beforeAll(async () => {
    ({ t, bb, lineId, close } = await appWithBlueBubblesLine());
    // The chat exists from then on: later texts go by /message/text.
    const opened = await t.api('POST', '/api/v1/send', { phone, body: 'hello', phone_line_id: lineId });
    expect(opened.statusCode, opened.body).toBe(200);
  });
  afterAll(async () => close());

  const status = async (id: string) => (await t.api('GET', `/api/v1/messages/${id}`)).json().message;
  const webhook = async (event: unknown) => {
    const res = await t.request({ method: 'POST', url: new URL(webhookUrlFor('http://blueline.test', HOOK_SECRET, lineId)).pathname, payload: event as object });
    expect(res.statusCode, res.body).toBe(200);
  };

  /** Sends `body`; the Mac's answer waits until `report(guid)` has posted webhooks and the intake has handled them. */
  async function sendOvertaken(body: string, report: (guid: string) => Promise<void>): Promise<string> {
    let answer!: () => void;
    bb.inject('POST /api/v1/message/text', { storeThenAnswerWhen: new Promise<void>((r) => (answer = r)) });
    const sending = t.api('POST', '/api/v1/send', { phone, body });
    const guid = (await eventually(async () => [...bb.messages.values()].find((m) => m.text === body)?.guid, (g) => g !== undefined))!;
    await report(guid);
    await eventually(() => t.testStore.store.intake.list(), (l) => l.length === 0);
    expect(await t.testStore.store.intake.list()).toEqual([]);
    answer();
    const res = await sending;
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'sent' });
    return res.json().message_id as string;
  }

  it('delivered and read receipts', async () => {
    const id = await sendOvertaken('receipts overtake the answer', async (guid) => {
      bb.markDelivered(guid);
      bb.markRead(guid);
      await webhook(bb.webhookEvent('updated-message', guid));
    });
    expect(await eventually(() => status(id), (m) => m.status === 'read')).toMatchObject({ status: 'read', delivered_at: expect.any(String), read_at: expect.any(String) });
  });

  it("our own message with its tempGuid, when the answer names no guid (the send is known by its tempGuid only once the answer is stored)", async () => {
    bb.omitGuidInSendAnswers = true;
    try {
      const id = await sendOvertaken('matched before the answer', async (guid) => {
        const { tempGuid } = bb.lastTo('POST', '/api/v1/message/text').json as { tempGuid: string };
        await webhook(bb.ownMessageEvent(guid, tempGuid));
        bb.markDelivered(guid);
        bb.markRead(guid);
        await webhook(bb.webhookEvent('updated-message', guid));
      });
      // Renamed to the Mac's guid once the answer stored the tempGuid; its receipts then match too.
      expect(await eventually(() => status(id), (m) => m.status === 'read')).toMatchObject({ status: 'read', read_at: expect.any(String) });
      const stored = [...bb.messages.values()].find((m) => m.text === 'matched before the answer')!;
      expect((await t.testStore.store.messages.byProviderGuid(lineId, stored.guid))?.id).toBe(id);
    } finally {
      bb.omitGuidInSendAnswers = false;
    }
  });

  it('a send error (message-send-error)', async () => {
    const id = await sendOvertaken('the failure overtakes the answer', async (guid) => webhook(bb.failSent(guid, 22)));
    expect(await eventually(() => status(id), (m) => m.status === 'failed')).toMatchObject({ status: 'failed', error_code: 4001 });
  });
});
