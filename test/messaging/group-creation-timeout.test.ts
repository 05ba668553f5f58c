/**
 * A BlueBubbles group creation whose answer never comes: the Mac may have created the group, so
 * the request answers 503 / 3002 and a retry under the same idempotency key answers 1012 — never
 * a second group — until reconciliation asks the Mac (our own messages since, with their chats and
 * members). Found: the group is recorded and the retry answers it. Not found once the line's window
 * has passed (the clock is moved, never slept through): the key and the line's first-touch slot
 * are free again, and the retry creates it. A running reconciler does that when the window ends
 * (the lost answer wakes it), without waiting for its next round.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appWithBlueBubblesLine } from '../support/bluebubbles-line.js';
import type { TestApp } from '../support/app.js';
import type { StandIn } from '../drivers/bluebubbles/standin.js';
import { eventually } from '../support/messaging.js';
import { sample } from '../support/metrics-text.js';

const METRICS_TOKEN = 'metrics-group-creation-timeout';

describe('a BlueBubbles group creation that times out', () => {
  let t: TestApp;
  let bb: StandIn;
  let lineId: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ t, bb, lineId, close } = await appWithBlueBubblesLine({ timeout_ms: 300 }, { METRICS_TOKEN }));
  });
  afterAll(async () => close());

  const groupSends = async () => {
    const text = (await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).body;
    return { sent: sample(text, 'blueline_messages_sent_total', { kind: 'group', result: 'sent' }), failed: sample(text, 'blueline_messages_sent_total', { kind: 'group', result: 'failed' }) };
  };

  const body = (members: string[], key: string) => ({ to: members, message: { parts: [{ type: 'text', value: 'Welcome, team' }] }, phone_line_id: lineId, idempotency_key: key });
  const groupsWith = (member: string) => [...bb.chats.values()].filter((c) => c.style === 43 && c.participants.includes(member));

  it('created on the Mac: recorded once reconciliation finds it, and the retry answers that group', async () => {
    const members = ['+14155550681', '+14155550682'];
    const before = await groupSends();
    bb.inject('POST /api/v1/chat/new', { storeThenHangMs: 3_000 });
    const first = await t.api('POST', '/api/v1/chats', body(members, 'bb-group-1'));
    expect(first.statusCode, first.body).toBe(503);
    expect(first.json().error).toMatchObject({ code: 3002, retryable: true });
    expect(first.json().error.message).toMatch(/same idempotency_key/);
    expect(groupsWith(members[0]!)).toHaveLength(1);

    const early = await t.api('POST', '/api/v1/chats', body(members, 'bb-group-1'));
    expect(early.statusCode, early.body).toBe(409);
    expect(early.json().error.code).toBe(1012);
    expect(bb.requestsTo('POST', '/api/v1/chat/new')).toHaveLength(1);
    // Not counted while nobody knows whether the group exists.
    expect(await groupSends()).toEqual(before);

    const swept = await t.services.sendReconciler.sweep();
    expect(swept.groups).toMatchObject({ recorded: 1 });
    expect(await groupSends()).toEqual({ sent: before.sent + 1, failed: before.failed });
    // Asked the Mac for our messages since, across chats, with each chat and its members.
    const queries = bb.requestsTo('POST', '/api/v1/message/query').map((r) => r.json);
    expect(queries).toContainEqual(expect.objectContaining({ with: ['chat', 'chat.participants'], sort: 'ASC' }));

    const again = await t.api('POST', '/api/v1/chats', body(members, 'bb-group-1'));
    expect(again.statusCode, again.body).toBe(201);
    const { chat, message } = again.json();
    const [onMac] = groupsWith(members[0]!);
    expect(chat.handles.sort()).toEqual([...members].sort());
    expect(chat.phone_line_id).toBe(lineId);
    expect(message).toMatchObject({ chat_id: chat.id, status: 'sent', parts: [{ type: 'text', value: 'Welcome, team' }] });
    expect((await t.testStore.store.chats.getChat((await t.testStore.store.lines.get(lineId))!.tenant_id, chat.id))?.chat_key).toBe(onMac!.guid);
    // The message carries the Mac's guid: a reaction to it reaches the message BlueBubbles has.
    const stored = [...bb.messages.values()].find((m) => m.chatGuid === onMac!.guid)!;
    const reacted = await t.api('POST', `/api/v1/messages/${message.id}/react`, { reaction: 'like' });
    expect(reacted.statusCode, reacted.body).toBe(200);
    expect(bb.lastTo('POST', '/api/v1/message/react').json.selectedMessageGuid).toBe(stored.guid);
    expect(groupsWith(members[0]!)).toHaveLength(1);
    expect(bb.requestsTo('POST', '/api/v1/chat/new')).toHaveLength(1);
  });

  it('not created: after the window the key and the line are free again, and the retry creates it once', async () => {
    t.clock.advance(11 * 60_000);
    const members = ['+14155550683', '+14155550684'];
    bb.inject('POST /api/v1/chat/new', { hangMs: 3_000 });
    const first = await t.api('POST', '/api/v1/chats', body(members, 'bb-group-2'));
    expect(first.statusCode, first.body).toBe(503);
    expect(groupsWith(members[0]!)).toHaveLength(0);
    expect((await t.api('POST', '/api/v1/chats', body(members, 'bb-group-2'))).json().error.code).toBe(1012);

    // Past the line's window (twice its 300 ms timeout) the Mac's answer is final: no such group.
    t.clock.advance(1_000);
    const before = await groupSends();
    expect((await t.services.sendReconciler.sweep()).groups).toMatchObject({ recorded: 0, dropped: 1, pending: 0 });
    expect(await groupSends()).toEqual({ sent: before.sent, failed: before.failed + 1 });
    // No clock move: the line's first-touch slot was given back with the key.
    const again = await t.api('POST', '/api/v1/chats', body(members, 'bb-group-2'));
    expect(again.statusCode, again.body).toBe(201);
    expect(groupsWith(members[0]!)).toHaveLength(1);
    expect(again.json().chat.handles.sort()).toEqual([...members].sort());
  });

  it('a subscriber hears what the sweep recorded: message.sent for the group found, message.failed when the Mac failed its first message', async () => {
    expect((await t.api('POST', '/api/v1/webhook-subscriptions', { url: 'https://dev-inbox', events: ['message.sent', 'message.failed'] })).statusCode).toBe(201);
    const since = new Date(t.clock.now()).toISOString();
    const inbox = async () =>
      (await t.api('GET', `/api/v1/dev-inbox?since=${encodeURIComponent(since)}`, undefined, { tenant: 'demo' })).json().events as { type: string; payload: { data: { message: { id: string; status: string; error_code: number | null } } } }[];

    // The Mac's clock reads the service's (moved) one, as a synced Mac's would.
    bb.now = () => t.clock.now();
    // Found: its first message went out, which no answer said.
    t.clock.advance(11 * 60_000);
    bb.inject('POST /api/v1/chat/new', { storeThenHangMs: 3_000 });
    const found = await t.api('POST', '/api/v1/chats', body(['+14155550687', '+14155550688'], 'bb-group-4'));
    expect(found.statusCode, found.body).toBe(503);
    expect(await inbox()).toEqual([]);
    expect((await t.services.sendReconciler.sweep()).groups).toMatchObject({ recorded: 1 });
    const recorded = await t.api('POST', '/api/v1/chats', body(['+14155550687', '+14155550688'], 'bb-group-4'));
    expect(recorded.statusCode, recorded.body).toBe(201);
    const sent = await inbox();
    expect(sent.map((e) => e.type)).toEqual(['message.sent']);
    expect(sent[0]!.payload.data.message).toMatchObject({ id: recorded.json().message.id, status: 'sent' });

    // Found, but Messages could not deliver its first message to a member (error 22): failed, 4001.
    t.clock.advance(11 * 60_000);
    bb.notDelivered.add('+14155550689');
    try {
      bb.inject('POST /api/v1/chat/new', { storeThenHangMs: 3_000 });
      const failed = await t.api('POST', '/api/v1/chats', body(['+14155550689', '+14155550690'], 'bb-group-5'));
      expect(failed.statusCode, failed.body).toBe(503);
      expect((await t.services.sendReconciler.sweep()).groups).toMatchObject({ recorded: 1 });
    } finally {
      bb.notDelivered.delete('+14155550689');
    }
    const answered = await t.api('POST', '/api/v1/chats', body(['+14155550689', '+14155550690'], 'bb-group-5'));
    expect(answered.statusCode, answered.body).toBe(201);
    expect(answered.json().message).toMatchObject({ status: 'failed', error_code: 4001 });
    const events = await inbox();
    expect(events.map((e) => e.type)).toEqual(['message.sent', 'message.failed']);
    expect(events[1]!.payload.data.message).toMatchObject({ id: answered.json().message.id, status: 'failed', error_code: 4001 });
    // A second sweep finds nothing left to record, and tells nobody again.
    expect((await t.services.sendReconciler.sweep()).groups).toMatchObject({ recorded: 0, pending: 0 });
    expect(await inbox()).toHaveLength(2);
    bb.now = Date.now;
  });

  it('unknown to the Mac: pending (1012) within the window, dropped when it ends by the sweep it wakes (key and line free again)', async () => {
    t.clock.advance(11 * 60_000);
    // A longer timeout: the window (twice it, 2 s) leaves time to look before it ends.
    expect((await t.admin('PATCH', `/admin/v1/lines/${lineId}`, { driver_config: bb.config({ timeout_ms: 1_000 }) })).statusCode).toBe(200);
    const reconciler = t.services.sendReconciler;
    await reconciler.start();
    try {
      const members = ['+14155550685', '+14155550686'];
      bb.inject('POST /api/v1/chat/new', { hangMs: 3_000 });
      const first = await t.api('POST', '/api/v1/chats', body(members, 'bb-group-3'));
      expect(first.statusCode, first.body).toBe(503);

      // Within the window the Mac's "no such group" is not final: the intent stays, the key in progress.
      expect((await reconciler.sweep()).groups).toMatchObject({ recorded: 0, dropped: 0, pending: 1 });
      const early = await t.api('POST', '/api/v1/chats', body(members, 'bb-group-3'));
      expect(early.statusCode, early.body).toBe(409);
      expect(early.json().error.code).toBe(1012);

      // No sweep by hand from here: the one the lost answer woke for the window's end drops it.
      // 20 s: room for a loaded machine, still well before the periodic sweep (a minute) could.
      const left = await eventually(() => t.testStore.store.groupCreations.pending(10), (l) => l.length === 0, 20_000);
      expect(left).toEqual([]);
      // No clock move: the key is free and the line's first-touch slot was given back.
      const again = await t.api('POST', '/api/v1/chats', body(members, 'bb-group-3'));
      expect(again.statusCode, again.body).toBe(201);
      expect(groupsWith(members[0]!)).toHaveLength(1);
      expect(bb.requestsTo('POST', '/api/v1/chat/new').filter((r) => (r.json.addresses as string[]).includes(members[0]!))).toHaveLength(2);
    } finally {
      await reconciler.stop();
    }
  });
});
