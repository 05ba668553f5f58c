/**
 * A message its line accepted (`sent`) and then reported failed (Messages could not deliver it;
 * the simulator's +15005550008 does what a BlueBubbles `message-send-error` does): its lookup says
 * `failed` with 4001 (its idempotency key still replays the `sent` answer: a retry takes a new key), a staged voice note in
 * it can be sent again, the first touch it was no longer uses the daily cap and its chat is free to
 * choose a line afresh, and operators see it counted. A message already delivered stays delivered.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { deviceLog, eventually, firstTouch, moveToNextNoonUtc, newRecipient, prepareSandbox, uploadedImage, FIRST_TOUCH_GAP_MS } from '../support/messaging.js';
import { sample } from '../support/metrics-text.js';
import { STORE_KINDS } from '../support/stores.js';
import { SIMULATOR_RECIPIENTS } from '../../src/drivers/simulator/reserved.js';
import { makeWav16Fast, sine } from '../audio/fixtures.js';

const FAILS = SIMULATOR_RECIPIENTS.failsAfterSend;
const TOKEN = `metrics-${randomBytes(12).toString('hex')}`;

describe.each(STORE_KINDS)('a message its line fails after accepting it (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind, { METRICS_TOKEN: TOKEN });
    await prepareSandbox(t);
  });
  afterAll(async () => t?.close());

  const lookup = async (id: string) => (await t.api('GET', `/api/v1/messages/${id}`)).json().message as { status: string; error_code?: number };
  const failedLater = (id: string) => eventually(() => lookup(id), (m) => m.status === 'failed');
  const scrape = async () => (await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body;
  const sentTo = async (phone: string) => (await Promise.all(t.demo.phone_line_ids.map((id) => deviceLog(t, id)))).flat().filter((e) => e.to === phone);

  it('is failed with 4001 and counted; its key replays the answer, and a retry under a new key sends it again', async () => {
    const before = await scrape();
    const key = `late-${randomBytes(6).toString('hex')}`;
    const first = await firstTouch(t, { phone: FAILS, body: 'will fail later', idempotency_key: key });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ status: 'sent' });
    expect(await failedLater(first.json().message_id)).toMatchObject({ status: 'failed', error_code: 4001 });
    const history = (await t.api('GET', `/api/v1/chats/${first.json().chat_id}/messages`)).json().messages as { id: string }[];
    expect(history.find((m) => m.id === first.json().message_id)).toMatchObject({ status: 'failed', error_code: 4001 });
    const after = await scrape();
    expect(sample(after, 'blueline_messages_failed_after_send_total') - sample(before, 'blueline_messages_failed_after_send_total')).toBe(1);
    // Its chat pins no line any more: the retry is a first touch again (past the line's gap).
    const tenant = (await t.testStore.store.tenants.getBySlug('demo'))!;
    expect((await t.testStore.store.chats.getChat(tenant.id, first.json().chat_id))?.line_id).toBeNull();
    // The same key replays the request's answer (it was answered `sent`) and sends nothing; a new key sends.
    const replayed = await firstTouch(t, { phone: FAILS, body: 'will fail later', idempotency_key: key });
    expect(replayed.json()).toMatchObject({ status: 'sent', message_id: first.json().message_id });
    expect((await sentTo(FAILS)).filter((e) => e.text === 'will fail later')).toHaveLength(1);
    const retry = await t.api('POST', '/api/v1/send', { phone: FAILS, body: 'will fail later', idempotency_key: `${key}-retry` });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json().message_id).not.toBe(first.json().message_id);
    expect((await sentTo(FAILS)).filter((e) => e.text === 'will fail later')).toHaveLength(2);
    // Settled before the next test: the tests share this contact's chat, and a message of it still
    // live keeps the chat pinned when another test's messages fail (a flake under load).
    await failedLater(retry.json().message_id);
  });

  it("gives a staged voice note back, so it can be sent again while it is valid", async () => {
    t.clock.advance(FIRST_TOUCH_GAP_MS + 1_000);
    const staged = await t.api('POST', '/api/v1/voice-notes', { audio_base64: makeWav16Fast(44_100, 1, 44_100, sine(440, 44_100)).toString('base64'), mime_type: 'audio/wav' });
    expect(staged.statusCode, staged.body).toBe(200);
    const { voice_note_id, phone_line_id } = staged.json();
    const send = () => t.api('POST', '/api/v1/send', { phone: FAILS, phone_line_id, voice_note: { voice_note_id } });
    const first = await send();
    expect(first.statusCode, first.body).toBe(200);
    await failedLater(first.json().message_id);
    t.clock.advance(FIRST_TOUCH_GAP_MS + 1_000);
    const again = await send();
    expect(again.statusCode, again.body).toBe(200);
    expect((await deviceLog(t, phone_line_id)).filter((e) => e.kind === 'voice_note' && e.to === FAILS)).toHaveLength(2);
    await failedLater(again.json().message_id);
  });

  it("no longer uses the project's daily first-touch cap", async () => {
    moveToNextNoonUtc(t.clock);
    const { tenant } = (await t.admin('GET', '/admin/v1/tenants/demo')).json();
    expect((await t.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: 1 })).statusCode).toBe(200);
    try {
      const failing = await firstTouch(t, { phone: FAILS, body: 'the only first touch of the day, failed later' });
      expect(failing.statusCode, failing.body).toBe(200);
      await failedLater(failing.json().message_id);
      const next = await firstTouch(t, { phone: newRecipient(), body: 'the cap is free again' });
      expect(next.statusCode, next.body).toBe(200);
      const over = await firstTouch(t, { phone: newRecipient(), body: 'now it is used' });
      expect(over.json()).toMatchObject({ status: 'failed', code: 4002 });
      expect(over.json().reason).toMatch(/daily cap reached/);
    } finally {
      await t.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: tenant.daily_first_touch_cap });
    }
  });

  it('a first touch of several bubbles: once every one failed, the chat pins no line, and none takes a tapback', async () => {
    const photo = await uploadedImage(t, 'menu.png');
    const sent = await firstTouch(t, { phone: FAILS, body: 'text and a photo', attachments: [photo] });
    expect(sent.statusCode, sent.body).toBe(200);
    const ids = sent.json().message_ids as string[];
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(await failedLater(id)).toMatchObject({ status: 'failed', error_code: 4001 });
    const tenant = (await t.testStore.store.tenants.getBySlug('demo'))!;
    expect((await t.testStore.store.chats.getChat(tenant.id, sent.json().chat_id))?.line_id).toBeNull();
    const react = await t.api('POST', `/api/v1/messages/${ids[0]}/react`, { reaction: 'love' });
    expect(react.statusCode).toBe(502);
    expect(react.json().error).toMatchObject({ code: 4001 });
    expect((await sentTo(FAILS)).some((e) => e.kind === 'reaction')).toBe(false);
  });

  it('bubbles of one first touch failed at the same moment still leave the chat pinning no line', async () => {
    const tenant = (await t.testStore.store.tenants.getBySlug('demo'))!;
    for (let round = 0; round < 5; round++) {
      t.clock.advance(FIRST_TOUCH_GAP_MS);
      // Never delivered, so nothing outranks the failures; each bubble failed in its own transaction, at once.
      const photos = [await uploadedImage(t, 'a.png'), await uploadedImage(t, 'b.png')];
      const sent = await firstTouch(t, { phone: SIMULATOR_RECIPIENTS.undelivered, body: `round ${round}`, attachments: photos });
      expect(sent.statusCode, sent.body).toBe(200);
      const guids = (await deviceLog(t, sent.json().phone_line_id)).slice(0, 3).map((e) => e.guid as string);
      const failed = await Promise.all(guids.map((g) => t.services.events.sendFailed(sent.json().phone_line_id, g)));
      expect(failed).toEqual([true, true, true]);
      expect((await t.testStore.store.chats.getChat(tenant.id, sent.json().chat_id))?.line_id, `round ${round}`).toBeNull();
    }
  });

  it('an edit made before the failure arrived does not hide it', async () => {
    for (const id of t.demo.phone_line_ids) await t.admin('PATCH', `/admin/v1/lines/${id}`, { driver_config: { receipt_delay_ms: 1_500 } });
    try {
      const sent = await firstTouch(t, { phone: FAILS, body: 'edited before it failed' });
      expect(sent.statusCode, sent.body).toBe(200);
      const edit = await t.api('POST', `/api/v1/messages/${sent.json().message_id}/edit`, { new_text: 'edited, then failed', edited_part_index: 0 });
      expect(edit.statusCode, edit.body).toBe(200);
      expect(await failedLater(sent.json().message_id)).toMatchObject({ status: 'failed', error_code: 4001 });
    } finally {
      await prepareSandbox(t);
    }
  });

  it('leaves a message the line delivered as it is', async () => {
    const phone = newRecipient();
    const sent = await firstTouch(t, { phone, body: 'this one arrives' });
    expect(sent.statusCode, sent.body).toBe(200);
    await eventually(() => lookup(sent.json().message_id), (m) => m.status === 'read');
    const [entry] = await sentTo(phone);
    expect(await t.services.events.sendFailed(sent.json().phone_line_id, entry!.guid as string)).toBe(false);
    expect(await lookup(sent.json().message_id)).toMatchObject({ status: 'read' });
  });
});
