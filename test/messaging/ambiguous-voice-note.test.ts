/**
 * A staged voice note whose send the line never answered (a BlueBubbles upload that timed out):
 * the note may have gone out, so it stays used while its message is `sending` — a second send of
 * it is 404 / 5001, never a second voice note. Reconciliation decides: not on the Mac → the
 * message `failed` (4001) and the note given back, so the retry under the same key sends it once;
 * on the Mac (found by the note's file name) → `sent`, the note stays used and the retry answers
 * that message. The clock is moved past the line's window, never slept through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appWithBlueBubblesLine } from '../support/bluebubbles-line.js';
import type { TestApp } from '../support/app.js';
import type { StandIn } from '../drivers/bluebubbles/standin.js';
import { makeWav16Fast, sine } from '../audio/fixtures.js';

const UPLOAD = 'POST /api/v1/message/attachment';

describe('a BlueBubbles voice-note send that times out', () => {
  let t: TestApp;
  let bb: StandIn;
  let lineId: string;
  let close: () => Promise<void>;
  const phone = '+14155550691';
  const wav = makeWav16Fast(24_000, 1, 24_000, sine(440, 24_000)).toString('base64');
  beforeAll(async () => {
    ({ t, bb, lineId, close } = await appWithBlueBubblesLine({ timeout_ms: 300 }));
    const opened = await t.api('POST', '/api/v1/send', { phone, body: 'hello', phone_line_id: lineId });
    expect(opened.statusCode, opened.body).toBe(200);
  });
  afterAll(async () => close());

  const status = async (id: string) => (await t.api('GET', `/api/v1/messages/${id}`)).json().message;
  const stage = async () => {
    const res = await t.api('POST', '/api/v1/voice-notes', { audio_base64: wav, mime_type: 'audio/wav', phone_line_id: lineId });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().voice_note_id as string;
  };
  const send = (voiceNoteId: string, key?: string) =>
    t.api('POST', '/api/v1/send', { phone, phone_line_id: lineId, voice_note: { voice_note_id: voiceNoteId }, ...(key && { idempotency_key: key }) });
  /** The voice notes the Mac holds with this note's file. */
  const onMac = (voiceNoteId: string) =>
    [...bb.messages.values()].filter((m) => m.attachments?.some((a) => bb.attachments.get(a)?.transferName === `${voiceNoteId}.caf`));

  it('never reached the Mac: the note stays used while `sending`, and once reconciliation fails the message the retry sends it once', async () => {
    const vn = await stage();
    bb.inject(UPLOAD, { hangMs: 3_000 });
    const first = await send(vn, 'vn-lost');
    expect(first.statusCode, first.body).toBe(503);
    expect(first.json()).toMatchObject({ code: 3002, message_id: expect.stringMatching(/^msg_/) });
    const firstId = first.json().message_id as string;
    expect(await status(firstId)).toMatchObject({ status: 'sending' });

    // Meanwhile it may have gone out: neither the same key nor the same note sends it again.
    expect((await send(vn, 'vn-lost')).json().code).toBe(1012);
    const other = await send(vn);
    expect(other.statusCode, other.body).toBe(404);
    expect(other.json()).toMatchObject({ code: 5001, reason: expect.stringContaining('already used') });
    expect(bb.requestsTo('POST', '/api/v1/message/attachment')).toHaveLength(1);

    // Past the line's window the Mac's answer is final: it never left.
    t.clock.advance(60_000);
    await t.services.sendReconciler.sweep();
    expect(await status(firstId)).toMatchObject({ status: 'failed', error_code: 4001 });

    const retry = await send(vn, 'vn-lost');
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json().message_id).not.toBe(firstId);
    expect(onMac(vn)).toHaveLength(1);
    // Used by the send that went out: the same answer under the key, 5001 without it.
    expect((await send(vn, 'vn-lost')).json().message_id).toBe(retry.json().message_id);
    expect((await send(vn)).json()).toMatchObject({ code: 5001, reason: expect.stringContaining('already used') });
    expect(onMac(vn)).toHaveLength(1);
  });

  it('reached the Mac: reconciliation finds it by its file name, `sent`, and the note is never sent twice', async () => {
    const vn = await stage();
    bb.inject(UPLOAD, { storeThenHangMs: 3_000 });
    const first = await send(vn, 'vn-out');
    expect(first.statusCode, first.body).toBe(503);
    const firstId = first.json().message_id as string;
    expect(onMac(vn)).toHaveLength(1);

    t.clock.advance(60_000);
    await t.services.sendReconciler.sweep();
    expect(await status(firstId)).toMatchObject({ status: 'sent' });

    const retry = await send(vn, 'vn-out');
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json().message_id).toBe(firstId);
    expect((await send(vn)).json()).toMatchObject({ code: 5001, reason: expect.stringContaining('already used') });
    expect(onMac(vn)).toHaveLength(1);
  });
});
