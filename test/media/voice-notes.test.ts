import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { deviceLog, firstTouch, newRecipient, prepareSandbox, uploadedImage } from '../support/messaging.js';
import { makeWav16Fast, sine } from '../audio/fixtures.js';
import { decodeCafToPcm } from '../../src/audio/index.js';
import { SIMULATOR_RECIPIENTS } from '../../src/drivers/simulator/reserved.js';

const wavB64 = (seconds: number, rate = 44_100, channels = 2) =>
  makeWav16Fast(Math.round(seconds * rate), channels, rate, sine(440, rate)).toString('base64');

describe('voice notes', () => {
  let t: TestApp;
  let twoSeconds: string;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await prepareSandbox(t);
    twoSeconds = wavB64(2);
  });
  afterAll(async () => t.close());

  const stage = (body: object) => t.api('POST', '/api/v1/voice-notes', body);
  const sendVoice = (phone: string, line: string, id: string) =>
    t.api('POST', '/api/v1/send', { phone, phone_line_id: line, voice_note: { voice_note_id: id } });

  it('stages a WAV as Opus-in-CAF and sends it as an audio message from the staging line', async () => {
    const before = t.clock.now();
    const res = await stage({ audio_base64: twoSeconds, mime_type: 'audio/wav' });
    expect(res.statusCode, res.body).toBe(200);
    const vn = res.json();
    expect(Object.keys(vn).sort()).toEqual(['container', 'duration_seconds', 'expires_at_ms', 'phone_line_id', 'transcoded', 'uploaded', 'voice_note_id']);
    expect(vn).toMatchObject({ uploaded: true, transcoded: true, container: 'caf' });
    expect(vn.voice_note_id).toMatch(/^vn_[0-9a-f]{32}$/);
    expect(vn.duration_seconds).toBeCloseTo(2, 2);
    expect(vn.expires_at_ms - before).toBeGreaterThanOrEqual(15 * 60_000);
    expect(vn.expires_at_ms - before).toBeLessThan(15 * 60_000 + 2_000);
    expect(t.demo.phone_line_ids).toContain(vn.phone_line_id);

    t.clock.advance(11 * 60_000);
    const sent = await sendVoice(newRecipient(), vn.phone_line_id, vn.voice_note_id);
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json().phone_line_id).toBe(vn.phone_line_id);
    const [entry] = await deviceLog(t, vn.phone_line_id);
    expect(entry).toMatchObject({ kind: 'voice_note', is_audio_message: true });
    const part = (entry!.parts as { content_path: string; mime_type: string; filename: string }[])[0]!;
    expect(part.filename).toMatch(/\.caf$/);
    const caf = (await t.admin('GET', part.content_path)).rawPayload;
    expect(caf.subarray(0, 4).toString('latin1')).toBe('caff');
    const pcm = await decodeCafToPcm(caf);
    expect(pcm.samples.length / pcm.sampleRate).toBeCloseTo(2, 1);

    // The service's own CAF staged again passes through untouched.
    const again = (await stage({ audio_base64: caf.toString('base64'), mime_type: 'audio/caf' })).json();
    expect(again).toMatchObject({ transcoded: false });
    expect(again.duration_seconds).toBeCloseTo(2, 2);
  });

  it('voids a staged note on another line, after 15 minutes, and after a line restart (404/5001)', async () => {
    const [lineA, lineB] = t.demo.phone_line_ids as [string, string];
    const onA = (await stage({ audio_base64: twoSeconds, phone_line_id: lineA })).json();
    expect(onA.phone_line_id).toBe(lineA);
    const wrongLine = await sendVoice(newRecipient(), lineB, onA.voice_note_id);
    expect(wrongLine.statusCode).toBe(404);
    expect(wrongLine.json()).toMatchObject({ code: 5001, status: 'failed', reason: expect.stringContaining('another line') });

    t.clock.advance(15 * 60_000);
    const expired = await sendVoice(newRecipient(), lineA, onA.voice_note_id);
    expect(expired.json()).toMatchObject({ code: 5001, reason: expect.stringContaining('expired') });

    const fresh = (await stage({ audio_base64: twoSeconds, phone_line_id: lineA })).json();
    expect((await t.admin('POST', `/admin/v1/lines/${lineA}/simulate/restart`)).statusCode).toBe(200);
    const restarted = await sendVoice(newRecipient(), lineA, fresh.voice_note_id);
    expect(restarted.json()).toMatchObject({ code: 5001, reason: expect.stringContaining('restarted') });
  });

  it('answers the staging codes for bad sources', async () => {
    const cases: [object, number, string?][] = [
      [{}, 1001],
      [{ audio_base64: twoSeconds, audio_url: 'https://example.com/a.wav' }, 1002],
      [{ audio_base64: twoSeconds, mime_type: 'audio/mpeg' }, 1002],
      [{ audio_url: 'http://example.com/a.wav' }, 1002],
      [{ audio_url: 'https://127.0.0.1/a.wav' }, 1002],
      [{ audio_url: 'https://[::ffff:10.0.0.1]/a.wav' }, 1002],
      [{ audio_base64: `data:audio/wav;base64,${twoSeconds}` }, 3004, 'data:'],
      [{ audio_base64: 'not base64!!' }, 3004, 'base64'],
      [{ audio_base64: Buffer.concat([Buffer.from('ID3\u0004\u0000'), Buffer.alloc(2000, 0xff)]).toString('base64'), mime_type: 'audio/caf' }, 3004],
      [{ audio_base64: wavB64(0.3) }, 3004, '0.5'],
    ];
    for (const [body, code, text] of cases) {
      const res = await stage(body);
      expect(res.json().error?.code, JSON.stringify(body).slice(0, 100)).toBe(code);
      if (text) expect(res.json().error.message).toContain(text);
    }
  });

  it('takes mime_type in any case (MIME types are case-insensitive)', async () => {
    const res = await stage({ audio_base64: twoSeconds, mime_type: 'AUDIO/WAV' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ uploaded: true, transcoded: true });
    expect((await stage({ audio_base64: twoSeconds, mime_type: 'Audio/X-Wav' })).statusCode).toBe(200);
    // Still checked against the bytes: a WAV declared as CAF is refused, whatever the case.
    expect((await stage({ audio_base64: twoSeconds, mime_type: 'AUDIO/CAF' })).json().error.code).toBe(3004);
  });

  it('answers an empty audio source as a missing one (400/1001), not a failed decode', async () => {
    for (const body of [{ audio_base64: '' }, { audio_base64: '  ' }, { audio_url: '' }, { audio_base64: '', audio_url: '' }]) {
      const res = await stage(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error, JSON.stringify(body)).toMatchObject({ code: 1001, retryable: false, message: expect.stringContaining('neither') });
    }
    // An empty one beside a real one is simply the real one.
    expect((await stage({ audio_base64: twoSeconds, audio_url: '' })).statusCode).toBe(200);
  });

  it('answers 3002 when no line can take voice notes, and keeps tenants apart', async () => {
    const [lineA, lineB] = t.demo.phone_line_ids as [string, string];
    await t.admin('PATCH', `/admin/v1/lines/${lineA}`, { driver_config: { receipt_delay_ms: 5, voice_notes: false } });
    expect((await stage({ audio_base64: twoSeconds, phone_line_id: lineA })).json().error.code).toBe(3002);
    await t.admin('PATCH', `/admin/v1/lines/${lineB}`, { driver_config: { receipt_delay_ms: 5, voice_notes: false } });
    expect((await stage({ audio_base64: twoSeconds })).json().error.code).toBe(3002);
    await t.admin('PATCH', `/admin/v1/lines/${lineA}`, { driver_config: { receipt_delay_ms: 5 } });
    await t.admin('PATCH', `/admin/v1/lines/${lineB}`, { driver_config: { receipt_delay_ms: 5 } });

    const mine = (await stage({ audio_base64: twoSeconds, phone_line_id: lineA })).json();
    const other = (await t.admin('POST', '/admin/v1/accounts', { name: 'Other voice' })).json();
    await t.admin('POST', '/admin/v1/tenants', { account_id: other.account.id, slug: 'other-voice' });
    const theirLine = (await t.admin('POST', '/admin/v1/lines', { tenant: 'other-voice', phone_number: '+14155550950', driver: 'simulator' })).json().phone_line;
    const res = await t.api('POST', '/api/v1/send', { phone: newRecipient(), phone_line_id: theirLine.id, voice_note: { voice_note_id: mine.voice_note_id } }, { secret: other.signing_secret });
    expect(res.json().code).toBe(5001);
    expect((await stage({ audio_base64: twoSeconds, phone_line_id: lineA })).statusCode).toBe(200);
    expect((await t.api('POST', '/api/v1/voice-notes', { audio_base64: twoSeconds, phone_line_id: lineA }, { secret: other.signing_secret })).json().error.code).toBe(3002);
  });

  it("the device log's content paths still answer after the line moved to another tenant", async () => {
    const line = (await t.admin('POST', '/admin/v1/lines', { tenant: t.demo.tenant, phone_number: '+14155550960', driver: 'simulator' })).json().phone_line;
    const phone = newRecipient();
    const vn = (await stage({ audio_base64: twoSeconds, phone_line_id: line.id })).json();
    expect((await firstTouch(t, { phone, phone_line_id: line.id, voice_note: { voice_note_id: vn.voice_note_id } })).statusCode).toBe(200);
    const image = await uploadedImage(t, 'moved.png');
    expect((await t.api('POST', '/api/v1/send', { phone, phone_line_id: line.id, attachments: [image] })).statusCode).toBe(200);
    const paths = (await deviceLog(t, line.id)).flatMap((e) => ((e.parts ?? []) as { content_path: string }[]).map((p) => p.content_path));
    expect(paths).toHaveLength(2);
    const before = await Promise.all(paths.map(async (p) => (await t.admin('GET', p)).rawPayload));

    const other = (await t.admin('POST', '/admin/v1/accounts', { name: 'New owner' })).json();
    await t.admin('POST', '/admin/v1/tenants', { account_id: other.account.id, slug: 'new-owner' });
    expect((await t.admin('PATCH', `/admin/v1/lines/${line.id}`, { tenant: 'new-owner' })).statusCode).toBe(200);
    for (const [i, p] of paths.entries()) {
      const res = await t.admin('GET', p);
      expect(res.statusCode, p).toBe(200);
      expect(res.rawPayload.equals(before[i]!)).toBe(true);
    }
  });

  it('says a note its line voided is void, also when a send took it first: one that never left, and one that went out', async () => {
    const line = (await t.admin('POST', '/admin/v1/lines', { tenant: t.demo.tenant, phone_number: '+14155550961', driver: 'simulator' })).json().phone_line;
    const restart = async () => expect((await t.admin('POST', `/admin/v1/lines/${line.id}/simulate/restart`)).statusCode).toBe(200);
    const expectVoid = (res: { statusCode: number; json(): any }, id: string) => {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 5001, retryable: false, reason: `voice note ${id} is void: the line's service restarted since staging, so it can no longer be sent; stage it again` });
    };

    // Taken by a send whose line never answered (it stays used meanwhile), then the line restarts:
    // reconciliation fails the send, and the note, void, is not given back.
    const lost = (await stage({ audio_base64: twoSeconds, phone_line_id: line.id })).json();
    const unsettled = await sendVoice(SIMULATOR_RECIPIENTS.stallsBeforeDevice, line.id, lost.voice_note_id);
    expect(unsettled.statusCode, unsettled.body).toBe(503);
    expect((await sendVoice(SIMULATOR_RECIPIENTS.stallsBeforeDevice, line.id, lost.voice_note_id)).json().reason).toContain('already used');
    await restart();
    t.clock.advance(2_000);
    await t.services.sendReconciler.sweep();
    expect((await t.api('GET', `/api/v1/messages/${unsettled.json().message_id}`)).json().message).toMatchObject({ status: 'failed', error_code: 4001 });
    expectVoid(await sendVoice(SIMULATOR_RECIPIENTS.stallsBeforeDevice, line.id, lost.voice_note_id), lost.voice_note_id);

    // Sent, then the line restarts: void too (it can no longer be sent either way).
    const phone = newRecipient();
    t.clock.advance(10 * 60_000);
    const sent = (await stage({ audio_base64: twoSeconds, phone_line_id: line.id })).json();
    expect((await sendVoice(phone, line.id, sent.voice_note_id)).statusCode).toBe(200);
    await restart();
    expectVoid(await sendVoice(phone, line.id, sent.voice_note_id), sent.voice_note_id);
  });
});
