/**
 * The outbound status events. A project that subscribes to them hears, as signed webhooks (and
 * in its event log, stream and dev inbox), what happened to a message it sent: `message.sent` when
 * its line accepted it (at the send's answer, or when reconciliation finds a send answered 3002
 * went out), `message.delivered` and `message.read` from the line's receipts, `message.failed`
 * when Messages gave up on it (the simulator's +15005550008) or reconciliation found that a send
 * whose answer never came never left (a BlueBubbles Mac that never got it); and `message.reacted`
 * when a line reports a tapback put on or taken off a message. Each envelope matches
 * the contract; a subscription to message.received alone gets none of them, and a project with
 * no subscription to them records none.
 */
import { randomBytes } from 'node:crypto';
import { ajv, closed, lowercased } from '../support/contract-check.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { eventually, firstTouch, newRecipient, prepareSandbox, FIRST_TOUCH_GAP_MS } from '../support/messaging.js';
import { appWithBlueBubblesLine } from '../support/bluebubbles-line.js';
import { SIMULATOR_RECIPIENTS } from '../../src/drivers/simulator/reserved.js';
import { MessageDelivered, MessageFailed, MessageReacted, MessageRead, MessageSent, type MessageFailed as MessageFailedEnvelope, type MessageReacted as MessageReactedEnvelope } from '../../src/contract/webhook-message-status.js';
import { WANTED_TTL_MS } from '../../src/domain/messaging/status-events.js';
import { webhookHeaders } from '../../src/contract/webhook-message-received.js';
import { verifyWebhook } from '../../src/index.js';
import type { StandIn } from '../drivers/bluebubbles/standin.js';

const validators = { 'message.reacted': ajv.compile(closed(MessageReacted) as object), 'message.sent': ajv.compile(closed(MessageSent) as object), 'message.delivered': ajv.compile(closed(MessageDelivered) as object), 'message.read': ajv.compile(closed(MessageRead) as object), 'message.failed': ajv.compile(closed(MessageFailed) as object) };

function expectContract(envelope: unknown, type: keyof typeof validators = 'message.failed'): MessageFailedEnvelope {
  const validate = validators[type];
  if (!validate(envelope)) throw new Error(`${type} does not match the contract: ${ajv.errorsText(validate.errors)}`);
  return envelope as MessageFailedEnvelope;
}

describe.each(STORE_KINDS)('status events through the simulator (%s)', (kind) => {
  let t: TestApp;
  let both: Receiver;
  let receivedOnly: Receiver;
  let secret: string;
  beforeAll(async () => {
    t = await startTestApp(kind, { BLUELINE_ALLOW_PRIVATE_NETWORKS: '1' });
    await prepareSandbox(t);
    both = await startReceiver();
    receivedOnly = await startReceiver();
    const sub = await t.api('POST', '/api/v1/webhook-subscriptions', { url: both.url, events: ['message.received', 'message.failed'] });
    expect(sub.statusCode, sub.body).toBe(201);
    expect(sub.json().events).toEqual(['message.received', 'message.failed']);
    secret = sub.json().secret;
    expect((await t.api('POST', '/api/v1/webhook-subscriptions', { url: receivedOnly.url, events: ['message.received'] })).statusCode).toBe(201);
  });
  afterAll(async () => {
    await both?.close();
    await receivedOnly?.close();
    await t?.close();
  });

  it('a message Messages failed after the send answered `sent`: one signed delivery of the message as its lookup shows it', async () => {
    const sent = await firstTouch(t, { phone: SIMULATOR_RECIPIENTS.failsAfterSend, body: 'will fail later' });
    expect(sent.json()).toMatchObject({ status: 'sent' });
    const messageId = sent.json().message_id as string;

    const [got] = await both.waitFor(1);
    const headers = got!.headers;
    expect(ajv.validate(lowercased(webhookHeaders('message.failed')(t.config.headerBrand)), headers), ajv.errorsText(ajv.errors)).toBe(true);
    expect(headers['x-webhook-event']).toBe('message.failed');
    expect(headers['x-webhook-event-id']).toBe(`imessage:failed:${messageId}`);
    expect(verifyWebhook({ rawBody: got!.body, headers, secret }).ok).toBe(true);
    const envelope = expectContract(JSON.parse(got!.body.toString('utf8')));
    const lookup = (await t.api('GET', `/api/v1/messages/${messageId}`)).json().message;
    const { reactions: _reactions, ...asLookedUp } = lookup;
    expect(envelope.data.message).toEqual(asLookedUp);
    expect(envelope.data.message).toMatchObject({ id: messageId, direction: 'outbound', status: 'failed', error_code: 4001 });
    expect(envelope).toMatchObject({ event: 'message.failed', event_type: 'message.failed', partner_id: t.demo.tenant, data: { chat: { id: sent.json().chat_id, is_group: false } } });
    expect(envelope.data.chat.handles).toEqual([
      { handle: SIMULATOR_RECIPIENTS.failsAfterSend, service: 'imessage', is_me: false },
      { handle: envelope.data.chat.owner_handle.handle, service: 'imessage', is_me: true },
    ]);

    // In the event log, filterable by type, delivered; nothing went to the message.received-only subscription.
    const listed = (await t.api('GET', '/api/v1/events?type=message.failed', undefined, { tenant: 'demo' })).json().events as { event_id: string; lead_id: string; payload: unknown; delivery: { status: string } }[];
    const record = listed.find((e) => e.event_id === `imessage:failed:${messageId}`)!;
    expect(record.lead_id).toBe(sent.json().lead_id);
    expect(record.payload).toEqual(envelope);
    await eventually(async () => (await t.api('GET', '/api/v1/events?type=message.failed', undefined, { tenant: 'demo' })).json().events[0].delivery.status, (s) => s === 'delivered');
    expect(receivedOnly.received).toHaveLength(0);
  });

  it('delivered and read: one event each for a subscription that lists them, the message as its lookup shows it then', async () => {
    const rx = await startReceiver();
    try {
      const sub = await t.api('POST', '/api/v1/webhook-subscriptions', { url: rx.url, events: ['message.delivered', 'message.read'] });
      expect(sub.statusCode, sub.body).toBe(201);
      // What a line's project wants is read at most once a WANTED_TTL_MS.
      t.clock.advance(WANTED_TTL_MS);
      const before = both.received.length;
      const sent = await firstTouch(t, { phone: newRecipient(), body: 'track me' });
      expect(sent.statusCode, sent.body).toBe(200);
      const id = sent.json().message_id as string;
      const got = await rx.waitFor(2);
      const byType = new Map(got.map((g) => [g.headers['x-webhook-event'] as string, g]));
      expect([...byType.keys()].sort()).toEqual(['message.delivered', 'message.read']);
      for (const [type, g] of byType) {
        expect(verifyWebhook({ rawBody: g.body, headers: g.headers, secret: sub.json().secret }).ok).toBe(true);
        const env = expectContract(JSON.parse(g.body.toString('utf8')), type as 'message.delivered' | 'message.read');
        expect(env.event_id).toBe(`imessage:${type.slice('message.'.length)}:${id}`);
        expect(env.data.message).toMatchObject({ id, direction: 'outbound', status: type === 'message.read' ? 'read' : expect.stringMatching(/^(delivered|read)$/), delivered_at: expect.any(String) });
        if (type === 'message.read') expect(env.data.message.read_at).toEqual(expect.any(String));
      }
      // Once each: nothing more comes, and the subscription to received and failed got none of them.
      await new Promise((r) => setTimeout(r, 300));
      expect(rx.received).toHaveLength(2);
      expect(both.received.length).toBe(before);
    } finally {
      await rx.close();
    }
  });

  it('nothing is recorded for a project without a subscription to it', async () => {
    const other = (await t.admin('POST', '/admin/v1/accounts', { name: `No failed events ${kind}` })).json();
    const slug = `nofail-${randomBytes(3).toString('hex')}`;
    await t.admin('POST', '/admin/v1/tenants', { account_id: other.account.id, slug });
    const line = (await t.admin('POST', '/admin/v1/lines', { tenant: slug, phone_number: `+1415555${String(2000 + Math.floor(Math.random() * 7000))}`, driver: 'simulator' })).json().phone_line;
    const as = { secret: other.signing_secret, tenant: slug };
    expect((await t.api('POST', '/api/v1/webhook-subscriptions', { url: 'https://dev-inbox', events: ['message.received'] }, as)).statusCode).toBe(201);
    const sent = await t.api('POST', '/api/v1/send', { phone: SIMULATOR_RECIPIENTS.failsAfterSend, body: 'fails unheard', phone_line_id: line.id }, as);
    expect(sent.statusCode, sent.body).toBe(200);
    await eventually(async () => (await t.api('GET', `/api/v1/messages/${sent.json().message_id}`, undefined, as)).json().message.status, (s) => s === 'failed');
    // Nor for one delivered and read (past the line's first-touch gap).
    t.clock.advance(FIRST_TOUCH_GAP_MS);
    const read = await t.api('POST', '/api/v1/send', { phone: newRecipient(), body: 'read unheard', phone_line_id: line.id }, as);
    expect(read.statusCode, read.body).toBe(200);
    await eventually(async () => (await t.api('GET', `/api/v1/messages/${read.json().message_id}`, undefined, as)).json().message.status, (s) => s === 'read');
    expect((await t.api('GET', '/api/v1/events', undefined, as)).json().events).toEqual([]);
  });
});

describe.each(STORE_KINDS)('message.sent through the simulator (%s)', (kind) => {
  let t: TestApp;
  let rx: Receiver;
  let secret: string;
  let as: { secret: string; tenant: string };
  let lineId: string;
  beforeAll(async () => {
    t = await startTestApp(kind, { BLUELINE_ALLOW_PRIVATE_NETWORKS: '1' });
    const account = (await t.admin('POST', '/admin/v1/accounts', { name: `Sent events ${kind}` })).json();
    const slug = `sent-${randomBytes(3).toString('hex')}`;
    expect((await t.admin('POST', '/admin/v1/tenants', { account_id: account.account.id, slug })).statusCode).toBe(201);
    lineId = (await t.admin('POST', '/admin/v1/lines', { tenant: slug, phone_number: '+14155550911', driver: 'simulator' })).json().phone_line.id;
    as = { secret: account.signing_secret, tenant: slug };
    rx = await startReceiver();
    const sub = await t.api('POST', '/api/v1/webhook-subscriptions', { url: rx.url, events: ['message.sent'] }, as);
    expect(sub.statusCode, sub.body).toBe(201);
    secret = sub.json().secret;
  });
  afterAll(async () => {
    await rx?.close();
    await t?.close();
  });

  /** The message.sent deliveries so far, by message id, each checked: signed, its contract, its dedup key. */
  const sentEvents = () =>
    new Map(
      rx.received.map((g) => {
        expect(g.headers['x-webhook-event']).toBe('message.sent');
        expect(verifyWebhook({ rawBody: g.body, headers: g.headers, secret }).ok).toBe(true);
        const envelope = expectContract(JSON.parse(g.body.toString('utf8')), 'message.sent');
        expect(envelope.event_id).toBe(`imessage:sent:${envelope.data.message.id}`);
        return [envelope.data.message.id, envelope] as const;
      }),
    );
  const send = (phone: string, body: string) => {
    t.clock.advance(FIRST_TOUCH_GAP_MS + 1_000);
    return t.api('POST', '/api/v1/send', { phone, body, phone_line_id: lineId }, as);
  };

  it('every message its line accepted, once, as it was then; a refusal at once fires none, a 3002 only once reconciliation finds it went out', async () => {
    const sent = await send(newRecipient(), 'went out');
    expect(sent.statusCode, sent.body).toBe(200);
    const id = sent.json().message_id as string;
    await rx.waitFor(1);
    expect(sentEvents().get(id)).toMatchObject({
      event_type: 'message.sent',
      data: { chat: { id: sent.json().chat_id, is_group: false }, message: { id, direction: 'outbound', status: 'sent', parts: [{ type: 'text', value: 'went out' }] } },
    });

    // The line refuses it at once: the answer said so, no event. A send answered 3002: none yet.
    expect((await send(SIMULATOR_RECIPIENTS.unreachable, 'refused')).statusCode).toBe(502);
    const stalled = await send(SIMULATOR_RECIPIENTS.stallsAfterDevice, 'answer lost');
    expect(stalled.statusCode, stalled.body).toBe(503);
    const stalledId = stalled.json().message_id as string;
    await new Promise((r) => setTimeout(r, 300));
    expect([...sentEvents().keys()]).toEqual([id]);

    // Reconciliation finds it on the device: sent, and now the event, once however often it looks.
    expect(await t.services.sendReconciler.sweep()).toMatchObject({ sent: 1 });
    await rx.waitFor(2);
    expect(sentEvents().get(stalledId)?.data.message).toMatchObject({ id: stalledId, status: 'sent', parts: [{ type: 'text', value: 'answer lost' }] });
    await t.services.sendReconciler.sweep();
    await new Promise((r) => setTimeout(r, 300));
    expect([...sentEvents().keys()].sort()).toEqual([id, stalledId].sort());
    const listed = (await t.api('GET', '/api/v1/events?type=message.sent', undefined, as)).json().events as { event_id: string }[];
    expect(listed.map((e) => e.event_id).sort()).toEqual([`imessage:sent:${id}`, `imessage:sent:${stalledId}`].sort());
  });

  it("message.reacted: a contact's tapback put on and taken off, once each; the same report twice, a removal of one they do not have, and the project's own fire none", async () => {
    const reacted = await startReceiver();
    try {
      const sub = await t.api('POST', '/api/v1/webhook-subscriptions', { url: reacted.url, events: ['message.reacted'] }, as);
      expect(sub.statusCode, sub.body).toBe(201);
      t.clock.advance(WANTED_TTL_MS);
      const contact = newRecipient();
      const sent = await send(contact, 'Shall I hold one?');
      expect(sent.statusCode, sent.body).toBe(200);
      const id = sent.json().message_id as string;
      const inject = (reaction: Record<string, unknown>) => t.admin('POST', `/admin/v1/lines/${lineId}/simulate/inbound`, { from: contact, reaction: { message_id: id, ...reaction } });
      const envelopes = () =>
        reacted.received.map((g) => {
          expect(g.headers['x-webhook-event']).toBe('message.reacted');
          expect(verifyWebhook({ rawBody: g.body, headers: g.headers, secret: sub.json().secret }).ok).toBe(true);
          return expectContract(JSON.parse(g.body.toString('utf8')), 'message.reacted') as unknown as MessageReactedEnvelope;
        });

      const before = t.clock.now();
      expect((await inject({ reaction: 'love' })).statusCode).toBe(202);
      await reacted.waitFor(1);
      const [put] = envelopes();
      expect(put!.data.reaction).toEqual({ reaction: 'love', removed: false, from: { handle: contact, service: 'imessage', is_me: false }, at: expect.any(String) });
      const at = Date.parse(put!.data.reaction.at);
      expect(at).toBeGreaterThanOrEqual(before);
      // The line reporting the same tapback again (a retried webhook, a catch-up) is the same event.
      const tenantId = (await t.testStore.store.lines.get(lineId))!.tenant_id;
      const { provider_guid: guid } = (await t.testStore.store.messages.get(tenantId, id))!;
      await t.services.events.reaction(lineId, { targetGuid: guid!, reaction: 'love', remove: false, from: contact, atMs: at });
      expect(put!.data.message).toMatchObject({ id, direction: 'outbound', parts: [{ type: 'text', value: 'Shall I hold one?' }] });
      expect(put!.data.chat).toMatchObject({ id: sent.json().chat_id, is_group: false });
      expect(put!.event_id).toMatch(new RegExp(`^imessage:reacted:${id}:`));

      // A removal of a tapback the contact does not have changes nothing; the project's own tapback was answered to its caller.
      t.clock.advance(1_000);
      expect((await inject({ reaction: 'like', remove: true })).statusCode).toBe(202);
      expect((await t.api('POST', `/api/v1/messages/${id}/react`, { reaction: 'emphasize' }, as)).statusCode).toBe(200);
      t.clock.advance(1_000);
      expect((await inject({ reaction: 'love', remove: true })).statusCode).toBe(202);
      await reacted.waitFor(2);
      await new Promise((r) => setTimeout(r, 300));
      const all = envelopes();
      expect(all).toHaveLength(2);
      expect(all[1]!.data.reaction).toMatchObject({ reaction: 'love', removed: true, from: { handle: contact, is_me: false } });
      expect(all[1]!.event_id).not.toBe(all[0]!.event_id);
      // The message.sent subscription heard none of them (sentEvents checks every delivery is message.sent).
      sentEvents();
    } finally {
      await reacted.close();
    }
  });

  it("a new group's first message, when the group is recorded", async () => {
    const before = rx.received.length;
    t.clock.advance(FIRST_TOUCH_GAP_MS + 1_000);
    const created = await t.api('POST', '/api/v1/chats', { to: [newRecipient(), newRecipient()], message: { parts: [{ type: 'text', value: 'Kickoff' }] }, phone_line_id: lineId }, as);
    expect(created.statusCode, created.body).toBe(201);
    await rx.waitFor(before + 1);
    expect(sentEvents().get(created.json().message.id)).toMatchObject({
      data: { chat: { id: created.json().chat.id, is_group: true }, message: { status: 'sent', parts: [{ type: 'text', value: 'Kickoff' }] } },
    });
  });
});

describe('message.failed for a send reconciliation found never left (BlueBubbles), in the dev inbox', () => {
  let t: TestApp;
  let bb: StandIn;
  let lineId: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ t, bb, lineId, close } = await appWithBlueBubblesLine({ timeout_ms: 300 }));
  });
  afterAll(async () => close());

  it('is recorded when the sweep fails the message, and the dev inbox has it', async () => {
    expect((await t.api('POST', '/api/v1/webhook-subscriptions', { url: 'https://dev-inbox', events: ['message.failed'] })).statusCode).toBe(201);
    const phone = '+14155550691';
    expect((await t.api('POST', '/api/v1/send', { phone, body: 'hello', phone_line_id: lineId })).statusCode).toBe(200);
    // The Mac never gets this one, and its answer never comes.
    bb.inject('POST /api/v1/message/text', { hangMs: 3_000 });
    const lost = await t.api('POST', '/api/v1/send', { phone, body: 'never left' });
    expect(lost.statusCode).toBe(503);
    const messageId = lost.json().message_id as string;
    const since = new Date(t.clock.now() - 1000).toISOString();
    const inbox = async () => (await t.api('GET', `/api/v1/dev-inbox?since=${encodeURIComponent(since)}`, undefined, { tenant: 'demo' })).json().events as { type: string; payload: unknown }[];
    // While it is `sending` nobody knows: no event.
    expect(await inbox()).toEqual([]);

    t.clock.advance(60_000);
    await t.services.sendReconciler.sweep();
    const [event] = await inbox();
    expect(event?.type).toBe('message.failed');
    const envelope = expectContract(event!.payload);
    expect(envelope.data.message).toMatchObject({ id: messageId, status: 'failed', error_code: 4001, parts: [{ type: 'text', value: 'never left' }], phone_line_id: lineId });
    // A sweep that finds it settled records nothing more.
    await t.services.sendReconciler.sweep();
    expect(await inbox()).toHaveLength(1);
  });
});
