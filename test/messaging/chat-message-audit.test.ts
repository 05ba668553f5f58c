/**
 * Chats and existing messages as an API user exercises them, on both stores: the chat list shows
 * a group the line left, an edit to only whitespace is refused, group creation checks
 * parallel_attachments as a direct chat does, edits and tapbacks go out only through a line that
 * sends, and the edit window's edge (exactly 15:00 after the send) is inside it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { deviceLog, firstTouch, newRecipient, prepareSandbox } from '../support/messaging.js';

describe.each(STORE_KINDS)('chats and messages audit (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
    await prepareSandbox(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  const text = (value: string) => ({ type: 'text', value });
  const createChat = (body: object) => {
    t.clock.advance(11 * 60_000);
    return t.api('POST', '/api/v1/chats', body);
  };
  const edit = (id: string, body: unknown) => t.api('POST', `/api/v1/messages/${id}/edit`, body);
  const react = (id: string, body: unknown) => t.api('POST', `/api/v1/messages/${id}/react`, body);
  const getMessage = async (id: string) => (await t.api('GET', `/api/v1/messages/${id}`)).json().message;

  it('shows left_at in GET /api/v1/chats for a group the line left, as the chat view does', async () => {
    const created = await createChat({ to: [newRecipient(), newRecipient()], message: { parts: [text('hello group')] } });
    expect(created.statusCode, created.body).toBe(201);
    const group = created.json().chat;
    const left = await t.api('POST', `/api/v1/chats/${group.id}/leave`);
    expect(left.statusCode, left.body).toBe(200);
    const leftAt = left.json().chat.left_at as string;
    expect(Date.parse(leftAt)).toBeGreaterThan(0);

    const list = await t.api('GET', '/api/v1/chats?limit=200');
    expect(list.statusCode).toBe(200);
    const entry = list.json().chats.find((c: { chat: { id: string } }) => c.chat.id === group.id);
    expect(entry.chat.left_at).toBe(leftAt);
    // A group still in use says nothing of leaving.
    const other = (await createChat({ to: [newRecipient(), newRecipient()], message: { parts: [text('still here')] } })).json().chat;
    const listed = (await t.api('GET', '/api/v1/chats?limit=200')).json().chats.find((c: { chat: { id: string } }) => c.chat.id === other.id);
    expect(listed.chat).not.toHaveProperty('left_at');
  });

  it('refuses an edit to only whitespace (1002): nothing reaches the device and the text stays', async () => {
    const sent = (await firstTouch(t, { phone: newRecipient(), body: 'Meet at 5' })).json();
    const before = (await deviceLog(t, sent.phone_line_id)).length;
    for (const blank of ['   ', '\n\t ', '\u00a0']) {
      const res = await edit(sent.message_id, { new_text: blank });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toMatchObject({ code: 1002, retryable: false });
    }
    expect((await deviceLog(t, sent.phone_line_id)).length).toBe(before);
    expect(await getMessage(sent.message_id)).toMatchObject({ status: expect.not.stringMatching(/^edited$/), parts: [text('Meet at 5')], edited_at: null });
    // Text with spaces around it is an edit like any other.
    const ok = await edit(sent.message_id, { new_text: '  Meet at 6 ' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().new_text).toBe('  Meet at 6 ');
  });

  it('refuses parallel_attachments at group creation with one text part (1002), as on a direct chat, creating nothing', async () => {
    const members = [newRecipient(), newRecipient()];
    const logs = async () => (await Promise.all(t.demo.phone_line_ids.map((id) => deviceLog(t, id)))).flat().length;
    const before = await logs();
    const res = await createChat({ to: members, message: { parts: [text('Team chat')], parallel_attachments: true } });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toMatchObject({ code: 1002, message: expect.stringContaining('parallel_attachments needs 2 or more media parts') });
    const direct = await createChat({ to: newRecipient(), message: { parts: [text('Hi')], parallel_attachments: true } });
    expect(direct.json().error.code).toBe(1002);
    expect(await logs()).toBe(before);
    const found = (await t.api('GET', `/api/v1/chats?q=${encodeURIComponent(members[0]!.slice(1))}`)).json().chats;
    expect(found).toEqual([]);
    // Without the flag (or with false) the same group is created.
    const created = await createChat({ to: members, message: { parts: [text('Team chat')], parallel_attachments: false } });
    expect(created.statusCode, created.body).toBe(201);
  });

  it('edits and tapbacks go out only through a line that sends: 3002 on an inactive line or one without send, nothing reaches it', async () => {
    const sent = (await firstTouch(t, { phone: newRecipient(), body: 'on this line' })).json();
    const line = sent.phone_line_id as string;
    const attempts = async () => [await edit(sent.message_id, { new_text: 'edited' }), await react(sent.message_id, { reaction: 'like' })];
    for (const [change, undo] of [
      [{ is_active: false }, { is_active: true }],
      [{ capabilities: ['imessage', 'receive'] }, { capabilities: ['imessage', 'send', 'receive'] }],
    ] as const) {
      expect((await t.admin('PATCH', `/admin/v1/lines/${line}`, change)).statusCode).toBe(200);
      try {
        const before = (await deviceLog(t, line)).length;
        for (const res of await attempts()) {
          expect(res.statusCode, res.body).toBe(503);
          expect(res.json().error).toMatchObject({ code: 3002, retryable: true });
        }
        expect((await deviceLog(t, line)).length).toBe(before);
        const m = await getMessage(sent.message_id);
        expect(m).toMatchObject({ parts: [text('on this line')], edited_at: null, reactions: [] });
      } finally {
        expect((await t.admin('PATCH', `/admin/v1/lines/${line}`, undo)).statusCode).toBe(200);
      }
    }
    // Sending again, the same message takes both.
    for (const res of await attempts()) expect(res.statusCode, res.body).toBe(200);
  });

  it('edits exactly 15:00 after the send, and not a millisecond later (4001)', async () => {
    const phone = newRecipient();
    await firstTouch(t, { phone, body: 'first' });
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      const sent = await t.api('POST', '/api/v1/send', { phone, body: 'window' });
      expect(sent.statusCode, sent.body).toBe(200);
      const id = sent.json().message_id as string;
      expect(Date.parse((await getMessage(id)).sent_at)).toBe(t.clock.now());
      t.clock.advance(15 * 60_000);
      const edge = await edit(id, { new_text: 'at 15:00' });
      expect(edge.statusCode, edge.body).toBe(200);
      t.clock.advance(1);
      const late = await edit(id, { new_text: 'at 15:00.001' });
      expect(late.statusCode, late.body).toBe(502);
      expect(late.json().error).toMatchObject({ code: 4001, retryable: true });
    } finally {
      vi.useRealTimers();
    }
  });
});
