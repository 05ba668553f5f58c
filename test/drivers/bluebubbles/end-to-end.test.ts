import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { startReceiver, type Receiver } from '../../support/receiver.js';
import { eventually, prepareSandbox } from '../../support/messaging.js';
import { startStandIn, type StandIn } from './standin.js';
import { verifyWebhook } from '../../../src/index.js';
import { freePort } from '../../support/ports.js';
import { ajv, closed } from '../../support/contract-check.js';
import { MessageEdited } from '../../../src/contract/webhook-message-status.js';
import { WANTED_TTL_MS } from '../../../src/domain/messaging/status-events.js';

describe('a BlueBubbles line, end to end', () => {
  let t: TestApp;
  let bb: StandIn;
  let rx: Receiver;
  let lineId: string;
  let secret: string;
  beforeAll(async () => {
    const port = await freePort();
    t = await startTestApp('sqlite', { BLUELINE_ALLOW_PRIVATE_NETWORKS: '1', PUBLIC_BASE_URL: `http://127.0.0.1:${port}` });
    await t.app.listen({ port, host: '127.0.0.1' });
    await prepareSandbox(t);
    bb = await startStandIn();
    rx = await startReceiver();
    secret = (await t.api('POST', '/api/v1/webhook-subscriptions', { url: rx.url, events: ['message.received'] })).json().secret;
    const res = await t.admin('POST', '/admin/v1/lines', { tenant: 'demo', phone_number: '+14155550600', driver: 'bluebubbles', driver_config: bb.config() });
    expect(res.statusCode).toBe(201);
    expect(res.body).not.toContain(bb.password);
    lineId = res.json().phone_line.id;
  });
  afterAll(async () => {
    await rx.close();
    await bb.stop();
    await t.close();
  });

  it('registers its per-line webhook with the Mac when the line is created', async () => {
    const hooks = await eventually(async () => bb.webhooks, (w) => w.length > 0);
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.url).toMatch(new RegExp(`^${t.config.publicBaseUrl}/hooks/bluebubbles/${lineId}/[0-9a-f]{64}$`));
    expect(hooks[0]!.events.sort()).toEqual(['message-send-error', 'new-message', 'updated-message']);
    // The token is what makes the URL work.
    const forged = await fetch(hooks[0]!.url.replace(/[0-9a-f]{64}$/, '0'.repeat(64)), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(forged.status).toBe(401);
  });

  it('turns an inbound iMessage on the Mac into a signed message.received', async () => {
    const msg = bb.addIncoming({ from: '+14155550777', text: 'Hello from a real Mac' });
    const before = rx.received.length;
    const posted = await bb.post(bb.webhooks[0]!.url, bb.webhookEvent('new-message', msg.guid));
    expect(posted.status).toBe(200);
    const got = (await rx.waitFor(before + 1))[before]!;
    const env = JSON.parse(got.body.toString());
    expect(env).toMatchObject({ event: 'message.received', event_id: `imessage:msg:${msg.guid}`, from: '+14155550777', to: '+14155550600', text: 'Hello from a real Mac', line_id: lineId });
    expect(verifyWebhook({ rawBody: got.body, headers: got.headers, secret }).ok).toBe(true);
    // The same webhook again creates nothing new.
    await bb.post(bb.webhooks[0]!.url, bb.webhookEvent('new-message', msg.guid));
    await new Promise((r) => setTimeout(r, 200));
    expect(rx.received.length).toBe(before + 1);
  });

  it('applies an edit the sender makes to an inbound message, and a subscription to message.edited hears it once', async () => {
    const edits = await startReceiver();
    const sub = await t.api('POST', '/api/v1/webhook-subscriptions', { url: edits.url, events: ['message.edited'] });
    expect(sub.statusCode, sub.body).toBe(201);
    t.clock.advance(WANTED_TTL_MS);
    const msg = bb.addIncoming({ from: '+14155550778', text: 'Meet at 5' });
    const before = rx.received.length;
    await bb.post(bb.webhooks[0]!.url, bb.webhookEvent('new-message', msg.guid));
    const env = JSON.parse((await rx.waitFor(before + 1))[before]!.body.toString());
    const stored = bb.messages.get(msg.guid)!;
    stored.text = 'Meet at 6';
    stored.dateEdited = Date.now();
    await bb.post(bb.webhooks[0]!.url, bb.webhookEvent('updated-message', msg.guid));
    const m = await eventually(
      async () => (await t.api('GET', `/api/v1/messages/${env.data.message.id}`)).json().message,
      (x) => x.edited_at !== null,
    );
    expect(m).toMatchObject({ direction: 'inbound', parts: [{ type: 'text', value: 'Meet at 6' }] });

    const [got] = await edits.waitFor(1);
    expect(got!.headers['x-webhook-event']).toBe('message.edited');
    expect(verifyWebhook({ rawBody: got!.body, headers: got!.headers, secret: sub.json().secret }).ok).toBe(true);
    const envelope = JSON.parse(got!.body.toString());
    const validate = ajv.compile(closed(MessageEdited) as object);
    expect(validate(envelope), ajv.errorsText(validate.errors)).toBe(true);
    const { reactions: _reactions, ...asLookedUp } = m;
    expect(envelope.data.message).toEqual(asLookedUp);
    expect(envelope.data.message.sender_handle).toBe('+14155550778');
    expect(envelope.event_id).toBe(`imessage:edited:${m.id}:${Date.parse(m.edited_at)}`);
    // The Mac posting the same update again is the same edit: no second event. The message.received subscription got none.
    await bb.post(bb.webhooks[0]!.url, bb.webhookEvent('updated-message', msg.guid));
    await new Promise((r) => setTimeout(r, 300));
    expect(edits.received).toHaveLength(1);
    expect(rx.received.slice(before).map((r) => r.headers['x-webhook-event'])).toEqual(['message.received']);
    await edits.close();
  });

  it('keeps the text of an inbound message its sender unsends, in whole or in part (BlueBubbles posts the unsend as an update)', async () => {
    const photo = bb.addAttachment({ bytes: Buffer.from('a photo'), mimeType: 'image/png', transferName: 'photo.png' });
    const whole = bb.addIncoming({ from: '+14155550781', text: 'Call me at 5' });
    const part = bb.addIncoming({ from: '+14155550781', text: 'See this \uFFFC', attachments: [photo] });
    const edited = bb.addIncoming({ from: '+14155550781', text: 'Meet at 5' });
    await eventually(async () => bb.webhooks, (w) => w.length > 0);
    const before = rx.received.length;
    for (const m of [whole, part, edited]) await bb.post(bb.webhooks[0]!.url, bb.webhookEvent('new-message', m.guid));
    const ids = new Map<string, string>();
    for (const got of (await rx.waitFor(before + 3)).slice(before)) {
      const env = JSON.parse(got.body.toString());
      ids.set(env.event_id.split(':msg:')[1], env.data.message.id);
    }
    const get = async (guid: string) => (await t.api('GET', `/api/v1/messages/${ids.get(guid)}`)).json().message;
    expect(await get(part.guid)).toMatchObject({ parts: [{ type: 'text', value: 'See this' }, { type: 'media' }] });

    // The whole message unsent: its text is NULL on the Mac; then only the text part of the other.
    bb.unsend(whole.guid, 0);
    bb.unsend(part.guid, 0);
    expect(bb.webhookEvent('updated-message', whole.guid).data).toMatchObject({ text: null, partCount: 0 });
    expect(bb.webhookEvent('updated-message', part.guid).data).toMatchObject({ text: '', partCount: 1 });
    await bb.post(bb.webhooks[0]!.url, bb.webhookEvent('updated-message', whole.guid));
    await bb.post(bb.webhooks[0]!.url, bb.webhookEvent('updated-message', part.guid));
    // A real edit after them, on the same line: once it shows, the unsends were processed (in order).
    const stored = bb.messages.get(edited.guid)!;
    stored.text = 'Meet at 6';
    stored.dateEdited = Date.now();
    await bb.post(bb.webhooks[0]!.url, bb.webhookEvent('updated-message', edited.guid));
    await eventually(() => get(edited.guid), (x) => x.edited_at !== null);

    expect(await get(whole.guid)).toMatchObject({ parts: [{ type: 'text', value: 'Call me at 5' }], edited_at: null });
    expect(await get(part.guid)).toMatchObject({ parts: [{ type: 'text', value: 'See this' }, { type: 'media' }], edited_at: null });
    expect(rx.received.length).toBe(before + 3);
  });

  it("records the contact's tapbacks and our own on the message, with no message.received for them", async () => {
    const msg = bb.addIncoming({ from: '+14155550779', text: 'Can you ship Friday?' });
    let before = rx.received.length;
    await bb.post(bb.webhooks[0]!.url, bb.webhookEvent('new-message', msg.guid));
    const id = JSON.parse((await rx.waitFor(before + 1))[before]!.body.toString()).data.message.id as string;
    before = rx.received.length;
    const tapback = (type: string) => {
      const t = bb.addIncoming({ from: '+14155550779', text: `Tapback on \u201cCan you ship Friday?\u201d` });
      t.associatedMessageGuid = `p:0/${msg.guid}`;
      t.associatedMessageType = type;
      return bb.post(bb.webhooks[0]!.url, bb.webhookEvent('new-message', t.guid));
    };
    await tapback('love');
    const loved = await eventually(async () => (await t.api('GET', `/api/v1/messages/${id}`)).json().message, (m) => m.reactions.length > 0);
    expect(loved.reactions).toEqual([{ reaction: 'love', from: '+14155550779', at: expect.any(String) }]);
    // Ours, through the API and the Mac (whose own report of it changes nothing).
    const reacted = await t.api('POST', `/api/v1/messages/${id}/react`, { reaction: 'like' });
    expect(reacted.statusCode, reacted.body).toBe(200);
    expect(bb.lastTo('POST', '/api/v1/message/react').json).toMatchObject({ selectedMessageGuid: msg.guid, reaction: 'like' });
    const own = [...bb.messages.values()].find((m) => m.associatedMessageGuid === msg.guid && m.isFromMe)!;
    await bb.post(bb.webhooks[0]!.url, bb.webhookEvent('new-message', own.guid));
    // The contact takes theirs back.
    await tapback('-love');
    const after = await eventually(async () => (await t.api('GET', `/api/v1/messages/${id}`)).json().message, (m) => m.reactions.length === 1);
    expect(after.reactions).toEqual([{ reaction: 'like', from: 'me', at: expect.any(String) }]);
    await new Promise((r) => setTimeout(r, 200));
    expect(rx.received.length).toBe(before);
    // Nor any other event: the newest recorded is still the message's own.
    const newest = (await t.api('GET', '/api/v1/events?limit=1', undefined, { tenant: 'demo' })).json();
    expect(newest.events.map((e: { event_id: string }) => e.event_id)).toEqual([`imessage:msg:${msg.guid}`]);
  });

  it('sends through the Mac and reports its receipts', async () => {
    const reply = await t.api('POST', '/api/v1/send', { phone: '+14155550777', body: 'Thanks for writing!' });
    expect(reply.statusCode, reply.body).toBe(200);
    expect(reply.json().phone_line_id).toBe(lineId);
    const sent = bb.lastTo('POST', '/api/v1/message/text');
    expect(sent.json).toMatchObject({ chatGuid: 'iMessage;-;+14155550777', message: 'Thanks for writing!' });
    expect(sent.query.password).toBe(bb.password);
    const guid = [...bb.messages.values()].find((m) => m.text === 'Thanks for writing!')!.guid;
    bb.markDelivered(guid);
    bb.markRead(guid);
    await bb.post(bb.webhooks[0]!.url, bb.webhookEvent('updated-message', guid));
    const status = await eventually(async () => (await t.api('GET', `/api/v1/messages/${reply.json().message_id}`)).json().message, (m) => m.status === 'read');
    expect(status.status).toBe('read');
  });

  it("marks a send failed (4001) when Messages fails it after the Mac answered: its lookup and its chat's history say so", async () => {
    const reply = await t.api('POST', '/api/v1/send', { phone: '+14155550777', body: 'This will not arrive' });
    expect(reply.statusCode, reply.body).toBe(200);
    const id = reply.json().message_id;
    expect((await t.api('GET', `/api/v1/messages/${id}`)).json().message).toMatchObject({ status: 'sent' });
    const guid = [...bb.messages.values()].find((m) => m.text === 'This will not arrive')!.guid;
    expect((await bb.post(bb.webhooks[0]!.url, bb.failSent(guid, 4))).status).toBe(200);
    const failed = await eventually(async () => (await t.api('GET', `/api/v1/messages/${id}`)).json().message, (m) => m.status === 'failed');
    expect(failed).toMatchObject({ status: 'failed', error_code: 4001 });
    const history = (await t.api('GET', `/api/v1/chats/${reply.json().chat_id}/messages`)).json().messages as { id: string }[];
    expect(history.find((m) => m.id === id)).toMatchObject({ status: 'failed', error_code: 4001 });
  });

  it('replies to an SMS contact in the SMS chat they wrote from, not a new iMessage chat', async () => {
    const chat = bb.directChat('+14155550782', 'SMS');
    const msg = bb.addIncoming({ from: '+14155550782', text: 'Saw your sign, still open?', chat });
    const before = rx.received.length;
    await bb.post(bb.webhooks[0]!.url, bb.webhookEvent('new-message', msg.guid));
    await rx.waitFor(before + 1);
    const reply = await t.api('POST', '/api/v1/send', { phone: '+14155550782', body: 'Yes, until 6!' });
    expect(reply.statusCode, reply.body).toBe(200);
    const sent = [...bb.messages.values()].find((m) => m.text === 'Yes, until 6!')!;
    expect(sent.chatGuid).toBe(chat.guid);
    expect([...bb.chats.values()].filter((c) => c.participants.includes('+14155550782'))).toEqual([chat]);
  });

  it('sends an effect to the Mac as its Apple effect id (bubble and screen, and an earlier name)', async () => {
    for (const [effect, effectId] of [
      ['slam', 'com.apple.MobileSMS.expressivesend.impact'],
      ['invisible_ink', 'com.apple.MobileSMS.expressivesend.invisibleink'],
      ['echo', 'com.apple.messages.effect.CKEchoEffect'],
      ['fireball', 'com.apple.messages.effect.CKFireworksEffect'],
    ]) {
      const res = await t.api('POST', '/api/v1/send', { phone: '+14155550777', body: `effect ${effect}`, effect });
      expect(res.statusCode, res.body).toBe(200);
      expect(bb.lastTo('POST', '/api/v1/message/text').json).toMatchObject({ message: `effect ${effect}`, effectId, method: 'private-api' });
    }
  });

  it('follows a send answered with only our tempGuid onto its real guid: receipts, then an edit', async () => {
    bb.omitGuidInSendAnswers = true;
    try {
      const reply = await t.api('POST', '/api/v1/send', { phone: '+14155550777', body: 'Answered late' });
      expect(reply.statusCode, reply.body).toBe(200);
      const tempGuid = bb.lastTo('POST', '/api/v1/message/text').json.tempGuid as string;
      const real = [...bb.messages.values()].find((m) => m.text === 'Answered late')!.guid;
      // BlueBubbles posts our own message with both guids; the stored message takes the real one,
      // so any process that receives the receipts finds it.
      await bb.post(bb.webhooks[0]!.url, bb.ownMessageEvent(real, tempGuid));
      bb.markDelivered(real);
      bb.markRead(real);
      await bb.post(bb.webhooks[0]!.url, bb.webhookEvent('updated-message', real));
      const id = reply.json().message_id;
      const status = await eventually(async () => (await t.api('GET', `/api/v1/messages/${id}`)).json().message, (m) => m.status === 'read');
      expect(status.status).toBe('read');
      const edit = await t.api('POST', `/api/v1/messages/${id}/edit`, { new_text: 'Answered late, edited', edited_part_index: 0 });
      expect(edit.statusCode, edit.body).toBe(200);
      expect(bb.requestsTo('POST', `/api/v1/message/${real}/edit`)).toHaveLength(1);
    } finally {
      bb.omitGuidInSendAnswers = false;
    }
  });

  it('keeps first touches off the line while its Mac is down, and uses it again once it answers', async () => {
    await t.admin('PATCH', `/admin/v1/lines/${lineId}`, { driver_config: bb.config({ health_recheck_ms: 50 }) });
    await t.admin('PATCH', `/admin/v1/lines/${t.demo.phone_line_ids[1]}`, { is_active: false });
    const simLine = t.demo.phone_line_ids[0]!;
    // Give the simulator line a recent first touch, so rotation now prefers the Mac's line.
    t.clock.advance(11 * 60_000);
    const warm = await t.api('POST', '/api/v1/send', { phone: '+14155550800', body: 'warm-up' });
    expect(warm.json().phone_line_id).toBe(simLine);
    await bb.stop();
    // The conversation's line is down: the send says so, retryable.
    const pinned = await t.api('POST', '/api/v1/send', { phone: '+14155550777', body: 'are you there?' });
    expect(pinned.statusCode).toBe(503);
    expect(pinned.json()).toMatchObject({ code: 3002, retryable: true });
    // A first touch goes to the line that is up (the Mac's line would be first by rotation).
    t.clock.advance(11 * 60_000);
    const first = await t.api('POST', '/api/v1/send', { phone: '+14155550801', body: 'hello' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().phone_line_id).toBe(simLine);
    // The Mac is back: the next first touch may use it again.
    await bb.start(bb.port);
    await new Promise((r) => setTimeout(r, 60));
    t.clock.advance(11 * 60_000);
    const again = await t.api('POST', '/api/v1/send', { phone: '+14155550802', body: 'hello again' });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().phone_line_id).toBe(lineId);
  });
});
