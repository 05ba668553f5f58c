/**
 * Send failures as a user of a BlueBubbles line sees them: BlueBubbles' answers that say a send
 * failed are 502 / 4001 (retryable), and a failure that merely names the Private API leaves the
 * line's Private API features in place.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appWithBlueBubblesLine } from '../../support/bluebubbles-line.js';
import type { TestApp } from '../../support/app.js';
import type { StandIn } from './standin.js';
import { uploadedImage } from '../../support/messaging.js';

describe('a BlueBubbles line: failed sends', () => {
  let t: TestApp;
  let bb: StandIn;
  let lineId: string;
  let close: () => Promise<void>;
  const phone = '+14155550720';
  beforeAll(async () => {
    ({ t, bb, lineId, close } = await appWithBlueBubblesLine());
  });
  afterAll(async () => close());

  it('a Private API failure that is not "off" is 4001, and edits and effects still work on the line', async () => {
    const first = await t.api('POST', '/api/v1/send', { phone, body: 'Hello', phone_line_id: lineId });
    expect(first.statusCode, first.body).toBe(200);
    // What PrivateApiAction.throwForNoMissingFields throws (privateApi/apis/index.ts), through MessageRouter.sendText.
    bb.inject('POST /api/v1/message/text', {
      status: 500,
      body: { status: 500, message: 'Message Send Error', error: { type: 'iMessage Error', message: 'Failed to invoke Private API action: send-message! Required fields are missing.' } },
    });
    const failed = await t.api('POST', '/api/v1/send', { phone, body: 'Second' });
    expect(failed.statusCode, failed.body).toBe(502);
    expect(failed.json()).toMatchObject({ code: 4001, retryable: true });

    const edit = await t.api('POST', `/api/v1/messages/${first.json().message_id}/edit`, { new_text: 'Hello again', edited_part_index: 0 });
    expect(edit.statusCode, edit.body).toBe(200);
    const effect = await t.api('POST', '/api/v1/send', { phone, body: 'Ta-da', effect: 'confetti' });
    expect(effect.statusCode, effect.body).toBe(200);
  });

  it('an attachment or a reaction Messages did not deliver is failed (4001), though BlueBubbles answered it sent', async () => {
    const to = '+14155550721';
    t.clock.advance(11 * 60_000); // past the line's first-touch gap
    const hello = await t.api('POST', '/api/v1/send', { phone: to, body: 'Hi', phone_line_id: lineId });
    expect(hello.statusCode, hello.body).toBe(200);
    bb.notDelivered.add(to);
    const res = await t.api('POST', '/api/v1/send', { phone: to, attachments: [await uploadedImage(t, 'plan.png')] });
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json()).toMatchObject({ code: 4001, retryable: true });
    expect((await t.api('GET', `/api/v1/messages/${res.json().message_id}`)).json().message).toMatchObject({ status: 'failed', error_code: 4001 });
    const reacted = await t.api('POST', `/api/v1/messages/${hello.json().message_id}/react`, { reaction: 'like' });
    expect(reacted.statusCode, reacted.body).toBe(502);
    expect(reacted.json().error).toMatchObject({ code: 4001 });
  });
});
