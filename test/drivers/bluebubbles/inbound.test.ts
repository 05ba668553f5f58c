/**
 * Inbound end to end: the stand-in BlueBubbles Server posts its webhooks to
 * the real route on a real fastify instance; a collector stands in for the
 * domain's DriverEvents.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  bluebubblesDriver,
  handleBlueBubblesWebhook,
  registerWebhook,
  webhookTokenFor,
  webhookUrlFor,
  type WebhookOutcome,
} from '../../../src/drivers/bluebubbles/index.js';
import type { DriverContext } from '../../../src/drivers/types.js';
import { bluebubblesWebhookRoute } from '../../../src/http/routes/hooks/bluebubbles.js';
import type { TypedApp } from '../../../src/http/typed.js';
import { CAF, PNG, collector, memoryState, waitFor, type Collector } from './helpers.js';
import { StandIn } from './standin.js';

const SENDER = '+14155550123';

describe('BlueBubbles inbound webhooks', () => {
  let bb: StandIn;
  let app: TypedApp;
  let base: string;
  const secret = randomBytes(32);
  const lines = new Map<string, { id: string; driver_config: Record<string, unknown> }>();
  let events: Collector;
  let lineId: string;
  let hookUrl: string;
  let ctx: DriverContext;
  const outcomes: WebhookOutcome[] = [];
  const errors: unknown[] = [];
  const state = memoryState();

  beforeAll(async () => {
    bb = await new StandIn().start();
    app = Fastify().withTypeProvider<TypeBoxTypeProvider>();
    bluebubblesWebhookRoute(app, {
      secret,
      resolveLine: async (id) => lines.get(id),
      // The service stores the body (src/intake); here it is processed right after the answer.
      accept: async (line, body) => {
        const lineCtx = { lineId: line.id, phoneNumber: '+14155550000', config: line.driver_config, events, state, now: () => Date.now() };
        setImmediate(() => void handleBlueBubblesWebhook(lineCtx, line.id, body).then((o) => outcomes.push(o), (err: unknown) => errors.push(err)));
      },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
    await bb.stop();
  });
  beforeEach(() => {
    events = collector();
    lineId = randomUUID();
    lines.set(lineId, { id: lineId, driver_config: bb.config() });
    hookUrl = webhookUrlFor(base, secret, lineId);
    ctx = { lineId, phoneNumber: '+14155550000', config: bb.config(), events, state, now: () => Date.now() };
    bb.requests = [];
    outcomes.length = 0;
    errors.length = 0;
    bb.omitGuidInSendAnswers = false;
  });

  it('registers the per-line URL for the events BlueBubbles accepts, once', async () => {
    expect(hookUrl).toBe(`${base}/hooks/bluebubbles/${lineId}/${webhookTokenFor(secret, lineId)}`);
    expect(webhookTokenFor(secret, lineId)).toMatch(/^[0-9a-f]{64}$/);
    const first = await registerWebhook(ctx, hookUrl);
    expect(first).toMatchObject({ url: hookUrl, events: ['new-message', 'updated-message', 'message-send-error'], created: true, removed: [] });
    expect(bb.lastTo('POST', '/api/v1/webhook').json).toEqual({ url: hookUrl, events: ['new-message', 'updated-message', 'message-send-error'] });
    expect(bb.lastTo('POST', '/api/v1/webhook').query).toEqual({ password: bb.password });
    const again = await registerWebhook(ctx, hookUrl);
    expect(again).toMatchObject({ id: first.id, created: false });
    expect(bb.webhooks.filter((w) => w.url === hookUrl)).toHaveLength(1);
    // A new public address replaces the line's old registration.
    const moved = webhookUrlFor('https://blueline.example.com', secret, lineId);
    const third = await registerWebhook(ctx, moved);
    expect(third).toMatchObject({ created: true, removed: [first.id] });
    expect(bb.webhooks.filter((w) => w.url.includes(lineId)).map((w) => w.url)).toEqual([moved]);
  });

  it('turns a trimmed new-message into one InboundMessage with its media downloaded as original bytes', async () => {
    const image = bb.addAttachment({ bytes: PNG, mimeType: 'image/png', transferName: 'IMG_0001.png', uti: 'public.png' });
    const memo = bb.addAttachment({ bytes: CAF, mimeType: 'audio/x-caf', transferName: 'Audio Message.caf', uti: 'com.apple.coreaudio-format' });
    const preview = bb.addAttachment({ bytes: Buffer.from('link-preview'), mimeType: 'image/png', transferName: 'preview.png', hide: true });
    const msg = bb.addIncoming({ from: SENDER, text: 'Look \uFFFC and listen \uFFFC', attachments: [image, memo, preview], isAudioMessage: true });
    const event = bb.webhookEvent('new-message', msg.guid);
    expect('isAudioMessage' in event.data).toBe(false); // trimmed, as BlueBubbles sends it

    const res = await bb.post(hookUrl, event);
    expect(res.status).toBe(200);
    const [got] = await waitFor(() => events.inbound_.length === 1 && events.inbound_);
    expect(got!.lineId).toBe(lineId);
    expect(got!.message).toEqual({
      guid: msg.guid,
      from: SENDER,
      sentAt: msg.dateCreated,
      parts: [
        { type: 'text', value: 'Look' },
        { type: 'media', filename: 'IMG_0001.png', mimeType: 'image/png', bytes: PNG },
        { type: 'text', value: 'and listen' },
        { type: 'media', filename: 'Audio Message.caf', mimeType: 'audio/x-caf', bytes: CAF },
      ],
    });
    // BlueBubbles strips the U+FFFC placeholders from `text`: the order comes from the attributedBody.
    expect(bb.lastTo('GET', `/api/v1/message/${msg.guid}`).query).toEqual({ with: 'chats,attachment,attributedBody', password: bb.password });
    expect(bb.lastTo('GET', `/api/v1/attachment/${memo}/download`).query).toEqual({ original: 'true', force: 'false', password: bb.password });
    expect(bb.requestsTo('GET', `/api/v1/attachment/${preview}/download`)).toEqual([]);
  });

  it('reports a group message with the chat key, members and name, even when the webhook dropped the members', async () => {
    const group = bb.groupChat([SENDER, '+14155550124', 'Friend@iCloud.com'], 'Weekend plans');
    const long = bb.addIncoming({ from: SENDER, text: 'x'.repeat(4100), chat: group });
    const event = bb.webhookEvent('new-message', long.guid);
    expect((event.data.chats as { participants: unknown[] }[])[0]!.participants).toEqual([]); // over 4000 bytes
    await bb.post(hookUrl, event);
    const [got] = await waitFor(() => events.inbound_.length === 1 && events.inbound_);
    expect(got!.message.group).toEqual({ chatKey: group.guid, handles: [SENDER, '+14155550124', 'friend@icloud.com'], displayName: 'Weekend plans' });
    expect(got!.message.parts).toEqual([{ type: 'text', value: 'x'.repeat(4100) }]);
  });

  it('refuses a wrong token with 401 and processes nothing', async () => {
    const msg = bb.addIncoming({ from: SENDER, text: 'hi' });
    const event = bb.webhookEvent('new-message', msg.guid);
    const other = randomUUID();
    for (const url of [
      `${base}/hooks/bluebubbles/${lineId}/${'0'.repeat(64)}`,
      `${base}/hooks/bluebubbles/${lineId}/short`,
      `${base}/hooks/bluebubbles/${lineId}/${webhookTokenFor(secret, other)}`,
      `${base}/hooks/bluebubbles/${lineId}/${webhookTokenFor(randomBytes(32), lineId)}`,
    ]) {
      expect((await bb.post(url, event)).status).toBe(401);
    }
    expect((await bb.post(webhookUrlFor(base, secret, other), event)).status).toBe(404); // valid token, unknown line
    await new Promise((r) => setTimeout(r, 50));
    expect(events.inbound_).toEqual([]);
    // Nothing asked BlueBubbles for the message. (Only its API counts: the stand-in listens on a
    // loopback port that another test file's readiness poll, on a port it chose and lost, can reach.)
    expect(bb.requests.filter((r) => r.path.startsWith('/api/'))).toEqual([]);
  });

  it('reports a repeated webhook once and fetches the message once', async () => {
    const msg = bb.addIncoming({ from: SENDER, text: 'only once' });
    const event = bb.webhookEvent('new-message', msg.guid);
    const answers = await Promise.all([bb.post(hookUrl, event), bb.post(hookUrl, event), bb.post(hookUrl, event)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    await waitFor(() => outcomes.length === 3);
    expect((await bb.post(hookUrl, event)).status).toBe(200);
    await waitFor(() => outcomes.length === 4);
    expect(events.inbound_).toHaveLength(1);
    expect(bb.requestsTo('GET', `/api/v1/message/${msg.guid}`)).toHaveLength(1);
    expect(outcomes.filter((o) => o.handled === 'duplicate')).toHaveLength(3);
  });

  it('turns updated-message for our own sends into delivered and read receipts, once each', async () => {
    const driver = bluebubblesDriver(ctx);
    const { guid } = await driver.sendText({ kind: 'direct', handle: SENDER }, 'ping');
    const deliveredAt = Date.now() - 2000;
    bb.markDelivered(guid, deliveredAt);
    await bb.post(hookUrl, bb.webhookEvent('updated-message', guid));
    await waitFor(() => events.receipts.length === 1);
    expect(events.receipts).toEqual([{ lineId, guid, kind: 'delivered', atMs: deliveredAt }]);
    const readAt = Date.now();
    bb.markRead(guid, readAt);
    await bb.post(hookUrl, bb.webhookEvent('updated-message', guid));
    await bb.post(hookUrl, bb.webhookEvent('updated-message', guid));
    await waitFor(() => outcomes.length === 3);
    expect(events.receipts).toEqual([
      { lineId, guid, kind: 'delivered', atMs: deliveredAt },
      { lineId, guid, kind: 'read', atMs: readAt },
    ]);
  });

  it('reports a send Messages failed after BlueBubbles answered it (message-send-error, or our message stored with an error) as failed, once', async () => {
    const driver = bluebubblesDriver(ctx);
    const { guid } = await driver.sendText({ kind: 'direct', handle: SENDER }, 'will fail later');
    events.failable.add(guid);
    const failed = bb.failSent(guid, 4);
    expect(failed.data).toMatchObject({ guid, isFromMe: true, error: 4 });
    await bb.post(hookUrl, failed);
    await bb.post(hookUrl, failed);
    await waitFor(() => outcomes.length === 2);
    expect(outcomes).toEqual([{ handled: 'send_error', guid, failed: true, code: 4 }, { handled: 'duplicate', guid }]);
    expect(events.failures).toEqual([{ lineId, guid }]);
    // Known to the service only by the tempGuid its answer carried: found by that.
    bb.omitGuidInSendAnswers = true;
    const { guid: provisional } = await driver.sendText({ kind: 'direct', handle: SENDER }, 'answered by tempGuid, failed later');
    events.failable.add(provisional);
    const real = [...bb.messages.values()].find((m) => m.text === 'answered by tempGuid, failed later')!.guid;
    await bb.post(hookUrl, bb.failSent(real, 22, provisional));
    await waitFor(() => outcomes.length === 3);
    expect(outcomes[2]).toEqual({ handled: 'send_error', guid: real, failed: true, code: 22 });
    expect(events.failures.slice(1)).toEqual([{ lineId, guid: real }, { lineId, guid: provisional }]);
    // A new-message of ours stored with an error (catch-up reports messages so) says the same.
    bb.omitGuidInSendAnswers = false;
    const { guid: third } = await driver.sendText({ kind: 'direct', handle: SENDER }, 'seen with its error');
    bb.messages.get(third)!.error = 22;
    expect(await handleBlueBubblesWebhook(ctx, lineId, bb.webhookEvent('new-message', third))).toEqual({ handled: 'send_error', guid: third, failed: false, code: 22 });
    expect(events.failures.at(-1)).toEqual({ lineId, guid: third });
    // Someone else's message with an error is not ours to fail.
    const theirs = bb.addIncoming({ from: SENDER, text: 'not ours' });
    const event = { type: 'message-send-error', data: { ...bb.webhookEvent('updated-message', theirs.guid).data, error: 22 } };
    expect(await handleBlueBubblesWebhook(ctx, lineId, event)).toEqual({ handled: 'ignored', reason: 'send error for a message we did not send' });
    expect(events.inbound_).toEqual([]);
  });

  it('reports an unsend by the sender as no edit (text emptied, null, or a dateRetracted); a real edit still is one', async () => {
    const msg = bb.addIncoming({ from: SENDER, text: 'Call me \uFFFC', attachments: [bb.addAttachment({ bytes: PNG, mimeType: 'image/png', transferName: 'a.png' })] });
    bb.unsend(msg.guid, 0); // the text part: the webhook's text is '' (only the photo's U+FFFC was left)
    await bb.post(hookUrl, bb.webhookEvent('updated-message', msg.guid));
    bb.unsend(msg.guid, 0); // then the photo: text null
    await bb.post(hookUrl, bb.webhookEvent('updated-message', msg.guid));
    const other = bb.addIncoming({ from: SENDER, text: 'Meet at 5' });
    const retracted = bb.webhookEvent('updated-message', other.guid);
    await bb.post(hookUrl, { ...retracted, data: { ...retracted.data, dateEdited: Date.now(), dateRetracted: Date.now() } });
    await waitFor(() => outcomes.length === 3);
    expect(outcomes).toEqual(Array(3).fill({ handled: 'ignored', reason: 'unsent by its sender: the recorded text is kept' }));
    const edited = bb.messages.get(other.guid)!;
    edited.text = 'Meet at 6';
    edited.dateEdited = Date.now();
    await bb.post(hookUrl, bb.webhookEvent('updated-message', other.guid));
    await waitFor(() => events.edits.length === 1);
    expect(events.edits).toEqual([{ lineId, guid: other.guid, text: 'Meet at 6', atMs: edited.dateEdited }]);
  });

  it('reports the real guid of a send whose answer carried only our tempGuid', async () => {
    bb.omitGuidInSendAnswers = true;
    const driver = bluebubblesDriver(ctx);
    const { guid: reported } = await driver.sendText({ kind: 'direct', handle: SENDER }, 'via tempGuid');
    const sent = bb.lastTo('POST', '/api/v1/message/text');
    expect(reported).toBe(sent.json.tempGuid);
    const real = [...bb.messages.values()].find((m) => m.text === 'via tempGuid')!.guid;
    // BlueBubbles' emitMessageMatch: our own message, with our tempGuid.
    await bb.post(hookUrl, bb.ownMessageEvent(real, reported));
    await waitFor(() => outcomes.length === 1);
    expect(outcomes[0]).toEqual({ handled: 'own_message', guid: real, matchedSend: true });
    expect(events.matches).toEqual([{ lineId, provisionalGuid: reported, realGuid: real }]);
    // From then on the message is known by its real guid (the service renamed it).
    bb.markDelivered(real, 1_700_000_000_000);
    await bb.post(hookUrl, bb.webhookEvent('updated-message', real));
    await waitFor(() => events.receipts.length === 1);
    expect(events.receipts[0]).toEqual({ lineId, guid: real, kind: 'delivered', atMs: 1_700_000_000_000 });
    expect(events.inbound_).toEqual([]);
  });

  it('ignores our own messages and events it does not use; a tapback is a reaction, never an inbound message', async () => {
    const mine = bb.addIncoming({ from: SENDER, text: 'sent from the Mac' });
    mine.isFromMe = true;
    const tapback = bb.addIncoming({ from: SENDER, text: 'Loved \u201chi\u201d', dateCreated: 1_700_000_000_000 });
    tapback.associatedMessageGuid = `p:0/${mine.guid}`;
    tapback.associatedMessageType = 'love';
    const results = [
      await handleBlueBubblesWebhook(ctx, lineId, bb.webhookEvent('new-message', mine.guid)),
      await handleBlueBubblesWebhook(ctx, lineId, bb.webhookEvent('new-message', tapback.guid)),
      await handleBlueBubblesWebhook(ctx, lineId, { type: 'typing-indicator', data: { display: true, guid: 'iMessage;-;x' } }),
      await handleBlueBubblesWebhook(ctx, lineId, 'nonsense'),
      await handleBlueBubblesWebhook(ctx, lineId, bb.webhookEvent('updated-message', tapback.guid)),
      await handleBlueBubblesWebhook(ctx, lineId, bb.webhookEvent('new-message', tapback.guid)),
    ];
    expect(results.map((r) => r.handled)).toEqual(['own_message', 'reaction', 'ignored', 'ignored', 'ignored', 'duplicate']);
    expect(events.reactions).toEqual([{ lineId, reaction: { targetGuid: mine.guid, reaction: 'love', remove: false, from: SENDER, atMs: 1_700_000_000_000 } }]);
    expect(events.inbound_).toEqual([]);
    expect(events.receipts).toEqual([]);
  });

  it('reads tapbacks by name or chat.db code, removals too, from anyone or the Mac itself; stickers are not tapbacks', async () => {
    const target = bb.addIncoming({ from: SENDER, text: 'target' });
    const cases: [string | number, boolean, { reaction: string; remove: boolean } | null][] = [
      ['-laugh', false, { reaction: 'laugh', remove: true }],
      [2005, false, { reaction: 'question', remove: false }],
      ['3001', false, { reaction: 'like', remove: true }],
      ['emphasize', true, { reaction: 'emphasize', remove: false }],
      ['sticker', false, null],
      [1000, false, null],
    ];
    for (const [type, fromMe, expected] of cases) {
      const t = bb.addIncoming({ from: SENDER, text: 'tapback' });
      t.associatedMessageGuid = `bp:${target.guid}`;
      t.associatedMessageType = type as string;
      t.isFromMe = fromMe;
      const out = await handleBlueBubblesWebhook(ctx, lineId, bb.webhookEvent('new-message', t.guid));
      if (!expected) {
        // Not a tapback: handled as the message it is (a sticker has no text to record).
        expect(out.handled).toBe('ignored');
        continue;
      }
      expect(out).toEqual({ handled: 'reaction', guid: t.guid, on: target.guid });
      expect(events.reactions.at(-1)!.reaction).toMatchObject({ targetGuid: target.guid, ...expected, from: fromMe ? null : SENDER });
    }
    expect(events.reactions).toHaveLength(4);
    expect(events.inbound_).toEqual([]);
  });

  it('uses a complete payload as it is, without fetching the message again', async () => {
    const msg = bb.addIncoming({ from: 'Someone@Example.com', text: 'complete' });
    const full = bb.serializeMessage(msg.guid, { forNotification: false, withChats: true, withParticipants: true, withAttachments: true });
    const out = await handleBlueBubblesWebhook(ctx, lineId, { type: 'new-message', data: full });
    expect(out).toEqual({ handled: 'inbound', guid: msg.guid, parts: 1 });
    expect(events.inbound_[0]!.message.from).toBe('someone@example.com');
    expect(bb.requestsTo('GET', `/api/v1/message/${msg.guid}`)).toEqual([]);
  });

  it('fails (and may be retried) when the server cannot be asked for the message; errors carry no password', async () => {
    const msg = bb.addIncoming({ from: SENDER, text: 'retry me' });
    const event = bb.webhookEvent('new-message', msg.guid);
    bb.inject(`GET /api/v1/message/${msg.guid}`, { html: 502 });
    await bb.post(hookUrl, event);
    await waitFor(() => errors.length === 1);
    expect(String((errors[0] as Error).message)).not.toContain(bb.password);
    expect((errors[0] as { kind?: string }).kind).toBe('line_down');
    await bb.post(hookUrl, event);
    await waitFor(() => events.inbound_.length === 1);
  });
  it('answers as BlueBubbles does for each `with`: members only for a group, and not with chats.participants; text without U+FFFC', async () => {
    const group = bb.groupChat([SENDER, '+14155550124'], 'Crew');
    const image = bb.addAttachment({ bytes: PNG, mimeType: 'image/png', transferName: 'IMG_0002.png' });
    const msg = bb.addIncoming({ from: SENDER, text: '  Here \uFFFC\n', chat: group, attachments: [image] });
    const get = async (w: string) => ((await (await fetch(`${bb.url}/api/v1/message/${msg.guid}?with=${w}&password=${encodeURIComponent(bb.password)}`)).json()) as { data: any }).data;
    const plain = await get('chats');
    expect(plain.chats[0].participants.map((h: { address: string }) => h.address)).toEqual([SENDER, '+14155550124']);
    expect('participants' in (await get('chats,chats.participants')).chats[0]).toBe(false); // MessageRouter.find's quirk
    expect((await get('attachment')).chats).toEqual([]);
    expect(plain.text).toBe('Here');
    expect(plain.attributedBody).toBeNull();
    expect((await get('attributedBody')).attributedBody[0].runs).toEqual([
      { range: [0, 7], attributes: { __kIMMessagePartAttributeName: 0 } },
      { range: [7, 1], attributes: { __kIMMessagePartAttributeName: 1, __kIMFileTransferGUIDAttributeName: image } },
      { range: [8, 1], attributes: { __kIMMessagePartAttributeName: 2 } },
    ]);
  });

  it('lists every member of a group message whose webhook came without them (not only the sender)', async () => {
    const group = bb.groupChat([SENDER, '+14155550124', '+14155550125'], 'Trip');
    const image = bb.addAttachment({ bytes: PNG, mimeType: 'image/png', transferName: 'IMG_0003.png' });
    const msg = bb.addIncoming({ from: SENDER, text: 'photo', chat: group, attachments: [image] });
    const event = bb.webhookEvent('new-message', msg.guid);
    delete (event.data.chats as { participants?: unknown }[])[0]!.participants;
    const out = await handleBlueBubblesWebhook(ctx, lineId, event);
    expect(out).toEqual({ handled: 'inbound', guid: msg.guid, parts: 2 });
    expect(events.inbound_[0]!.message.group).toEqual({ chatKey: group.guid, handles: [SENDER, '+14155550124', '+14155550125'], displayName: 'Trip' });
  });

  it('asks for the chat when a group message still has no members', async () => {
    const group = bb.groupChat([SENDER, '+14155550126'], '');
    const msg = bb.addIncoming({ from: SENDER, text: 'hello group', chat: group });
    const data = bb.serializeMessage(msg.guid, { forNotification: false, withChats: true, withParticipants: false, withAttachments: true });
    bb.inject(`GET /api/v1/message/${msg.guid}`, { status: 200, body: { status: 200, message: 'Success', data } });
    await handleBlueBubblesWebhook(ctx, lineId, { type: 'new-message', data });
    expect(events.inbound_[0]!.message.group?.handles).toEqual([SENDER, '+14155550126']);
    expect(bb.lastTo('GET', `/api/v1/chat/${group.guid}`).query).toMatchObject({ with: 'participants' });
  });

  it('keeps text and media in display order from the attributedBody; without one, text first then media in order', async () => {
    const a = bb.addAttachment({ bytes: PNG, mimeType: 'image/png', transferName: 'a.png' });
    const b = bb.addAttachment({ bytes: CAF, mimeType: 'audio/x-caf', transferName: 'b.caf' });
    const msg = bb.addIncoming({ from: SENDER, text: '\uFFFCfirst picture, then\uFFFC the end', attachments: [a, b] });
    await handleBlueBubblesWebhook(ctx, lineId, bb.webhookEvent('new-message', msg.guid));
    expect(events.inbound_[0]!.message.parts.map((p) => (p.type === 'text' ? p.value : p.filename))).toEqual(['a.png', 'first picture, then', 'b.caf', 'the end']);

    // A Mac whose message has no attributedBody: the documented fallback order.
    const msg2 = bb.addIncoming({ from: SENDER, text: '\uFFFCcaption\uFFFC', attachments: [a, b] });
    const full = bb.serializeMessage(msg2.guid, { forNotification: false, withChats: true, withParticipants: true, withAttachments: true });
    bb.inject(`GET /api/v1/message/${msg2.guid}`, { status: 200, body: { status: 200, message: 'Success', data: full } });
    await handleBlueBubblesWebhook(ctx, lineId, { type: 'new-message', data: full });
    expect(bb.requestsTo('GET', `/api/v1/message/${msg2.guid}`)).toHaveLength(1); // asked for the attributedBody, got none
    expect(events.inbound_[1]!.message.parts.map((p) => (p.type === 'text' ? p.value : p.filename))).toEqual(['caption', 'a.png', 'b.caf']);
  });

  it('fails an attachment not yet on the Mac (its 500) as line_down, to be retried; reports the message once the file is there', async () => {
    const image = bb.addAttachment({ bytes: PNG, mimeType: 'image/png', transferName: 'icloud.png' });
    bb.notOnDisk.add(image);
    const msg = bb.addIncoming({ from: SENDER, text: 'from iCloud', attachments: [image] });
    const event = bb.webhookEvent('new-message', msg.guid);
    const err = await handleBlueBubblesWebhook(ctx, lineId, event).then(() => undefined, (e: unknown) => e);
    expect(err).toMatchObject({ kind: 'line_down' });
    expect(String((err as Error).message)).toContain('does not exist in disk');
    expect(events.inbound_).toEqual([]);
    bb.arrive(image);
    expect(await handleBlueBubblesWebhook(ctx, lineId, event)).toEqual({ handled: 'inbound', guid: msg.guid, parts: 2 });
    // An attachment the Mac does not have at all (with the Private API on, as here) is a 404, final.
    const gone = `at_${randomUUID()}`;
    const msg3 = bb.addIncoming({ from: SENDER, text: 'gone', attachments: [] });
    const data = { ...bb.serializeMessage(msg3.guid, { forNotification: false, withChats: true, withParticipants: true, withAttachments: true, withAttributedBody: true }) };
    data.attachments = [{ guid: gone, mimeType: 'image/png', transferName: 'x.png', hideAttachment: false }];
    expect(await handleBlueBubblesWebhook(ctx, lineId, { type: 'new-message', data }).catch((e: unknown) => e)).toMatchObject({ kind: 'not_found' });
  });
});

describe('handleBlueBubblesWebhook with a collector only', () => {
  it('reports nothing for an event type it does not subscribe to', async () => {
    const events = collector();
    const out = await handleBlueBubblesWebhook({ config: { url: 'http://127.0.0.1:9', password: 'x' }, events }, 'line', { type: 'group-name-change', data: {} });
    expect(out).toEqual({ handled: 'ignored', reason: 'event group-name-change is not used' });
  });
});
