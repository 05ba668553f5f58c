/**
 * A contact's edit in the sandbox: the simulator's inbound injection takes `edit` (a message the
 * contact sent, and its new text), as a BlueBubbles Mac reports one. The message reads with its
 * new text and its edit time, a subscription to message.edited hears it once, and what Messages
 * would not let happen is refused: someone else's message or the line's own (2003), an edit more
 * than 15 minutes after the message (1012), an edit with text, parts or a tapback (1011).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { prepareSandbox } from '../support/messaging.js';

describe.each(STORE_KINDS)("a contact's edit through the simulator (%s)", (kind) => {
  let t: TestApp;
  let line: string;
  const CONTACT = '+14155550191';
  beforeAll(async () => {
    t = await startTestApp(kind);
    await prepareSandbox(t);
    line = t.demo.phone_line_ids[0]!;
    expect((await t.api('POST', '/api/v1/webhook-subscriptions', { url: 'https://dev-inbox', events: ['message.received', 'message.edited'] })).statusCode).toBe(201);
  });
  afterAll(async () => t?.close());

  const inject = (body: Record<string, unknown>, from = CONTACT) => t.admin('POST', `/admin/v1/lines/${line}/simulate/inbound`, { from, ...body });
  const receive = async (text: string, from = CONTACT) => {
    const res = await inject({ text }, from);
    expect(res.statusCode, res.body).toBe(202);
    return (await t.testStore.store.messages.byProviderGuid(line, res.json().guid))!.id;
  };
  const inbox = async (since: number) =>
    (await t.api('GET', `/api/v1/dev-inbox?since=${encodeURIComponent(new Date(since).toISOString())}`, undefined, { tenant: 'demo' })).json().events as {
      type: string;
      payload: { data: { message: { id: string; parts: { type: string; value?: string }[]; edited_at: string | null; sender_handle: string } } };
    }[];

  it('replaces the text, records when, and a message.edited subscription hears it once', async () => {
    const id = await receive('See you at 3');
    const since = t.clock.now();
    t.clock.advance(60_000);
    const editedFrom = t.clock.now();
    const edited = await inject({ edit: { message_id: id, text: 'See you at 4' } });
    expect(edited.statusCode, edited.body).toBe(202);
    const message = (await t.api('GET', `/api/v1/messages/${id}`)).json().message;
    expect(message).toMatchObject({ id, direction: 'inbound', parts: [{ type: 'text', value: 'See you at 4' }] });
    // When the contact edited it: the service's (moved) clock at the edit.
    expect(Date.parse(message.edited_at)).toBeGreaterThanOrEqual(editedFrom);
    expect(Date.parse(message.edited_at)).toBeLessThanOrEqual(t.clock.now());
    // The answer names the message's own guid: an edit is no new message.
    expect((await t.testStore.store.messages.byProviderGuid(line, edited.json().guid))?.id).toBe(id);
    const events = await inbox(since);
    expect(events.map((e) => e.type)).toEqual(['message.edited']);
    expect(events[0]!.payload.data.message).toMatchObject({ id, sender_handle: CONTACT, parts: [{ type: 'text', value: 'See you at 4' }] });
  });

  it("refuses what Messages would not let happen: another person's message, the line's own, too late, or with more in it", async () => {
    const mine = await receive('Is it in stock?');
    const theirs = await receive('Me too', '+14155550192');
    const other = await inject({ edit: { message_id: theirs, text: 'Changed' } });
    expect([other.statusCode, other.json().error.code]).toEqual([404, 2003]);
    expect((await inject({ edit: { message_id: 'msg_nope', text: 'Changed' } })).json().error.code).toBe(2003);
    const sent = await t.api('POST', '/api/v1/send', { phone: CONTACT, body: 'It is', phone_line_id: line });
    expect(sent.statusCode, sent.body).toBe(200);
    expect((await inject({ edit: { message_id: sent.json().message_id, text: 'Changed' } })).json().error.code).toBe(2003);

    const withText = await inject({ text: 'hi', edit: { message_id: mine, text: 'Changed' } });
    expect([withText.statusCode, withText.json().error.code]).toEqual([409, 1011]);
    expect((await inject({ reaction: { message_id: mine, reaction: 'like' }, edit: { message_id: mine, text: 'Changed' } })).json().error.code).toBe(1011);
    expect((await inject({ edit: { message_id: mine, text: '' } })).statusCode).toBe(400);

    t.clock.advance(15 * 60_000 + 1_000);
    const late = await inject({ edit: { message_id: mine, text: 'Changed' } });
    expect([late.statusCode, late.json().error.code]).toEqual([409, 1012]);
    expect(late.json().error.message).toMatch(/15 minutes/);
    // Nothing refused changed the messages.
    for (const id of [mine, theirs]) expect((await t.api('GET', `/api/v1/messages/${id}`)).json().message.edited_at).toBeNull();
  });
});
