import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { allDeviceLogs, deviceLog, eventually, firstTouch, newRecipient, prepareSandbox, uploadedImage } from '../support/messaging.js';
import { SIMULATOR_RECIPIENTS } from '../../src/drivers/simulator/reserved.js';
import { makeWav16Fast, sine } from '../audio/fixtures.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /api/v1/send', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await prepareSandbox(t);
  });
  afterAll(async () => t.close());

  it('sends a text and answers exactly the spec fields; the device receives exactly it', async () => {
    const phone = newRecipient();
    const res = await firstTouch(t, { phone, body: 'Hello from Blueline' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['chat_id', 'convo_id', 'lead_created', 'lead_id', 'message_id', 'message_ids', 'phone_line_id', 'status']);
    expect(body.message_ids).toEqual([body.message_id]);
    expect(body).toMatchObject({ status: 'sent', lead_created: true });
    expect(body.lead_id).toMatch(UUID);
    expect(body.chat_id).toBe(body.lead_id);
    expect(body.convo_id).toMatch(UUID);
    expect(body.message_id).toMatch(/^msg_[0-9A-Z]{26}$/);
    expect(t.demo.phone_line_ids).toContain(body.phone_line_id);
    const log = await deviceLog(t, body.phone_line_id);
    expect(log[0]).toMatchObject({ kind: 'text', to: phone, text: 'Hello from Blueline' });

    const again = await t.api('POST', '/api/v1/send', { phone, body: 'second' });
    expect(again.json()).toMatchObject({ lead_id: body.lead_id, chat_id: body.chat_id, convo_id: body.convo_id, lead_created: false, phone_line_id: body.phone_line_id });
  });

  it('reports delivered then read on the message status', async () => {
    const sent = (await firstTouch(t, { phone: newRecipient(), body: 'track me' })).json();
    const read = await eventually(
      async () => (await t.api('GET', `/api/v1/messages/${sent.message_id}`)).json().message,
      (m) => m.status === 'read',
    );
    expect(read).toMatchObject({ id: sent.message_id, direction: 'outbound', status: 'read', chat_id: sent.chat_id });
    expect(Date.parse(read.delivered_at)).toBeLessThanOrEqual(Date.parse(read.read_at));
  });

  it('records each attachment as a message of its own bubble: its own receipts and tapbacks, as the chat route does', async () => {
    const files = [await uploadedImage(t, 'one.png'), await uploadedImage(t, 'two.png'), await uploadedImage(t, 'three.png')];
    const res = await firstTouch(t, { phone: newRecipient(), body: 'three photos', attachments: files });
    expect(res.statusCode, res.body).toBe(200);
    const sent = res.json();
    expect(sent.message_ids).toHaveLength(4);
    expect(sent.message_id).toBe(sent.message_ids[3]);

    // The history holds the text bubble, then one media message per file, in order.
    const history = (await t.api('GET', `/api/v1/chats/${sent.chat_id}/messages`)).json().messages as { id: string; parts: { type: string; attachment_id?: string; value?: string }[] }[];
    const byId = new Map(history.map((m) => [m.id, m]));
    const recorded = sent.message_ids.map((id: string) => byId.get(id)!.parts);
    expect(recorded).toEqual([
      [{ type: 'text', value: 'three photos' }],
      ...files.map((id) => [expect.objectContaining({ type: 'media', attachment_id: id })]),
    ]);
    // The device got three bubbles, each under its own guid, and every message hears its own receipts.
    for (const id of sent.message_ids) {
      await eventually(async () => (await t.api('GET', `/api/v1/messages/${id}`)).json().message, (m) => m.status === 'read');
    }
    const log = await deviceLog(t, sent.phone_line_id);
    const media = log.filter((e) => e.kind === 'media').slice(0, 3).reverse();
    expect(media.map((e) => (e.parts as { attachment_id: string }[]).map((p) => p.attachment_id))).toEqual(files.map((f) => [f]));
    expect(new Set(media.map((e) => e.guid)).size).toBe(3);

    // A tapback on the second photo reaches that bubble, not the first.
    const second = sent.message_ids[2] as string;
    expect((await t.api('POST', `/api/v1/messages/${second}/react`, { reaction: 'love' })).statusCode).toBe(200);
    const tapback = (await deviceLog(t, sent.phone_line_id))[0]!;
    expect(tapback).toMatchObject({ kind: 'reaction', message_id: second, guid: media[1]!.guid });
  });

  it('keeps messages to the "undelivered" number at sent', async () => {
    const sent = (await firstTouch(t, { phone: SIMULATOR_RECIPIENTS.undelivered, body: 'into the void' })).json();
    await new Promise((r) => setTimeout(r, 100));
    const m = (await t.api('GET', `/api/v1/messages/${sent.message_id}`)).json().message;
    expect(m).toMatchObject({ status: 'sent', delivered_at: null, read_at: null });
  });

  it('lowercases email handles and keeps one lead per handle', async () => {
    const first = (await firstTouch(t, { phone: 'Jane.Doe@iCloud.com', body: 'hi' })).json();
    const second = (await t.api('POST', '/api/v1/send', { phone: 'jane.doe@icloud.com', body: 'again' })).json();
    expect(second.lead_id).toBe(first.lead_id);
    const log = await deviceLog(t, first.phone_line_id);
    expect(log.find((e) => e.text === 'hi')).toMatchObject({ to: 'jane.doe@icloud.com' });
  });

  it('takes a number as documents write it (en dash, non-breaking hyphen and space) and keeps one lead per number', async () => {
    const phone = newRecipient();
    const written = `${phone.slice(0, 2)}\u00a0(${phone.slice(2, 5)}) ${phone.slice(5, 8)}\u2011${phone.slice(8, 10)}\u2013${phone.slice(10)}`;
    const first = await firstTouch(t, { phone: written, body: 'pasted' });
    expect(first.statusCode, first.body).toBe(200);
    const second = (await t.api('POST', '/api/v1/send', { phone, body: 'typed' })).json();
    expect(second.lead_id).toBe(first.json().lead_id);
    const log = await deviceLog(t, first.json().phone_line_id);
    expect(log.find((e) => e.text === 'pasted')).toMatchObject({ to: phone });
    // Other characters still make it no number.
    expect((await t.api('POST', '/api/v1/send', { phone: `${phone.slice(0, 5)}/${phone.slice(5)}`, body: 'x' })).json().code).toBe(1003);
  });

  it('answers every failure in the flat shape, with no trace_id in the body', async () => {
    const res = await t.api('POST', '/api/v1/send', { phone: '555-CALL-NOW', body: 'x' });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toEqual({
      status: 'failed', error: 'invalid_request', code: 1003, reason: expect.stringContaining('E.164'), retryable: false,
      lead_id: null, chat_id: null, lead_created: false, convo_id: null, phone_line_id: null,
    });
    expect(res.headers['x-trace-id']).toBeTruthy();
    const unauth = await t.request({ method: 'POST', url: '/api/v1/send', payload: { phone: '+14155550100', body: 'x' } });
    expect(unauth.statusCode).toBe(401);
    expect(unauth.json()).toMatchObject({ status: 'failed', code: 2012, error: 'unauthorized' });
  });

  it('answers 1003 for every recipient that is not a number or an email, an empty or over-long one too (as documented)', async () => {
    const tooLong = `${'a'.repeat(320)}@b.co`;
    for (const phone of ['', '   ', 'abc', tooLong]) {
      const res = await t.api('POST', '/api/v1/send', { phone, body: 'x' });
      expect({ phone, status: res.statusCode, code: res.json().code }).toEqual({ phone, status: 400, code: 1003 });
    }
    const group = async (to: unknown) => (await t.api('POST', '/api/v1/chats', { to, message: { parts: [{ type: 'text', value: 'x' }] } })).json().error?.code;
    expect(await group('')).toBe(1003);
    expect(await group(['+14155550100', ''])).toBe(1003);
    expect(await group(tooLong)).toBe(1003);
  });

  it('counts text in characters as the sender sees them: 10,000 emoji go out, one more is 1009', async () => {
    const phone = newRecipient();
    const full = '😀'.repeat(10_000); // 20,000 UTF-16 units
    const sent = await firstTouch(t, { phone, body: full });
    expect(sent.statusCode, sent.body).toBe(200);
    expect((await deviceLog(t, sent.json().phone_line_id)).find((e) => e.text === full)).toBeTruthy();
    for (const body of ['😀'.repeat(10_001), 'x'.repeat(10_001)]) {
      const long = await t.api('POST', '/api/v1/send', { phone, body });
      expect(long.statusCode).toBe(400);
      expect(long.json()).toMatchObject({ code: 1009, reason: 'body is 10001 characters; the maximum is 10000' });
    }
  });

  it('rejects unknown effects with the allowed list: every Messages effect, then the aliases', async () => {
    const bad = await t.api('POST', '/api/v1/send', { phone: '+14155550101', body: 'x', effect: 'sparkle' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({
      code: 4098,
      allowed_effects: [
        'slam', 'loud', 'gentle', 'invisible_ink', 'echo', 'spotlight', 'balloons', 'confetti', 'love', 'lasers', 'fireworks', 'celebration', 'shooting_star',
        'impact', 'invisibleink', 'heart', 'laser', 'fireball', 'sparkles', 'shootingstar',
      ],
    });
  });

  it('sends each effect, bubble and screen, to the device as its Apple effect id; earlier names are aliases', async () => {
    const expected: Record<string, string> = {
      slam: 'com.apple.MobileSMS.expressivesend.impact',
      loud: 'com.apple.MobileSMS.expressivesend.loud',
      gentle: 'com.apple.MobileSMS.expressivesend.gentle',
      invisible_ink: 'com.apple.MobileSMS.expressivesend.invisibleink',
      echo: 'com.apple.messages.effect.CKEchoEffect',
      spotlight: 'com.apple.messages.effect.CKSpotlightEffect',
      balloons: 'com.apple.messages.effect.CKHappyBirthdayEffect',
      confetti: 'com.apple.messages.effect.CKConfettiEffect',
      love: 'com.apple.messages.effect.CKHeartEffect',
      lasers: 'com.apple.messages.effect.CKLasersEffect',
      fireworks: 'com.apple.messages.effect.CKFireworksEffect',
      celebration: 'com.apple.messages.effect.CKSparklesEffect',
      shooting_star: 'com.apple.messages.effect.CKShootingStarEffect',
      fireball: 'com.apple.messages.effect.CKFireworksEffect',
      heart: 'com.apple.messages.effect.CKHeartEffect',
      laser: 'com.apple.messages.effect.CKLasersEffect',
      sparkles: 'com.apple.messages.effect.CKSparklesEffect',
      shootingstar: 'com.apple.messages.effect.CKShootingStarEffect',
    };
    const phone = newRecipient();
    const first = (await firstTouch(t, { phone, body: 'hello' })).json();
    for (const [effect, appleId] of Object.entries(expected)) {
      const res = await t.api('POST', '/api/v1/send', { phone, body: `with ${effect}`, effect });
      expect(res.statusCode, res.body).toBe(200);
      const sent = (await deviceLog(t, first.phone_line_id)).find((m) => m.text === `with ${effect}`);
      expect(sent, effect).toMatchObject({ effect: appleId });
    }
  });

  it('enforces voice-note exclusivity and lookup rules', async () => {
    const line = t.demo.phone_line_ids[0];
    const vn = { voice_note_id: 'vn_0123456789abcdef' };
    const withBody = await t.api('POST', '/api/v1/send', { phone: '+14155550102', phone_line_id: line, voice_note: vn, body: 'x' });
    expect(withBody.statusCode).toBe(400);
    expect(withBody.json()).toMatchObject({ code: 1011, status: 'failed' });
    const withEffect = await t.api('POST', '/api/v1/send', { phone: '+14155550102', phone_line_id: line, voice_note: vn, effect: 'heart' });
    expect(withEffect.json().code).toBe(1011);
    const withLink = await t.api('POST', '/api/v1/send', { phone: '+14155550102', phone_line_id: line, voice_note: vn, rich_link: 'https://example.com' });
    expect(withLink.statusCode).toBe(501);
    expect(withLink.json().code).toBe(4099);
    const inAttachments = await t.api('POST', '/api/v1/send', { phone: '+14155550102', attachments: ['vn_0123456789abcdef'] });
    expect(inAttachments.json()).toMatchObject({ code: 1011, attachment_index: 0 });
    const unknown = await t.api('POST', '/api/v1/send', { phone: '+14155550102', phone_line_id: line, voice_note: vn });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe(5001);
  });

  it('answers 501/4099 for a voice note on a line without voice-note support', async () => {
    const line = t.demo.phone_line_ids[1]!;
    await t.admin('PATCH', `/admin/v1/lines/${line}`, { driver_config: { receipt_delay_ms: 5, voice_notes: false } });
    const res = await t.api('POST', '/api/v1/send', { phone: '+14155550103', phone_line_id: line, voice_note: { voice_note_id: 'vn_00' } });
    expect(res.statusCode).toBe(501);
    expect(res.json()).toMatchObject({ code: 4099, status: 'failed' });
    await t.admin('PATCH', `/admin/v1/lines/${line}`, { driver_config: { receipt_delay_ms: 5 } });
  });

  it('refuses a phone_line_id that is not the tenant\'s (2006)', async () => {
    const other = (await t.admin('POST', '/admin/v1/accounts', { name: 'Other' })).json();
    await t.admin('POST', '/admin/v1/tenants', { account_id: other.account.id, slug: 'other-send' });
    const line = (await t.admin('POST', '/admin/v1/lines', { tenant: 'other-send', phone_number: '+14155550900', driver: 'simulator' })).json().phone_line;
    const res = await t.api('POST', '/api/v1/send', { phone: '+14155550104', body: 'x', phone_line_id: line.id });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe(2006);
  });

  it('answers an unreachable recipient with 502/4001, retryable, with the ids, and records the failure', async () => {
    t.clock.advance(11 * 60_000);
    const res = await t.api('POST', '/api/v1/send', { phone: SIMULATOR_RECIPIENTS.unreachable, body: 'anyone?' });
    expect(res.statusCode).toBe(502);
    const body = res.json();
    expect(body).toMatchObject({ status: 'failed', error: 'send_failed', code: 4001, retryable: true, lead_created: true });
    expect(body.lead_id).toMatch(UUID);
    expect(body.chat_id).toBe(body.lead_id);
    expect(t.demo.phone_line_ids).toContain(body.phone_line_id);
    const history = (await t.api('GET', `/api/v1/chats/${body.chat_id}/messages`)).json().messages;
    expect(history[0]).toMatchObject({ status: 'failed', error_code: 4001 });
  });

  it('returns the recorded result for a repeated idempotency key and refuses a changed one', async () => {
    const phone = newRecipient();
    const first = await firstTouch(t, { phone, body: 'once', idempotency_key: 'order-1' });
    const again = await t.api('POST', '/api/v1/send', { phone, body: 'once', idempotency_key: 'order-1' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    const log = await deviceLog(t, first.json().phone_line_id);
    expect(log.filter((e) => e.text === 'once')).toHaveLength(1);

    for (const changed of [{ phone, body: 'twice' }, { phone: newRecipient(), body: 'once' }]) {
      const res = await t.api('POST', '/api/v1/send', { ...changed, idempotency_key: 'order-1' });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ status: 'failed', code: 'idempotency_collision', error: 'idempotency_collision', retryable: false });
    }
    // Six hours later the key is free again.
    t.clock.advance(6 * 3600_000 + 1_000);
    const later = await t.api('POST', '/api/v1/send', { phone, body: 'twice', idempotency_key: 'order-1' });
    expect(later.statusCode).toBe(200);
    expect(later.json().message_id).not.toBe(first.json().message_id);
  });

  it('rate-limits per tenant with 429/1007, retry_after and Retry-After', async () => {
    await t.admin('PATCH', '/admin/v1/tenants/demo', { rate_limit: { per_second: 0.5, burst: 2 } });
    const phone = newRecipient();
    await firstTouch(t, { phone, body: 'r0' }); // the clock move refills the bucket
    await t.api('POST', '/api/v1/send', { phone, body: 'r1' });
    const limited = await t.api('POST', '/api/v1/send', { phone, body: 'r2' });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ status: 'failed', code: 1007, retryable: true, retry_after: 2 });
    expect(limited.headers['retry-after']).toBe('2');
    t.clock.advance(2_000);
    expect((await t.api('POST', '/api/v1/send', { phone, body: 'r3' })).statusCode).toBe(200);
    await t.admin('PATCH', '/admin/v1/tenants/demo', { rate_limit: { per_second: 10_000, burst: 10_000 } });
  });

  it('refuses what it cannot carry out before writing a lead: a later send still creates it', async () => {
    const phone = newRecipient();
    const refusals: [Record<string, unknown>, number][] = [
      [{ attachments: [] }, 1002],
      [{ attachments: ['att_nope'] }, 5001],
      [{ body: 'see https://example.com/offer' }, 1005],
      [{ rich_link: 'https://example.com/offer' }, 1005],
    ];
    for (const [fields, code] of refusals) {
      const res = await firstTouch(t, { phone, ...fields });
      expect(res.json(), JSON.stringify(fields)).toMatchObject({ status: 'failed', code, lead_id: null, chat_id: null, lead_created: false });
    }
    const ok = await firstTouch(t, { phone, body: 'hello first' });
    expect(ok.json()).toMatchObject({ status: 'sent', lead_created: true });
    // Once the chat exists, links are fine.
    const link = await t.api('POST', '/api/v1/send', { phone, body: 'the offer', rich_link: { url: 'https://example.com/offer' } });
    expect(link.statusCode, link.body).toBe(200);
    const log = await deviceLog(t, ok.json().phone_line_id);
    expect(log.find((e) => e.text === 'the offer')).toMatchObject({ rich_link: 'https://example.com/offer' });
  });

  it('counts body and attachments as parts (1006 past 10) and refuses combinations it cannot send', async () => {
    const atts = (n: number) => Array.from({ length: n }, (_, i) => `att_${i}`);
    const send = async (fields: Record<string, unknown>) => (await t.api('POST', '/api/v1/send', { phone: '+14155550177', ...fields })).json();
    expect(await send({ body: 'caption', attachments: atts(10) })).toMatchObject({ status: 'failed', code: 1006 });
    expect(await send({ attachments: atts(11) })).toMatchObject({ code: 1006 });
    expect(await send({ body: 'x', rich_link: 'javascript:alert(1)' })).toMatchObject({ code: 1002 });
    expect(await send({ body: 'x', rich_link: 'not a url' })).toMatchObject({ code: 1002 });
    expect(await send({ attachments: ['att_0'], rich_link: 'https://example.com' })).toMatchObject({ code: 1002 });
    expect(await send({ attachments: ['att_0'], effect: 'confetti' })).toMatchObject({ code: 1002 });
  });

  it('leaves the key of a request refused before any message free for the corrected request', async () => {
    const phone = newRecipient();
    const refused = await firstTouch(t, { phone, attachments: ['att_missing'], idempotency_key: 'fix-me' });
    expect(refused.json()).toMatchObject({ status: 'failed', code: 5001 });
    const fixed = await t.api('POST', '/api/v1/send', { phone, body: 'fixed', idempotency_key: 'fix-me' });
    expect(fixed.statusCode, fixed.body).toBe(200);
  });

  it('takes the Idempotency-Key header as the key, and refuses a header that contradicts the body', async () => {
    const phone = newRecipient();
    const headers = { 'idempotency-key': 'hdr-1' };
    t.clock.advance(11 * 60_000);
    const first = await t.api('POST', '/api/v1/send', { phone, body: 'by header' }, { headers });
    const again = await t.api('POST', '/api/v1/send', { phone, body: 'by header' }, { headers });
    expect(again.json()).toEqual(first.json());
    const log = await deviceLog(t, first.json().phone_line_id);
    expect(log.filter((e) => e.text === 'by header')).toHaveLength(1);
    const both = await t.api('POST', '/api/v1/send', { phone, body: 'by header', idempotency_key: 'other' }, { headers });
    expect(both.json()).toMatchObject({ status: 'failed', code: 1002 });
  });

  it('sends two racing first touches to a new recipient from one line, as one first touch', async () => {
    const phone = newRecipient();
    t.clock.advance(11 * 60_000);
    const [a, b] = await Promise.all([
      t.api('POST', '/api/v1/send', { phone, body: 'race one' }),
      t.api('POST', '/api/v1/send', { phone, body: 'race two' }),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(a.json().phone_line_id).toBe(b.json().phone_line_id);
    const firstTouches = (await Promise.all([a, b].map(async (r) => (await t.api('GET', `/api/v1/messages/${r.json().message_id}`)).json().message)));
    expect(firstTouches.map((m) => m.phone_line_id)).toEqual([a.json().phone_line_id, a.json().phone_line_id]);
    // The other line still has its first touch free: a new recipient goes out at once.
    expect((await t.api('POST', '/api/v1/send', { phone: newRecipient(), body: 'next' })).statusCode).toBe(200);
  });

  it('sends a voice note once, from its staging line, without moving the conversation', async () => {
    const phone = newRecipient();
    const first = (await firstTouch(t, { phone, body: 'hi there' })).json();
    const other = t.demo.phone_line_ids.find((id) => id !== first.phone_line_id)!;
    const wav = makeWav16Fast(24_000, 1, 24_000, sine(440, 24_000)).toString('base64');
    const staged = await t.api('POST', '/api/v1/voice-notes', { audio_base64: wav, mime_type: 'audio/wav', phone_line_id: other });
    expect(staged.statusCode, staged.body).toBe(200);
    const vn = staged.json();
    const voice = await t.api('POST', '/api/v1/send', { phone, phone_line_id: other, voice_note: { voice_note_id: vn.voice_note_id } });
    expect(voice.statusCode, voice.body).toBe(200);
    expect(voice.json().phone_line_id).toBe(other);
    // The send used the staged note up (staged → used for a send): it cannot go out twice.
    const twice = await t.api('POST', '/api/v1/send', { phone, phone_line_id: other, voice_note: { voice_note_id: vn.voice_note_id } });
    expect(twice.statusCode).toBe(404);
    expect(twice.json()).toMatchObject({ status: 'failed', code: 5001, reason: expect.stringContaining('already used') });
    expect((await deviceLog(t, other)).filter((e) => e.kind === 'voice_note')).toHaveLength(1);
    const next = await t.api('POST', '/api/v1/send', { phone, body: 'still on my line' });
    expect(next.json().phone_line_id).toBe(first.phone_line_id);
    expect((await deviceLog(t, first.phone_line_id)).find((e) => e.text === 'still on my line')).toBeTruthy();
  });
});

describe.each(STORE_KINDS)('idempotent sends racing on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
    await prepareSandbox(t);
  });
  afterAll(async () => t.close());

  it('turns 50 identical requests at once into one message, and every caller gets its answer', async () => {
    const phone = newRecipient();
    t.clock.advance(11 * 60_000);
    const request = { phone, body: 'exactly once', idempotency_key: `race-${kind}` };
    const responses = await Promise.all(Array.from({ length: 50 }, () => t.api('POST', '/api/v1/send', request)));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(50).fill(200));
    const ids = new Set(responses.map((r) => r.json().message_id));
    expect(ids.size).toBe(1);
    const sent = (await allDeviceLogs(t)).filter((e) => e.text === 'exactly once');
    expect(sent).toHaveLength(1);
  });

  it('sends once when identical requests race and the line refuses it retryably: every caller gets that failure', async () => {
    // A 4001 records nothing (a retry may send again), but the requests racing with the first are
    // not retries: they used to claim the freed key and send again, one more failed message each.
    t.clock.advance(11 * 60_000);
    const request = { phone: SIMULATOR_RECIPIENTS.unreachable, body: 'refused once', idempotency_key: `race-fail-${kind}` };
    const responses = await Promise.all(Array.from({ length: 10 }, () => t.api('POST', '/api/v1/send', request)));
    expect(responses.map((r) => [r.statusCode, r.json().code])).toEqual(Array(10).fill([502, 4001]));
    expect(new Set(responses.map((r) => r.body)).size).toBe(1);
    const history = (await t.api('GET', `/api/v1/chats/${responses[0]!.json().chat_id}/messages`)).json().messages;
    expect(history.filter((m: { parts: { value?: string }[] }) => m.parts[0]?.value === 'refused once')).toHaveLength(1);
    // Nothing was recorded: the client's own retry under the key is sent (and refused) again.
    t.clock.advance(11 * 60_000);
    const retry = await t.api('POST', '/api/v1/send', request);
    expect(retry.json()).toMatchObject({ status: 'failed', code: 4001, retryable: true });
    const after = (await t.api('GET', `/api/v1/chats/${responses[0]!.json().chat_id}/messages`)).json().messages;
    expect(after.filter((m: { parts: { value?: string }[] }) => m.parts[0]?.value === 'refused once')).toHaveLength(2);
  });
});
