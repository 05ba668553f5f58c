/**
 * Reactions on the message view (GET /api/v1/messages/{id}, a chat's messages): the tenant's
 * own through POST /react (`me`), a contact's through the simulator's inbound injection, one
 * per person (a new tapback replaces theirs, a removal takes it off, a late removal of another
 * leaves it), and no event of any kind for a tapback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { prepareSandbox } from '../support/messaging.js';

describe.each(STORE_KINDS)('reactions (%s)', (kind) => {
  let t: TestApp;
  let line: string;
  const CONTACT = '+14155550188';
  beforeAll(async () => {
    t = await startTestApp(kind);
    await prepareSandbox(t);
    line = t.demo.phone_line_ids[0]!;
  });
  afterAll(async () => {
    await t?.close();
  });

  const inject = (body: Record<string, unknown>) => t.admin('POST', `/admin/v1/lines/${line}/simulate/inbound`, { from: CONTACT, ...body });
  const reactionsOf = async (id: string) => {
    const res = await t.api('GET', `/api/v1/messages/${id}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().message.reactions as { reaction: string; from: string; at: string }[];
  };
  const events = async () => (await t.api('GET', '/api/v1/events?limit=100', undefined, { tenant: 'demo' })).json().events as unknown[];

  it("records the project's own tapbacks as `me`: one at a time, removable", async () => {
    expect((await inject({ text: 'Do you have it in blue?' })).statusCode).toBe(202);
    const chat = (await t.api('GET', '/api/v1/chats?q=550188')).json().chats[0];
    const id = chat.last_message.id as string;
    expect(await reactionsOf(id)).toEqual([]);

    expect((await t.api('POST', `/api/v1/messages/${id}/react`, { reaction: 'love' })).statusCode).toBe(200);
    expect(await reactionsOf(id)).toEqual([{ reaction: 'love', from: 'me', at: expect.any(String) }]);
    // A new tapback replaces ours; it is in the chat's history too.
    await t.api('POST', `/api/v1/messages/${id}/react`, { reaction: 'like' });
    expect(await reactionsOf(id)).toEqual([{ reaction: 'like', from: 'me', at: expect.any(String) }]);
    const page = (await t.api('GET', `/api/v1/chats/${chat.chat.id}/messages`)).json();
    expect(page.messages.find((m: { id: string }) => m.id === id).reactions).toEqual([{ reaction: 'like', from: 'me', at: expect.any(String) }]);
    await t.api('POST', `/api/v1/messages/${id}/react`, { reaction: 'like', remove: true });
    expect(await reactionsOf(id)).toEqual([]);
  });

  it("records a contact's tapback on our message from the simulator, and no event for it", async () => {
    const sent = await t.api('POST', '/api/v1/send', { phone: CONTACT, body: 'It is! Shall I hold one?', phone_line_id: line });
    expect(sent.statusCode, sent.body).toBe(200);
    const id = sent.json().message_id as string;
    const before = (await events()).length;

    expect((await inject({ reaction: { message_id: id, reaction: 'laugh' } })).statusCode).toBe(202);
    t.clock.advance(1000);
    await t.api('POST', `/api/v1/messages/${id}/react`, { reaction: 'emphasize' });
    expect(await reactionsOf(id)).toEqual([
      { reaction: 'laugh', from: CONTACT, at: expect.any(String) },
      { reaction: 'emphasize', from: 'me', at: expect.any(String) },
    ]);
    // A late removal of a tapback the contact no longer has leaves theirs; the right one takes it off.
    await inject({ reaction: { message_id: id, reaction: 'love', remove: true } });
    expect((await reactionsOf(id)).map((r) => r.from)).toEqual([CONTACT, 'me']);
    await inject({ reaction: { message_id: id, reaction: 'laugh', remove: true } });
    expect(await reactionsOf(id)).toEqual([{ reaction: 'emphasize', from: 'me', at: expect.any(String) }]);

    // Tapbacks are no messages: no message.received (nor any event), no new chat message.
    expect((await events()).length).toBe(before);
    const chatId = sent.json().chat_id as string;
    const texts = (await t.api('GET', `/api/v1/chats/${chatId}/messages`)).json().messages.map((m: { parts: { value?: string }[] }) => m.parts[0]?.value);
    expect(texts.filter((x: string | undefined) => x === undefined)).toEqual([]);
  });

  it('refuses a simulated tapback on an unknown message, or with text', async () => {
    const unknown = await inject({ reaction: { message_id: 'msg_nope', reaction: 'like' } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe(2003);
    const sent = (await t.api('GET', '/api/v1/chats?q=550188')).json().chats[0].last_message.id;
    const both = await inject({ text: 'hi', reaction: { message_id: sent, reaction: 'like' } });
    expect(both.statusCode).toBe(409);
    expect(both.json().error.code).toBe(1011);
    expect((await inject({ reaction: { message_id: sent, reaction: 'wink' } })).statusCode).toBe(400);
  });
});
