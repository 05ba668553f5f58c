/**
 * Issue 16 item 11: removing a participant, renaming a group, leaving it — through the
 * simulator (its device log shows each) and through a BlueBubbles line (the stand-in answers
 * BlueBubbles' own chat routes), with the participant route's error rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { deviceLog, newRecipient } from '../support/messaging.js';
import { SIMULATOR_RECIPIENTS } from '../../src/drivers/simulator/reserved.js';
import type { StandIn } from '../drivers/bluebubbles/standin.js';
import { appWithBlueBubblesLine } from '../support/bluebubbles-line.js';

const text = (value: string) => ({ type: 'text', value });
type GroupChat = { id: string; phone_line_id: string; handles: string[]; display_name: string | null };

describe('group management', () => {
  let t: TestApp;
  let bb: StandIn;
  let bbLine: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ t, bb, lineId: bbLine, close } = await appWithBlueBubblesLine());
  });
  afterAll(async () => close());

  async function group(members: string[], over: object = {}): Promise<GroupChat> {
    t.clock.advance(11 * 60_000);
    const res = await t.api('POST', '/api/v1/chats', { to: members, message: { parts: [text('hello group')] }, ...over });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().chat;
  }
  const simGroup = (members = [newRecipient(), newRecipient(), newRecipient()]) => group(members, { phone_line_id: t.demo.phone_line_ids[0] });
  const remove = (id: string, address: string) => t.api('DELETE', `/api/v1/chats/${id}/participants/${encodeURIComponent(address)}`);
  const rename = (id: string, body: object) => t.api('PATCH', `/api/v1/chats/${id}`, body);
  const leave = (id: string) => t.api('POST', `/api/v1/chats/${id}/leave`);

  describe('through the simulator', () => {
    it('removes a participant: the device does it once, the roster shows it, removing again is a no-op', async () => {
      const g = await simGroup();
      expect(t.demo.phone_line_ids).toContain(g.phone_line_id);
      const gone = g.handles[1]!;
      const res = await remove(g.id, gone);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ chat_id: g.id, removed: gone, participants: g.handles.filter((h) => h !== gone) });
      expect((await remove(g.id, gone)).json()).toEqual(res.json());
      const log = await deviceLog(t, g.phone_line_id);
      expect(log.filter((e) => e.kind === 'remove_participant' && e.chat_key !== undefined && e.handle === gone)).toHaveLength(1);
      // The chat view (the chat list) shows the roster without them.
      const listed = (await t.api('GET', '/api/v1/chats?limit=100')).json();
      const found = (listed.chats ?? listed.data ?? []).find((c: GroupChat) => c.id === g.id);
      if (found) expect(found.handles).not.toContain(gone);
    });

    it('answers the participant rules: 1003, 1006, 2002, 4001, 4099/422', async () => {
      const g = await simGroup([newRecipient(), SIMULATOR_RECIPIENTS.rejectsParticipantRemove]);
      expect((await remove(g.id, 'not a phone')).json().error.code).toBe(1003);
      t.clock.advance(11 * 60_000);
      const direct = (await t.api('POST', '/api/v1/chats', { to: newRecipient(), message: { parts: [text('d')] } })).json().chat;
      const onDirect = await remove(direct.id, direct.handles[0]);
      expect(onDirect.statusCode).toBe(400);
      expect(onDirect.json().error.code).toBe(1006);
      expect((await rename(direct.id, { display_name: 'x' })).json().error.code).toBe(1006);
      expect((await leave(direct.id)).json().error.code).toBe(1006);
      for (const res of [await remove('ch_' + 'f'.repeat(32), '+14155550001'), await rename('ch_' + 'f'.repeat(32), { display_name: 'x' }), await leave('ch_' + 'f'.repeat(32))]) {
        expect(res.statusCode).toBe(404);
        expect(res.json().error.code).toBe(2002);
      }
      const rejected = await remove(g.id, SIMULATOR_RECIPIENTS.rejectsParticipantRemove);
      expect(rejected.statusCode).toBe(502);
      expect(rejected.json().error).toMatchObject({ code: 4001, retryable: true });
      expect((await t.api('GET', `/api/v1/chats/${g.id}/messages`)).statusCode).toBe(200);
      // A group known only from inbound traffic: no chat key, no line.
      const tenant = (await t.admin('GET', '/admin/v1/tenants/demo')).json().tenant;
      const keyless = 'ch_' + 'b'.repeat(32);
      await t.testStore.store.chats.ensureChat({
        id: keyless, tenant_id: tenant.id, is_group: true, lead_id: null, line_id: null,
        convo_id: '00000000-0000-4000-8000-000000000001', chat_key: null, display_name: null, created_at: 0,
      });
      await t.testStore.store.chats.addParticipant(keyless, '+14155550001', 0);
      for (const res of [await remove(keyless, '+14155550001'), await rename(keyless, { display_name: 'x' }), await leave(keyless)]) {
        expect(res.statusCode).toBe(422);
        expect(res.json().error.code).toBe(4099);
      }
      expect((await rename(g.id, {})).json().error.code).toBe(1001);
    });

    it('renames the group on the device and in the chat view; the same name again reaches no device', async () => {
      const g = await simGroup();
      const res = await rename(g.id, { display_name: '  Launch crew ' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().chat).toMatchObject({ id: g.id, is_group: true, display_name: 'Launch crew' });
      await rename(g.id, { display_name: 'Launch crew' });
      const log = await deviceLog(t, g.phone_line_id);
      expect(log.filter((e) => e.kind === 'rename_group' && e.display_name === 'Launch crew')).toHaveLength(1);
      // Lengths are code points, as the contract counts them: 200 emoji is 200 characters.
      const emoji = '\u{1F600}'.repeat(200);
      expect((await rename(g.id, { display_name: emoji })).statusCode).toBe(200);
      const over = await rename(g.id, { display_name: emoji + 'x' });
      expect(over.json().error).toMatchObject({ code: 1002 });
    });

    it('leaves the group: left_at in the chat view, the history stays, nothing more goes in', async () => {
      const g = await simGroup();
      const res = await leave(g.id);
      expect(res.statusCode, res.body).toBe(200);
      const { chat } = res.json();
      expect(Date.parse(chat.left_at)).toBeGreaterThan(0);
      expect((await leave(g.id)).json().chat.left_at).toBe(chat.left_at);
      const log = await deviceLog(t, g.phone_line_id);
      expect(log.filter((e) => e.kind === 'leave_group')).toHaveLength(1);
      const history = (await t.api('GET', `/api/v1/chats/${g.id}/messages`)).json().messages;
      expect(history.map((m: { parts: unknown[] }) => m.parts[0])).toEqual([text('hello group')]);
      for (const after of [
        await t.api('POST', `/api/v1/chats/${g.id}/messages`, { message: { parts: [text('still there?')] } }),
        await t.api('POST', `/api/v1/chats/${g.id}/participants`, { address: newRecipient() }),
        await remove(g.id, g.handles[0]!),
        await rename(g.id, { display_name: 'new name' }),
      ]) {
        expect(after.statusCode, after.body).toBe(422);
        expect(after.json().error.code).toBe(4099);
      }
      expect((await deviceLog(t, g.phone_line_id)).length).toBe(log.length);
    });
  });

  describe('through a BlueBubbles line', () => {
    it('removes, renames and leaves with the routes and bodies BlueBubbles Server takes', async () => {
      const members = [newRecipient(), newRecipient(), newRecipient()];
      const g = await group(members, { phone_line_id: bbLine });
      expect(g.phone_line_id).toBe(bbLine);
      const chatGuid = bb.lastTo('POST', '/api/v1/chat/new') && [...bb.chats.values()].find((c) => c.participants.includes(members[0]!))!.guid;

      const removed = await remove(g.id, members[2]!);
      expect(removed.statusCode, removed.body).toBe(200);
      expect(bb.lastTo('POST', `/api/v1/chat/${chatGuid}/participant/remove`).json).toEqual({ address: members[2] });
      expect(bb.chats.get(chatGuid)!.participants).toEqual(members.slice(0, 2));
      expect(removed.json().participants).toEqual(members.slice(0, 2));

      const renamed = await rename(g.id, { display_name: 'Deal room' });
      expect(renamed.statusCode, renamed.body).toBe(200);
      expect(bb.lastTo('PUT', `/api/v1/chat/${chatGuid}`).json).toEqual({ displayName: 'Deal room' });
      expect(bb.chats.get(chatGuid)!.displayName).toBe('Deal room');
      expect(renamed.json().chat.display_name).toBe('Deal room');

      const left = await leave(g.id);
      expect(left.statusCode, left.body).toBe(200);
      expect(bb.requestsTo('POST', `/api/v1/chat/${chatGuid}/leave`)).toHaveLength(1);
      expect(bb.left.has(chatGuid)).toBe(true);
      expect(left.json().chat.left_at).toBeTruthy();
    });

    it('answers 4099 (not 5xx) when the Private API is off, and 4001 when the Mac refuses', async () => {
      const members = [newRecipient(), newRecipient()];
      const g = await group(members, { phone_line_id: bbLine });
      bb.unreachable.add(members[1]!);
      const refused = await remove(g.id, members[1]!);
      expect(refused.statusCode, refused.body).toBe(502);
      expect(refused.json().error.code).toBe(4001);
      bb.privateApi = false;
      try {
        await t.admin('PATCH', `/admin/v1/lines/${bbLine}`, { driver_config: bb.config({ private_api: false }) });
        const off = await rename(g.id, { display_name: 'nope' });
        expect(off.json().error.code, off.body).toBe(4099);
        expect(bb.requestsTo('PUT', `/api/v1/chat/${[...bb.chats.values()].find((c) => c.participants.includes(members[0]!))!.guid}`)).toHaveLength(0);
      } finally {
        bb.privateApi = true;
        await t.admin('PATCH', `/admin/v1/lines/${bbLine}`, { driver_config: bb.config() });
      }
    });
  });
});
