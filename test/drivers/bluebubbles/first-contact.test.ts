/**
 * A first message to a person the Mac has never messaged, on a Private API line. The helper sends
 * only into a chat Messages has (else 500 "Chat does not exist in IMChatRegistry!"), so the text
 * starts the chat through /chat/new, and everything after goes into the chat BlueBubbles named —
 * here `any;-;+1…`, as newer macOS names them, never the `iMessage;-;+1…` a driver could guess.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bluebubblesDriver, handleBlueBubblesWebhook, type BlueBubblesLineDriver } from '../../../src/drivers/bluebubbles/index.js';
import { CAF, PNG, PNG2, context, file, failure } from './helpers.js';
import { StandIn } from './standin.js';
import { appWithBlueBubblesLine } from '../../support/bluebubbles-line.js';
import type { TestApp } from '../../support/app.js';
import { uploadedImage } from '../../support/messaging.js';
import { makeWav16Fast, sine } from '../../audio/fixtures.js';

let n = 0;
/** A person this Mac has no chat with. */
const stranger = () => ({ kind: 'direct' as const, handle: `+1415555${String(300 + n++).padStart(4, '0')}` });

describe('BlueBubbles driver: a first message to a new person over the Private API', () => {
  let bb: StandIn;
  let ctx: ReturnType<typeof context>;
  let driver: BlueBubblesLineDriver;
  beforeAll(async () => {
    bb = await new StandIn().start();
    bb.directChatService = 'any';
  });
  afterAll(() => bb.stop());
  beforeEach(async () => {
    bb.privateApi = true;
    bb.requests = [];
    ctx = context(bb.config());
    driver = bluebubblesDriver(ctx);
    await driver.refresh();
  });

  const chatOf = (guid: string) => bb.messages.get(guid)?.chatGuid;

  it('starts the chat with /chat/new carrying the text, and sends what follows into the chat BlueBubbles named', async () => {
    const to = stranger();
    const { guid } = await driver.sendText(to, 'Hi Sam, Alex from Acme', { ref: 'msg_first' });
    expect(bb.lastTo('POST', '/api/v1/chat/new').json).toEqual({
      addresses: [to.handle], message: 'Hi Sam, Alex from Acme', method: 'private-api', service: 'iMessage', tempGuid: 'temp-msg_first',
    });
    expect(bb.messages.get(guid)).toMatchObject({ text: 'Hi Sam, Alex from Acme', isFromMe: true });
    expect(chatOf(guid)).toBe(`any;-;${to.handle}`);

    bb.requests = [];
    const media = await driver.sendMedia(to, [file('plan.png', 'image/png', PNG)], { grouped: false });
    const grouped = await driver.sendMedia(to, [file('a.png', 'image/png', PNG), file('b.png', 'image/png', PNG2)], { grouped: true });
    const voice = await driver.sendVoiceNote(to, file('vn_1.caf', 'audio/x-caf', CAF));
    const again = await driver.sendText(to, 'Following up');
    for (const g of [media.guids[0]!, grouped.guids[0]!, voice.guid, again.guid]) expect(chatOf(g)).toBe(`any;-;${to.handle}`);
    expect(bb.requestsTo('POST', '/api/v1/message/attachment').map((r) => [r.fields!.chatGuid, r.fields!.method])).toEqual([
      [`any;-;${to.handle}`, 'private-api'],
      [`any;-;${to.handle}`, 'private-api'],
    ]);
    expect(bb.lastTo('POST', '/api/v1/message/multipart').json.chatGuid).toBe(`any;-;${to.handle}`);
    expect(bb.requestsTo('POST', '/api/v1/chat/new')).toEqual([]);

    // Another process (another driver on the same database) knows the chat too.
    const other = bluebubblesDriver({ ...ctx });
    await other.sendText(to, 'From another process');
    expect(bb.lastTo('POST', '/api/v1/message/text').json.chatGuid).toBe(`any;-;${to.handle}`);
    expect(bb.requestsTo('POST', '/api/v1/chat/new')).toEqual([]);
  });

  it("carries the first text's effect with /chat/new", async () => {
    const to = stranger();
    await driver.sendText(to, 'Welcome!', { effect: 'com.apple.messages.effect.CKConfettiEffect' });
    expect(bb.lastTo('POST', '/api/v1/chat/new').json).toMatchObject({ message: 'Welcome!', effectId: 'com.apple.messages.effect.CKConfettiEffect' });
  });

  it('sends a first file by AppleScript, which reaches the person without a chat, and refuses a first voice note: a text must come first', async () => {
    const to = stranger();
    const { guids } = await driver.sendMedia(to, [file('menu.png', 'image/png', PNG)], { grouped: false });
    expect(bb.requestsTo('POST', '/api/v1/message/attachment').map((r) => r.fields!.method)).toEqual(['private-api', 'apple-script']);
    expect(chatOf(guids[0]!)).toBe(`any;-;${to.handle}`);
    // Its answer named the chat: the next file goes over the Private API into it.
    await driver.sendMedia(to, [file('menu2.png', 'image/png', PNG2)], { grouped: false });
    expect(bb.lastTo('POST', '/api/v1/message/attachment').fields).toMatchObject({ chatGuid: `any;-;${to.handle}`, method: 'private-api' });

    const grouped = stranger();
    const sent = await driver.sendMedia(grouped, [file('a.png', 'image/png', PNG), file('b.png', 'image/png', PNG2)], { grouped: true });
    expect(sent.guids).toHaveLength(2);
    expect(sent.guids.map(chatOf)).toEqual([`any;-;${grouped.handle}`, `any;-;${grouped.handle}`]);

    const voice = stranger();
    const before = bb.messages.size;
    const f = await failure(driver.sendVoiceNote(voice, file('vn_2.caf', 'audio/x-caf', CAF)));
    expect(f.kind).toBe('unsupported');
    expect(f.message).toMatch(/send a text first/);
    expect(bb.messages.size).toBe(before);
    // Not a sign the Private API is off.
    expect(driver.capabilities().has('voice_notes')).toBe(true);
  });

  it('keeps the chat a send by AppleScript was answered in', async () => {
    bb.privateApi = false;
    const noPa = bluebubblesDriver(ctx);
    await noPa.refresh();
    const to = stranger();
    await noPa.sendText(to, 'Hello by AppleScript');
    bb.privateApi = true;
    await driver.refresh();
    await driver.sendVoiceNote(to, file('vn_3.caf', 'audio/x-caf', CAF));
    expect(bb.lastTo('POST', '/api/v1/message/attachment').fields).toMatchObject({ chatGuid: `any;-;${to.handle}`, method: 'private-api' });
  });

  it('replies into the chat a person wrote from (an SMS contact), learnt from their message', async () => {
    const to = stranger();
    const incoming = bb.addIncoming({ from: to.handle, text: 'Is this Acme?', chat: bb.directChat(to.handle, 'SMS') });
    expect(await handleBlueBubblesWebhook(ctx, ctx.lineId, bb.webhookEvent('new-message', incoming.guid))).toMatchObject({ handled: 'inbound' });
    const { guid } = await driver.sendVoiceNote(to, file('vn_4.caf', 'audio/x-caf', CAF));
    expect(chatOf(guid)).toBe(`SMS;-;${to.handle}`);
    expect(bb.lastTo('POST', '/api/v1/message/attachment').fields).toMatchObject({ chatGuid: `SMS;-;${to.handle}`, method: 'private-api' });
  });

  it('finds a lost first send in the chat the Mac named, never the same text sent to someone else', async () => {
    const [to, other] = [stranger(), stranger()];
    const since = Date.now();
    const { guid } = await driver.sendText(to, 'Hello from Acme', { ref: 'msg_lost' });
    await driver.sendText(other, 'Hello from Acme');
    const probe = { target: to, recordedAt: since, texts: ['Hello from Acme'], filenames: [], isClaimed: async () => false };
    expect(await driver.lookupSend('msg_lost', probe)).toEqual({ state: 'sent', guid });
    expect(await driver.lookupSend('msg_lost', { ...probe, isClaimed: async (g: string) => g === guid })).toEqual({ state: 'not_sent' });
  });

  it('a chat started for a first message Messages did not deliver: unreachable (/chat/new answers 200 with it)', async () => {
    const to = stranger();
    bb.notDelivered.add(to.handle);
    expect((await failure(driver.sendText(to, 'Hello?'))).kind).toBe('unreachable');
    expect(bb.requestsTo('POST', '/api/v1/chat/new')).toHaveLength(1);
  });
});

describe('a BlueBubbles line with the Private API: first touch to a new contact', () => {
  let t: TestApp;
  let bb: StandIn;
  let lineId: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ t, bb, lineId, close } = await appWithBlueBubblesLine());
    bb.directChatService = 'any';
  });
  afterAll(async () => close());

  const stored = async (id: string) => t.testStore.store.messages.get((await t.testStore.store.lines.get(lineId))!.tenant_id, id);
  const onMac = (phone: string) => [...bb.messages.values()].filter((m) => m.isFromMe && m.chatGuid === `any;-;${phone}`);

  it("a first text with a photo goes out, each recorded sent under the Mac's guid; the next message goes into the same chat", async () => {
    const phone = '+14155550731';
    const res = await t.api('POST', '/api/v1/send', { phone, body: 'Hi, Alex from Acme here', attachments: [await uploadedImage(t, 'brochure.png')], phone_line_id: lineId });
    expect(res.statusCode, res.body).toBe(200);
    const [textId, photoId] = res.json().message_ids as string[];
    const [text, photo] = onMac(phone);
    expect(text!.text).toBe('Hi, Alex from Acme here');
    expect(bb.attachments.get(photo!.attachments[0]!)!.transferName).toBe('brochure.png');
    expect(await stored(textId!)).toMatchObject({ status: 'sent', provider_guid: text!.guid });
    expect(await stored(photoId!)).toMatchObject({ status: 'sent', provider_guid: photo!.guid });

    const later = await t.api('POST', '/api/v1/send', { phone, body: 'Did you get a chance to look?' });
    expect(later.statusCode, later.body).toBe(200);
    expect(bb.lastTo('POST', '/api/v1/message/text').json.chatGuid).toBe(`any;-;${phone}`);
    expect(bb.requestsTo('POST', '/api/v1/chat/new')).toHaveLength(1);
    expect(onMac(phone)).toHaveLength(3);
  });

  it('a first voice note is refused (4099: send a text first) and sends nothing; after a text it goes out', async () => {
    const phone = '+14155550732';
    t.clock.advance(11 * 60_000); // past the line's first-touch gap
    const staged = await t.api('POST', '/api/v1/voice-notes', { audio_base64: makeWav16Fast(24_000, 1, 24_000, sine(440, 24_000)).toString('base64'), mime_type: 'audio/wav', phone_line_id: lineId });
    expect(staged.statusCode, staged.body).toBe(200);
    const voiceNote = { voice_note_id: staged.json().voice_note_id };
    const refused = await t.api('POST', '/api/v1/send', { phone, phone_line_id: lineId, voice_note: voiceNote });
    expect(refused.statusCode, refused.body).toBe(501);
    expect(refused.json()).toMatchObject({ code: 4099, retryable: false, reason: expect.stringMatching(/send a text first/) });
    expect(onMac(phone)).toEqual([]);

    t.clock.advance(11 * 60_000); // the refused first touch took the line's slot
    const hello = await t.api('POST', '/api/v1/send', { phone, body: 'Hi, a quick voice note for you', phone_line_id: lineId });
    expect(hello.statusCode, hello.body).toBe(200);
    const sent = await t.api('POST', '/api/v1/send', { phone, phone_line_id: lineId, voice_note: voiceNote });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(onMac(phone).map((m) => m.isAudioMessage)).toEqual([false, true]);
  });
});

describe('a BlueBubbles line with the Private API: a first touch whose answer never came', () => {
  let t: TestApp;
  let bb: StandIn;
  let lineId: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ t, bb, lineId, close } = await appWithBlueBubblesLine({ timeout_ms: 300 }));
    bb.directChatService = 'any';
  });
  afterAll(async () => close());

  const stored = async (id: string) => t.testStore.store.messages.get((await t.testStore.store.lines.get(lineId))!.tenant_id, id);
  const onMac = (phone: string) => [...bb.messages.values()].filter((m) => m.isFromMe && m.chatGuid === `any;-;${phone}`);
  /**
   * A first touch whose /chat/new is held (`what`): 503 / 3002 and `sending`, settled once past the
   * line's window. The line's first one: moving the clock past its first-touch gap before the send
   * would put the send after the Mac's messages (they are dated by the real clock).
   */
  async function interrupted(phone: string, what: Parameters<StandIn['inject']>[1], line = lineId) {
    bb.inject('POST /api/v1/chat/new', what);
    const res = await t.api('POST', '/api/v1/send', { phone, body: 'Hi, Alex from Acme here', phone_line_id: line });
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toMatchObject({ code: 3002 });
    const id = res.json().message_id as string;
    expect(await stored(id)).toMatchObject({ status: 'sending' });
    t.clock.advance(60_000);
    await t.services.sendReconciler.sweep();
    return id;
  }

  it("went out: settled `sent` under the Mac's guid, and the next message goes into that chat", async () => {
    const phone = '+14155550741';
    const id = await interrupted(phone, { storeThenHangMs: 3_000 });
    const [first] = onMac(phone);
    expect(await stored(id)).toMatchObject({ status: 'sent', provider_guid: first!.guid });
    const next = await t.api('POST', '/api/v1/send', { phone, body: 'Following up' });
    expect(next.statusCode, next.body).toBe(200);
    expect(onMac(phone).map((m) => m.text)).toEqual(['Hi, Alex from Acme here', 'Following up']);
  });

  it('did not go out: settled `failed`', async () => {
    // Another line on the Mac, whose first touch this is.
    const other = await t.admin('POST', '/admin/v1/lines', { tenant: 'demo', phone_number: '+14155550651', driver: 'bluebubbles', driver_config: bb.config({ timeout_ms: 300 }) });
    expect(other.statusCode, other.body).toBe(201);
    const phone = '+14155550742';
    const id = await interrupted(phone, { hangMs: 3_000 }, other.json().phone_line.id);
    expect(await stored(id)).toMatchObject({ status: 'failed', error_code: 4001 });
    expect(onMac(phone)).toEqual([]);
  });
});
