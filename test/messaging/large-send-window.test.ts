/**
 * A send's window grows with its files' bytes: a BlueBubbles upload may now take as long as its
 * bytes at the minimum rate (file-limits.ts), so a large send whose answer never came is not
 * settled `failed` while such an upload could still be under way, and is once its window is over.
 * The window comes from the message's parts (a media part's size_bytes, a voice note's row). The
 * clock is moved, never slept through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appWithBlueBubblesLine } from '../support/bluebubbles-line.js';
import { uploadedFile } from '../support/messaging.js';
import type { TestApp } from '../support/app.js';
import type { StandIn } from '../drivers/bluebubbles/standin.js';
import { MIN_FILE_BYTES_PER_SEC } from '../../src/drivers/bluebubbles/file-limits.js';
import { loadOfMessage } from '../../src/domain/messaging/send-window.js';
import { makeWav16Fast, noise } from '../audio/fixtures.js';

const MiB = 1024 * 1024;
const UPLOAD = 'POST /api/v1/message/attachment';

describe('the window of a large send', () => {
  let t: TestApp;
  let bb: StandIn;
  let lineId: string;
  let close: () => Promise<void>;
  const phone = '+14155550693';
  beforeAll(async () => {
    ({ t, bb, lineId, close } = await appWithBlueBubblesLine({ timeout_ms: 300 }));
    const opened = await t.api('POST', '/api/v1/send', { phone, body: 'hello', phone_line_id: lineId });
    expect(opened.statusCode, opened.body).toBe(200);
  });
  afterAll(async () => close());

  const status = async (id: string) => (await t.api('GET', `/api/v1/messages/${id}`)).json().message;
  const line = async () => (await t.testStore.store.lines.get(lineId))!;
  const stored = async (id: string) => (await t.testStore.store.messages.get((await line()).tenant_id, id))!;
  const driver = async () => t.services.drivers.forLine(await line());
  /** Moves the test clock to `at` (business ms). */
  const moveTo = (at: number) => t.clock.advance(Math.max(0, at - t.clock.now()));

  const upload = (size: number) => uploadedFile(t, 'long.mp4', 'video/mp4', size);

  it('is not settled `failed` within the window its bytes give it, and is after it', async () => {
    const size = 8 * MiB;
    const attachmentId = await upload(size);
    // The Mac got the file but its answer never came; it sent nothing.
    bb.inject(UPLOAD, { hangMs: 3_000 });
    const res = await t.api('POST', '/api/v1/send', { phone, phone_line_id: lineId, attachments: [attachmentId] });
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toMatchObject({ code: 3002 });
    const id = res.json().message_id as string;
    const message = await stored(id);

    // A minute on (the old window, twice the timeout per file plus one, was 1.2 s): still under way.
    moveTo(message.sent_at + 60_000);
    expect((await t.services.sendReconciler.sweep()).failed).toBe(0);
    expect(await status(id)).toMatchObject({ status: 'sending' });

    expect(await loadOfMessage(t.testStore.store, message)).toEqual({ files: 1, bytes: size });
    const window = (await driver()).sendWindowMs({ files: 1, bytes: size });
    // At least the upload at the slowest rate the driver lets run (256 s for 8 MiB).
    expect(window).toBeGreaterThan((size / MIN_FILE_BYTES_PER_SEC) * 1000);
    moveTo(message.sent_at + window - 5_000);
    expect((await t.services.sendReconciler.sweep()).failed).toBe(0);
    expect(await status(id)).toMatchObject({ status: 'sending' });

    moveTo(message.sent_at + window + 1_000);
    await t.services.sendReconciler.sweep();
    expect(await status(id)).toMatchObject({ status: 'failed', error_code: 4001 });
  });

  it("grows a voice note's window by its bytes, read from the staged note", async () => {
    // 30 s of noise: an Opus CAF of ~120 KB, ~4 s at the minimum rate, uploaded up to twice.
    const wav = makeWav16Fast(30 * 16_000, 1, 16_000, noise()).toString('base64');
    const staged = await t.api('POST', '/api/v1/voice-notes', { audio_base64: wav, mime_type: 'audio/wav', phone_line_id: lineId });
    expect(staged.statusCode, staged.body).toBe(200);
    const voiceNoteId = staged.json().voice_note_id as string;
    bb.inject(UPLOAD, { hangMs: 3_000 });
    const res = await t.api('POST', '/api/v1/send', { phone, phone_line_id: lineId, voice_note: { voice_note_id: voiceNoteId } });
    expect(res.statusCode, res.body).toBe(503);
    const id = res.json().message_id as string;
    const message = await stored(id);

    // Past the window the note would have without its bytes (2.7 s), and the old one (1.2 s).
    moveTo(message.sent_at + 4_000);
    expect((await t.services.sendReconciler.sweep()).failed).toBe(0);
    expect(await status(id)).toMatchObject({ status: 'sending' });

    const note = await t.testStore.store.media.getVoiceNote((await line()).tenant_id, voiceNoteId);
    const load = await loadOfMessage(t.testStore.store, message);
    expect(load).toEqual({ files: 1, bytes: note!.size_bytes });
    const window = (await driver()).sendWindowMs(load);
    expect(window).toBeGreaterThan(5_000);
    moveTo(message.sent_at + window + 1_000);
    await t.services.sendReconciler.sweep();
    expect(await status(id)).toMatchObject({ status: 'failed', error_code: 4001 });
  });
});
