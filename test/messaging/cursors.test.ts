/**
 * A cursor is opaque: anything but a next_cursor the list gave is 400 / 1002 on both stores,
 * also when it decodes to a time no column can hold (PostgreSQL answered 500 / 3001).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { firstTouch, newRecipient, prepareSandbox } from '../support/messaging.js';

const cursorOf = (text: string) => Buffer.from(text).toString('base64url');
// Each with a well-formed id, so only the number is wrong (and two with no id at all).
const FORGED = ['1.5', '1e20', '99999999999999999999', '-1', ' 1', ''].map((n) => cursorOf(`${n}|msg_01M86SD8JS2YTQ4SAT0YE25D7Z`)).concat(cursorOf('1|'), cursorOf('garbage'));

describe.each(STORE_KINDS)('list cursors (%s)', (kind) => {
  let t: TestApp;
  let chatId: string;
  beforeAll(async () => {
    t = await startTestApp(kind);
    await prepareSandbox(t);
    chatId = (await firstTouch(t, { phone: newRecipient(), body: 'one' })).json().chat_id;
  });
  afterAll(async () => t.close());

  it('refuses a forged chat-messages cursor with 1002', async () => {
    for (const cursor of FORGED) {
      const res = await t.api('GET', `/api/v1/chats/${chatId}/messages?cursor=${cursor}`);
      expect({ cursor, status: res.statusCode, code: res.json().error?.code }).toEqual({ cursor, status: 400, code: 1002 });
    }
  });

  it('refuses a forged chat-list cursor with 1002', async () => {
    for (const cursor of FORGED) {
      const res = await t.api('GET', `/api/v1/chats?cursor=${cursor}`);
      expect({ cursor, status: res.statusCode, code: res.json().error?.code }).toEqual({ cursor, status: 400, code: 1002 });
    }
  });

  it('still pages with the cursors it gives, to the end', async () => {
    await firstTouch(t, { phone: newRecipient(), body: 'two' });
    const first = (await t.api('GET', '/api/v1/chats?limit=1')).json();
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = (await t.api('GET', `/api/v1/chats?limit=1&cursor=${first.next_cursor}`)).json();
    expect(second.chats).toHaveLength(1);
    expect(second.chats[0].chat.id).not.toBe(first.chats[0].chat.id);
    expect(second.next_cursor).toBeNull();
  });
});
