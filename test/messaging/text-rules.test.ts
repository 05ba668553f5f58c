/**
 * What a text sent to a recipient must be, on every route that sends one (a /send body, a chat
 * message's text part, an edit's new text): not blank, well-formed Unicode without NUL. JSON can
 * carry a lone surrogate (`"\ud800"`) or a NUL (`"\u0000"`) that a Mac would turn into U+FFFD or
 * cut the text at; nothing of it may reach the line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { allDeviceLogs, firstTouch, newRecipient, prepareSandbox } from '../support/messaging.js';

describe('texts a line is given', () => {
  let t: TestApp;
  let phone: string;
  let chatId: string;
  let messageId: string;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await prepareSandbox(t);
    phone = newRecipient();
    const first = (await firstTouch(t, { phone, body: 'hello' })).json();
    [chatId, messageId] = [first.chat_id, first.message_id];
  });
  afterAll(async () => t.close());

  const refusals: [string, string, string][] = [
    ['only spaces', ' \n\t ', 'is empty'],
    ['a lone high surrogate', 'hi \ud800', 'is not valid Unicode'],
    ['a lone low surrogate', '\udc00 hi', 'is not valid Unicode'],
    ['a NUL', 'cut \u0000 here', 'contains a NUL character'],
  ];

  it.each(refusals)('refuses a text with %s on all three routes, and sends nothing', async (_, text, says) => {
    const before = (await allDeviceLogs(t)).length;
    const send = await t.api('POST', '/api/v1/send', { phone, body: text });
    expect(send.statusCode).toBe(400);
    expect(send.json()).toMatchObject({ status: 'failed', code: 1002, retryable: false });
    expect(send.json().reason).toContain(`body ${says}`);

    const part = await t.api('POST', `/api/v1/chats/${chatId}/messages`, { message: { parts: [{ type: 'text', value: text }] } });
    expect(part.statusCode).toBe(400);
    // A blank part is a missing value, this route's 1003; the others are invalid values.
    expect(part.json().error.code).toBe(says === 'is empty' ? 1003 : 1002);

    const edit = await t.api('POST', `/api/v1/messages/${messageId}/edit`, { new_text: text });
    expect(edit.statusCode).toBe(400);
    expect(edit.json().error).toMatchObject({ code: 1002 });
    expect(edit.json().error.message).toContain(`new_text ${says}`);
    expect((await allDeviceLogs(t)).length).toBe(before);
  });

  it('sends emoji (surrogate pairs), accents and inner spaces as written', async () => {
    const text = '  café 👋🏽 — ok  ';
    const sent = await t.api('POST', '/api/v1/send', { phone, body: text });
    expect(sent.json(), sent.body).toMatchObject({ status: 'sent' });
    const edited = await t.api('POST', `/api/v1/messages/${sent.json().message_id}/edit`, { new_text: `${text}!` });
    expect(edited.json()).toMatchObject({ status: 'edited', new_text: `${text}!` });
    const texts = (await allDeviceLogs(t)).map((e) => e.text);
    expect(texts).toEqual(expect.arrayContaining([text, `${text}!`]));
  });
});
