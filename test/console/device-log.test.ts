/**
 * The simulator screen's device log in words, read from the service's own log: every kind the
 * simulator driver writes (texts, edits, tapbacks both ways, group changes) reads as a sentence,
 * and a kind the screen does not know as its plain fields, never as JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { deviceLog, firstTouch, newRecipient, prepareSandbox } from '../support/messaging.js';
import { describeEntry, sentMessages, type DeviceLogEntry } from '../../console/src/screens/operator/device-log-words.js';

describe('device log in words', () => {
  let t: TestApp;
  let entries: DeviceLogEntry[];
  let phone: string;
  let members: string[];
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await prepareSandbox(t);
    phone = newRecipient();
    const sent = (await firstTouch(t, { phone, body: 'Meet at 5 by the north entrance of the station' })).json();
    const line = sent.phone_line_id as string;
    expect((await t.api('POST', `/api/v1/messages/${sent.message_id}/edit`, { new_text: 'Meet at 6' })).statusCode).toBe(200);
    expect((await t.api('POST', `/api/v1/messages/${sent.message_id}/react`, { reaction: 'love' })).statusCode).toBe(200);
    // Their message: its guid is nowhere else in the device log.
    await t.admin('POST', `/admin/v1/lines/${line}/simulate/inbound`, { from: phone, text: 'see you there' });
    const theirs = (await t.api('GET', `/api/v1/chats/${sent.chat_id}/messages`)).json().messages[0];
    expect((await t.api('POST', `/api/v1/messages/${theirs.id}/react`, { reaction: 'laugh' })).statusCode).toBe(200);
    expect((await t.api('POST', `/api/v1/messages/${theirs.id}/react`, { reaction: 'laugh', remove: true })).statusCode).toBe(200);
    // A group on the same line: created, a member added and one removed, renamed, left.
    members = [newRecipient(), newRecipient()];
    t.clock.advance(11 * 60_000);
    const group = await t.api('POST', '/api/v1/chats', { to: members, message: { parts: [{ type: 'text', value: 'hello group' }] }, phone_line_id: line });
    expect(group.statusCode, group.body).toBe(201);
    const chat = group.json().chat;
    const added = newRecipient();
    members.push(added);
    expect((await t.api('POST', `/api/v1/chats/${chat.id}/participants`, { address: added })).statusCode).toBe(200);
    expect((await t.api('DELETE', `/api/v1/chats/${chat.id}/participants/${encodeURIComponent(members[0]!)}`)).statusCode).toBe(200);
    expect((await t.api('PATCH', `/api/v1/chats/${chat.id}`, { display_name: 'Pickup crew' })).statusCode).toBe(200);
    expect((await t.api('POST', `/api/v1/chats/${chat.id}/leave`)).statusCode).toBe(200);
    entries = (await deviceLog(t, line)) as DeviceLogEntry[];
  });
  afterAll(async () => t.close());

  const words = (kind: string, i = 0) => {
    const e = entries.filter((x) => x.kind === kind)[i];
    expect(e, `a ${kind} entry`).toBeDefined();
    return describeEntry(e!, sentMessages(entries).byGuid);
  };

  it('reads every kind the simulator writes as a sentence, never as JSON', () => {
    const kinds = new Set(entries.map((e) => e.kind));
    expect([...kinds].sort()).toEqual(['add_participant', 'create_group', 'edit', 'leave_group', 'reaction', 'remove_participant', 'rename_group', 'text'].sort());
    expect(words('text')).toEqual({ to: phone, words: '“Meet at 5 by the north entrance of the station”' });
    // An edit quotes the text as it was sent; a tapback the message as it is now.
    expect(words('edit')).toEqual({ to: phone, words: 'Edited ‘Meet at 5 by the north entrance of the station’ to “Meet at 6”' });
    const [removed, laughed, loved] = [words('reaction', 0), words('reaction', 1), words('reaction', 2)];
    expect(loved).toEqual({ to: phone, words: '❤️ Loved ‘Meet at 6’' });
    expect(laughed).toEqual({ to: phone, words: '😂 Laughed at ‘see you there’' });
    expect(removed).toEqual({ to: phone, words: 'Removed 😂 from ‘see you there’' });
    expect(words('create_group')).toEqual({ to: members.slice(0, 2).join(', '), words: 'Started a group with “hello group”' });
    expect(words('add_participant').words).toBe(`Added ${members[2]} to the group`);
    expect(words('remove_participant').words).toBe(`Removed ${members[0]} from the group`);
    expect(words('rename_group').words).toBe('Named the group “Pickup crew”');
    expect(words('leave_group').words).toBe('Left the group');
    const chatKey = entries.find((e) => e.kind === 'create_group')!.chat_key;
    for (const kind of ['add_participant', 'remove_participant', 'rename_group', 'leave_group']) expect(words(kind).to).toBe(chatKey);
    for (const e of entries) expect(describeEntry(e, sentMessages(entries).byGuid).words).not.toMatch(/[{}[\]]|":/);
  });

  it('reads a kind it does not know as its plain fields, short', () => {
    const odd = { id: 'dev_x', kind: 'unsend', at: new Date().toISOString(), guid: 'sim-1', part_index: 0, detail: { reason: 'typo', notes: 'x'.repeat(300) }, tags: ['a', 'b'] };
    const { words: w } = describeEntry(odd, new Map());
    expect(w).toMatch(/^guid: sim-1 · part_index: 0 · detail reason: typo · detail notes: x+…$/);
    expect(w.length).toBeLessThanOrEqual(120);
  });
});
