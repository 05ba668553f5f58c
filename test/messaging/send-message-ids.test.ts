/** Issue 16 item 10: /send with a body and attachments names every message it recorded (one per bubble). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { deviceLog, firstTouch, newRecipient, prepareSandbox, uploadedImage } from '../support/messaging.js';

describe('POST /api/v1/send message_ids', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await prepareSandbox(t);
  });
  afterAll(async () => t.close());

  const uploaded = (filename: string) => uploadedImage(t, filename);

  it('keeps message_id (the last) and lists every message in order: the text bubble, then one per attachment', async () => {
    const phone = newRecipient();
    const atts = [await uploaded('a.png'), await uploaded('b.png')];
    const res = await firstTouch(t, { phone, body: 'caption first', attachments: atts, idempotency_key: `ids-${phone}` });
    expect(res.statusCode, res.body).toBe(200);
    const sent = res.json();
    expect(sent.message_ids).toHaveLength(3);
    expect(sent.message_ids[2]).toBe(sent.message_id);

    const [text, ...media] = await Promise.all(sent.message_ids.map(async (id: string) => (await t.api('GET', `/api/v1/messages/${id}`)).json().message));
    expect(text.parts).toEqual([{ type: 'text', value: 'caption first' }]);
    expect(media.map((m: { parts: { attachment_id: string }[] }) => m.parts.map((p) => p.attachment_id))).toEqual(atts.map((a) => [a]));
    // The device got them in that order.
    const log = (await deviceLog(t, sent.phone_line_id)).reverse();
    const kinds = log.filter((e) => e.to === phone).map((e) => e.kind);
    expect(kinds).toEqual(['text', 'media', 'media']);

    // A replay under the same key answers the same ids.
    const again = await t.api('POST', '/api/v1/send', { phone, body: 'caption first', attachments: atts, idempotency_key: `ids-${phone}` });
    expect(again.json().message_ids).toEqual(sent.message_ids);
  });

  it('lists the one message of a plain text send', async () => {
    const sent = (await firstTouch(t, { phone: newRecipient(), body: 'just text' })).json();
    expect(sent.message_ids).toEqual([sent.message_id]);
  });
});
