import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { deviceLog, newRecipient, prepareSandbox, uploadedImage } from '../support/messaging.js';
import { SIMULATOR_RECIPIENTS } from '../../src/drivers/simulator/reserved.js';

describe('chats', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await prepareSandbox(t);
  });
  afterAll(async () => t.close());

  const createChat = (body: object) => {
    t.clock.advance(11 * 60_000);
    return t.api('POST', '/api/v1/chats', body);
  };
  const text = (value: string) => ({ type: 'text', value });

  it('creates a direct chat whose id is the lead id', async () => {
    const phone = newRecipient();
    const res = await createChat({ to: phone, message: { parts: [text('Welcome!')] } });
    expect(res.statusCode).toBe(201);
    const { chat, message } = res.json();
    expect(chat).toMatchObject({ is_group: false, handles: [phone] });
    expect(chat.id).toBe(chat.lead_id);
    expect(message).toMatchObject({ chat_id: chat.id, direction: 'outbound', status: 'sent', parts: [text('Welcome!')] });
    const viaSend = (await t.api('POST', '/api/v1/send', { phone, body: 'same chat' })).json();
    expect(viaSend.chat_id).toBe(chat.id);
  });

  it('creates a group with a ch_ id, its roster and the pinned line', async () => {
    const members = [newRecipient(), newRecipient()];
    const res = await createChat({ to: members, message: { parts: [text('Team chat')] }, display_name: 'Team' });
    expect(res.statusCode).toBe(201);
    const { chat } = res.json();
    expect(chat.id).toMatch(/^ch_[0-9a-f]{32}$/);
    expect(chat).toMatchObject({ is_group: true, display_name: 'Team' });
    expect(chat.handles.sort()).toEqual([...members].sort());
    const log = await deviceLog(t, chat.phone_line_id);
    expect(log.find((e) => e.kind === 'create_group')).toMatchObject({ kind: 'create_group', handles: members, text: 'Team chat' });
    // The name is the device's too (a rename right after the creation), not only the chat view's.
    expect(log.filter((e) => e.kind === 'rename_group')).toEqual([expect.objectContaining({ display_name: 'Team' })]);
  });

  it("names a group at creation by the rename's rule: trimmed, code points, 1002 when empty or too long", async () => {
    const members = [newRecipient(), newRecipient()];
    const res = await createChat({ to: members, message: { parts: [text('Named')] }, display_name: '  Launch crew \n' });
    expect(res.statusCode, res.body).toBe(201);
    const { chat } = res.json();
    expect(chat.display_name).toBe('Launch crew');
    const log = await deviceLog(t, chat.phone_line_id);
    expect(log.filter((e) => e.chat_key !== undefined && e.kind === 'rename_group').slice(0, 1)).toEqual([expect.objectContaining({ display_name: 'Launch crew' })]);
    // A rename to the same name after trimming is the no-op it is for an untrimmed rename.
    const renamed = await t.api('PATCH', `/api/v1/chats/${chat.id}`, { display_name: 'Launch crew ' });
    expect(renamed.json().chat.display_name).toBe('Launch crew');
    expect((await deviceLog(t, chat.phone_line_id)).filter((e) => e.kind === 'rename_group' && e.display_name === 'Launch crew')).toHaveLength(1);

    // 200 emoji are 200 characters, as for a rename; one more is refused the same way by both routes.
    const emoji = '\u{1F600}'.repeat(200);
    const long = await createChat({ to: [newRecipient(), newRecipient()], message: { parts: [text('Long')] }, display_name: emoji });
    expect(long.statusCode, long.body).toBe(201);
    expect(long.json().chat.display_name).toBe(emoji);
    for (const name of ['   ', ' \t\n ', emoji + 'x', '']) {
      const others = [newRecipient(), newRecipient()];
      const created = await createChat({ to: others, message: { parts: [text('Nameless')] }, display_name: name });
      const rename = await t.api('PATCH', `/api/v1/chats/${chat.id}`, { display_name: name });
      expect(created.statusCode, JSON.stringify(name)).toBe(400);
      expect(created.json().error).toEqual(rename.json().error);
      expect(created.json().error.code).toBe(1002);
      // Refused before a line was asked: no group exists for these members.
      const logs = (await Promise.all(t.demo.phone_line_ids.map((id) => deviceLog(t, id)))).flat();
      expect(logs.filter((e) => e.kind === 'create_group' && (e.handles as string[]).includes(others[0]!))).toEqual([]);
    }
  });

  it('applies the first-message and part rules with the spec codes', async () => {
    const cases: [object, number][] = [
      [{ to: newRecipient(), message: { parts: [text('see https://example.com')] } }, 1005],
      [{ to: newRecipient(), message: { parts: [text('visit www.example.org today')] } }, 1005],
      [{ to: newRecipient(), message: { parts: [{ type: 'link', url: 'https://x.io' }] } }, 1005],
      [{ to: [newRecipient(), newRecipient()], message: { parts: [{ type: 'media', attachment_id: 'att_1' }] } }, 1002],
      [{ to: newRecipient(), message: { parts: Array.from({ length: 11 }, (_, i) => (i % 2 ? { type: 'media', attachment_id: `att_${i}` } : text(`t${i}`))) } }, 1006],
      [{ to: newRecipient(), message: { parts: [text('a'), text('b')] } }, 1008],
      [{ to: newRecipient(), message: { parts: [text('x'.repeat(10_001))] } }, 1009],
      [{ to: newRecipient(), message: { parts: [text('😀'.repeat(10_001))] } }, 1009],
      [{ to: newRecipient(), service: 'sms', message: { parts: [text('hi')] } }, 1010],
      [{ to: newRecipient(), message: { parts: [text('hi'), { type: 'media' }] } }, 1003],
      [{ to: 'not-a-number', message: { parts: [text('hi')] } }, 1003],
    ];
    for (const [body, code] of cases) {
      const res = await createChat(body);
      expect(res.json().error?.code, JSON.stringify(body).slice(0, 120)).toBe(code);
      expect(res.json().success).toBe(false);
    }
  });

  it('sends parts into an existing chat and lists history newest first across pages', async () => {
    const phone = newRecipient();
    const chat = (await createChat({ to: phone, message: { parts: [text('m0')] } })).json().chat;
    for (let i = 1; i <= 4; i++) {
      const res = await t.api('POST', `/api/v1/chats/${chat.id}/messages`, { message: { parts: [text(`m${i}`)] } });
      expect(res.statusCode).toBe(200);
      expect(Object.keys(res.json().message).sort()).toEqual(['chat_id', 'delivered_at', 'id', 'part_message_ids', 'status']);
      expect(res.json().message.part_message_ids).toEqual([res.json().message.id]);
    }
    await t.admin('POST', `/admin/v1/lines/${chat.phone_line_id}/simulate/inbound`, { from: phone, text: 'inbound reply' });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { messages: { parts: { value: string }[] }[]; next_cursor: string | null } = (
        await t.api('GET', `/api/v1/chats/${chat.id}/messages?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      ).json();
      expect(page.messages.length).toBeLessThanOrEqual(2);
      seen.push(...page.messages.map((m) => m.parts[0]!.value));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['inbound reply', 'm4', 'm3', 'm2', 'm1', 'm0']);
    expect((await t.api('GET', `/api/v1/chats/${chat.id}/messages?cursor=garbage`)).json().error.code).toBe(1002);
  });

  it("names each part's message, so every bubble of a multi-part send can be edited by its own id", async () => {
    const chat = (await createChat({ to: newRecipient(), message: { parts: [text('hi')] } })).json().chat;
    const [a, b, c] = [await uploadedImage(t, 'a.png'), await uploadedImage(t, 'b.png'), await uploadedImage(t, 'c.png')];
    const res = await t.api('POST', `/api/v1/chats/${chat.id}/messages`, {
      message: { parts: [text('first'), { type: 'media', attachment_id: a }, text('second')] },
    });
    expect(res.statusCode, res.body).toBe(200);
    const { id, part_message_ids: ids } = res.json().message;
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    expect(ids[2]).toBe(id); // the answer's id is the last bubble's
    const edited = await t.api('POST', `/api/v1/messages/${ids[0]}/edit`, { new_text: 'first, edited' });
    expect(edited.json()).toMatchObject({ status: 'edited', message_id: ids[0] });
    const edits = (await deviceLog(t, chat.phone_line_id)).filter((e) => e.kind === 'edit');
    expect(edits.at(-1)).toMatchObject({ message_id: ids[0], text: 'first, edited' });
    const history = (await t.api('GET', `/api/v1/chats/${chat.id}/messages`)).json().messages as { id: string; parts: { value?: string }[] }[];
    expect(history.find((m) => m.id === ids[2])!.parts[0]!.value).toBe('second');

    // Grouped images are one bubble: their parts share its id.
    const grouped = await t.api('POST', `/api/v1/chats/${chat.id}/messages`, {
      message: { parts: [text('the two'), { type: 'media', attachment_id: b }, { type: 'media', attachment_id: c }] },
      parallel_attachments: true,
    });
    expect(grouped.statusCode, grouped.body).toBe(200);
    const g = grouped.json().message.part_message_ids;
    expect(g).toHaveLength(3);
    expect(g[1]).toBe(g[2]);
    expect(g[0]).not.toBe(g[1]);
    expect(g[2]).toBe(grouped.json().message.id);
  });

  it('answers no parts as a missing field: 1001 on chat creation (as no message), 1003 on a chat message (as its missing fields)', async () => {
    for (const message of [undefined, {}, { parts: [] }]) {
      const res = await t.api('POST', '/api/v1/chats', { to: newRecipient(), ...(message && { message }) });
      expect(res.statusCode, JSON.stringify(message)).toBe(400);
      expect(res.json().error, JSON.stringify(message)).toMatchObject({ code: 1001, retryable: false });
    }
    const chat = (await createChat({ to: newRecipient(), message: { parts: [text('x')] } })).json().chat;
    for (const message of [undefined, {}, { parts: [] }]) {
      const res = await t.api('POST', `/api/v1/chats/${chat.id}/messages`, message ? { message } : {});
      expect(res.statusCode, JSON.stringify(message)).toBe(400);
      expect(res.json().error.code, JSON.stringify(message)).toBe(1003);
    }
  });

  it('checks chat message parts: missing fields 1003, parallel_attachments needs 2+ media, unknown chat 2002', async () => {
    const chat = (await createChat({ to: newRecipient(), message: { parts: [text('x')] } })).json().chat;
    const missing = await t.api('POST', `/api/v1/chats/${chat.id}/messages`, {});
    expect(missing.json().error.code).toBe(1003);
    const one = await t.api('POST', `/api/v1/chats/${chat.id}/messages`, { message: { parts: [{ type: 'media', attachment_id: 'att_1' }] }, parallel_attachments: true });
    expect(one.json().error.code).toBe(1002);
    const notUploaded = await t.api('POST', `/api/v1/chats/${chat.id}/messages`, { message: { parts: [{ type: 'media', attachment_id: 'att_nope' }] } });
    expect(notUploaded.json().error).toMatchObject({ code: 5001, attachment_index: 0 });
    expect((await t.api('POST', '/api/v1/chats/ch_0000/messages', { message: { parts: [text('x')] } })).json().error.code).toBe(2002);
  });

  it('replays chat creation under the same idempotency key and refuses a changed one', async () => {
    const phone = newRecipient();
    const body = { to: phone, message: { parts: [text('only once')] }, idempotency_key: 'chat-key-1' };
    const first = await createChat(body);
    const again = await t.api('POST', '/api/v1/chats', body);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    const collision = await t.api('POST', '/api/v1/chats', { ...body, message: { parts: [text('changed')] } });
    expect(collision.statusCode).toBe(422);
    expect(collision.json()).toMatchObject({ success: false, error: { code: 'idempotency_collision', status: 422, retryable: false } });
    // The message names what differs on this route (a chat has recipients and parts, no voice note).
    expect(collision.json().error.message).toBe('this idempotency_key was used with different recipients (to) or message parts');
  });

  it('checks effects (4098; none at group creation, 4099/422) and writes no lead for a refused creation', async () => {
    const phone = newRecipient();
    const unknown = await createChat({ to: phone, message: { parts: [text('hi')], effect: 'nope' } });
    expect(unknown.json().error).toMatchObject({ code: 4098, allowed_effects: expect.arrayContaining(['confetti']) });
    const group = await createChat({ to: [newRecipient(), newRecipient()], message: { parts: [text('hi')], effect: 'confetti' } });
    expect(group.statusCode).toBe(422);
    expect(group.json().error.code).toBe(4099);
    expect((await createChat({ to: phone, message: { parts: [text('see https://x.io')] } })).json().error.code).toBe(1005);
    expect((await createChat({ to: phone, message: { parts: [text('hi'), { type: 'media', attachment_id: 'att_nope' }] } })).json().error.code).toBe(5001);
    // None of the refusals created the lead: the first send that goes out does.
    t.clock.advance(11 * 60_000);
    const sent = await t.api('POST', '/api/v1/send', { phone, body: 'hello' });
    expect(sent.json()).toMatchObject({ status: 'sent', lead_created: true });
    // Creating the chat that now exists answers 200, not 201.
    const existing = await createChat({ to: phone, message: { parts: [text('again')] } });
    expect(existing.statusCode).toBe(200);
    expect(existing.json().chat.id).toBe(sent.json().chat_id);
  });

  it('names the part by its index in parts[] on attachment lookup errors', async () => {
    const chat = (await createChat({ to: newRecipient(), message: { parts: [text('x')] } })).json().chat;
    const res = await t.api('POST', `/api/v1/chats/${chat.id}/messages`, { message: { parts: [text('look'), { type: 'media', attachment_id: 'att_nope' }] } });
    expect(res.json().error).toMatchObject({ code: 5001, attachment_index: 1 });
  });

  it('keeps a group on its own line: an inactive line is 3002, never another line', async () => {
    const group = (await createChat({ to: [newRecipient(), newRecipient()], message: { parts: [text('ours')] } })).json().chat;
    const other = t.demo.phone_line_ids.find((id) => id !== group.phone_line_id)!;
    const before = (await deviceLog(t, other)).length;
    await t.admin('PATCH', `/admin/v1/lines/${group.phone_line_id}`, { is_active: false });
    try {
      const msg = await t.api('POST', `/api/v1/chats/${group.id}/messages`, { message: { parts: [text('anyone?')] } });
      expect(msg.statusCode).toBe(503);
      expect(msg.json().error.code).toBe(3002);
      const add = await t.api('POST', `/api/v1/chats/${group.id}/participants`, { address: '+14155550999' });
      expect(add.json().error.code).toBe(3002);
      expect((await deviceLog(t, other)).length).toBe(before);
    } finally {
      await t.admin('PATCH', `/admin/v1/lines/${group.phone_line_id}`, { is_active: true });
    }
    expect((await t.api('POST', `/api/v1/chats/${group.id}/messages`, { message: { parts: [text('back')] } })).statusCode).toBe(200);
  });

  describe('participants', () => {
    let group: { id: string; phone_line_id: string; handles: string[] };
    beforeAll(async () => {
      group = (await createChat({ to: [newRecipient(), newRecipient()], message: { parts: [text('group')] } })).json().chat;
    });
    const add = (id: string, body: object) => t.api('POST', `/api/v1/chats/${id}/participants`, body);

    it('adds a normalized address once; adding again is a no-op', async () => {
      const res = await add(group.id, { address: '+1 (415) 555-7777' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ chat_id: group.id, added: '+14155557777', participants: [...group.handles, '+14155557777'] });
      const again = await add(group.id, { handle: '+14155557777' });
      expect(again.json()).toEqual(res.json());
      const log = await deviceLog(t, group.phone_line_id);
      expect(log.filter((e) => e.kind === 'add_participant' && e.handle === '+14155557777')).toHaveLength(1);
    });

    it("refuses the group's own line as a participant (1002), and nothing reaches the device", async () => {
      const line = (await t.api('GET', '/api/v1/phone-numbers')).json().phone_numbers.find((l: { id: string }) => l.id === group.phone_line_id);
      const before = (await deviceLog(t, group.phone_line_id)).length;
      const res = await add(group.id, { address: line.phone_number });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 1002, message: `${line.phone_number} is this group's own line, which is in the group already` });
      expect((await deviceLog(t, group.phone_line_id)).length).toBe(before);
      const roster = (await add(group.id, { address: group.handles[0] })).json().participants;
      expect(roster).not.toContain(line.phone_number);
    });

    it('answers 1001, 1006, 2002, 4001 and 4099/422 as the spec says', async () => {
      expect((await add(group.id, {})).json().error.code).toBe(1001);
      expect((await add(group.id, { address: 'not a phone' })).json().error.code).toBe(1003);
      expect((await add(group.id, { address: 'x' })).json().error).toMatchObject({ code: 1003, message: "body field 'address' must be an E.164 number or an Apple ID email" });
      // An empty address is a missing one, under either name.
      for (const blank of [{ address: '' }, { address: '   ' }, { handle: '' }]) {
        expect((await add(group.id, blank)).json().error, JSON.stringify(blank)).toMatchObject({ code: 1001, message: 'address is required (handle is accepted as an alias)' });
      }
      expect((await add(group.id, { address: '+14155550001', handle: '+14155550002' })).json().error.code).toBe(1002);
      const direct = (await createChat({ to: newRecipient(), message: { parts: [text('d')] } })).json().chat;
      expect((await add(direct.id, { address: '+14155550001' })).json().error.code).toBe(1006);
      expect((await add('ch_ffffffffffffffffffffffffffffffff', { address: '+14155550001' })).json().error.code).toBe(2002);
      const rejected = await add(group.id, { address: SIMULATOR_RECIPIENTS.rejectsParticipantAdd });
      expect(rejected.statusCode).toBe(502);
      expect(rejected.json().error).toMatchObject({ code: 4001, retryable: true });
      // A group known only from inbound traffic, with no pinned line: nothing can act on it.
      const tenant = (await t.admin('GET', '/admin/v1/tenants/demo')).json().tenant;
      await t.testStore.store.chats.ensureChat({
        id: 'ch_' + 'a'.repeat(32), tenant_id: tenant.id, is_group: true, lead_id: null, line_id: null,
        convo_id: '00000000-0000-4000-8000-000000000000', chat_key: null, display_name: null, created_at: 0,
      });
      const keyless = await add('ch_' + 'a'.repeat(32), { address: '+14155550001' });
      expect(keyless.statusCode).toBe(422);
      expect(keyless.json().error.code).toBe(4099);
    });
  });
});
