/**
 * A BlueBubbles group whose first message Messages failed (stored with an error, as for a member
 * it cannot deliver to): the group exists on the Mac, so it is recorded, with its first message
 * `failed` (4001), whether the line's answer says so or reconciliation finds it after a lost answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appWithBlueBubblesLine } from '../support/bluebubbles-line.js';
import type { TestApp } from '../support/app.js';
import type { StandIn } from '../drivers/bluebubbles/standin.js';

describe('a BlueBubbles group whose first message Messages failed', () => {
  let t: TestApp;
  let bb: StandIn;
  let lineId: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ t, bb, lineId, close } = await appWithBlueBubblesLine({ timeout_ms: 300 }));
    // The Mac dates its messages by the service's moved clock (reconciliation looks from the send's time).
    bb.now = () => t.clock.now();
  });
  afterAll(async () => close());

  const body = (members: string[], key: string) => ({ to: members, message: { parts: [{ type: 'text', value: 'Welcome, team' }] }, phone_line_id: lineId, idempotency_key: key });
  const groupsWith = (member: string) => [...bb.chats.values()].filter((c) => c.style === 43 && c.participants.includes(member));
  const lookup = async (id: string) => (await t.api('GET', `/api/v1/messages/${id}`)).json().message;

  it('answered at once: the group is recorded with its first message failed', async () => {
    const members = ['+14155550691', '+14155550692'];
    bb.notDelivered.add(members[1]!);
    const res = await t.api('POST', '/api/v1/chats', body(members, 'bb-failed-first-1'));
    expect(res.statusCode, res.body).toBe(201);
    const { chat, message } = res.json();
    expect(chat.handles.sort()).toEqual([...members].sort());
    expect(message).toMatchObject({ chat_id: chat.id, status: 'failed', error_code: 4001 });
    expect(await lookup(message.id)).toMatchObject({ status: 'failed', error_code: 4001 });
    expect(groupsWith(members[0]!)).toHaveLength(1);
  });

  it('answer lost: reconciliation records the group with its first message failed, and the retry answers that', async () => {
    t.clock.advance(11 * 60_000);
    const members = ['+14155550693', '+14155550694'];
    bb.notDelivered.add(members[0]!);
    bb.inject('POST /api/v1/chat/new', { storeThenHangMs: 3_000 });
    const first = await t.api('POST', '/api/v1/chats', body(members, 'bb-failed-first-2'));
    expect(first.statusCode, first.body).toBe(503);
    t.clock.advance(1_000);
    expect((await t.services.sendReconciler.sweep()).groups).toMatchObject({ recorded: 1 });
    const again = await t.api('POST', '/api/v1/chats', body(members, 'bb-failed-first-2'));
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().message).toMatchObject({ status: 'failed', error_code: 4001 });
    expect(groupsWith(members[0]!)).toHaveLength(1);
  });
});
