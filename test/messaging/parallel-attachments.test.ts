/**
 * Grouped images (`parallel_attachments`): the recipient sees the parts in the order asked.
 * The images go as one group (spec rules 3 and 5), so the text before the first image comes
 * before the group and the text after the last one after it; text between two grouped images
 * has no place in that order and is refused before anything goes out (docs/decisions.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { deviceLog, newRecipient, prepareSandbox } from '../support/messaging.js';
import { fileBytes } from '../support/files.js';

describe('parallel_attachments keeps the parts in the order asked', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await prepareSandbox(t);
  });
  afterAll(async () => t.close());

  const text = (value: string) => ({ type: 'text', value });
  const media = (id: string) => ({ type: 'media', attachment_id: id });
  const image = async (type = 'image/jpeg') => {
    const bytes = fileBytes(type, 1500);
    const slot = (await t.api('POST', '/api/v1/attachments', { filename: 'p.img', content_type: type, size_bytes: bytes.length })).json();
    const put = await t.request({
      method: 'PUT',
      url: `/api/v1/attachments/${slot.attachment_id}/upload`,
      payload: bytes,
      headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': type },
    });
    expect(put.statusCode, put.body).toBe(200);
    return slot.attachment_id as string;
  };
  type OpenChat = { id: string; phone_line_id: string; handles: string[] };
  /** A direct chat opened with a 'hello' text. */
  const openChat = async () => {
    t.clock.advance(11 * 60_000);
    const res = await t.api('POST', '/api/v1/chats', { to: newRecipient(), message: { parts: [text('hello')] } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().chat as OpenChat;
  };
  /** What the chat's recipient got, oldest first, as short labels. */
  const seen = async (chat: OpenChat) => {
    const log = (await deviceLog(t, chat.phone_line_id)).filter((e) => e.to === chat.handles[0]).reverse();
    return log.map((e) =>
      e.kind === 'text' ? `text:${e.text}` : `${e.kind}:${(e.parts as { attachment_id: string }[]).map((p) => p.attachment_id).join('+')}`,
    );
  };

  it('sends text before the first image before the group, and text after the last image after it', async () => {
    const chat = await openChat();
    const [a, b, c] = [await image(), await image('image/png'), await image('image/webp')];
    const res = await t.api('POST', `/api/v1/chats/${chat.id}/messages`, {
      message: { parts: [text('look'), media(a), media(b), media(c), text('nice, right?')] },
      parallel_attachments: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await seen(chat)).toEqual(['text:hello', 'text:look', `media_group:${a}+${b}+${c}`, 'text:nice, right?']);
    // The answer is the last bubble: the closing text.
    const last = (await t.api('GET', `/api/v1/messages/${res.json().message.id}`)).json().message;
    expect(last.parts).toEqual([text('nice, right?')]);
  });

  it('refuses text between grouped images (1002, naming the part) and sends nothing', async () => {
    const chat = await openChat();
    const [a, b] = [await image(), await image()];
    for (const parts of [
      [media(a), text('between'), media(b)],
      [text('first'), media(a), text('between'), media(b), text('last')],
      [media(a), media(b), text('between'), media(a)],
    ]) {
      const res = await t.api('POST', `/api/v1/chats/${chat.id}/messages`, { message: { parts }, parallel_attachments: true });
      expect(res.statusCode, res.body).toBe(400);
      const between = parts.findIndex((p) => 'value' in p && p.value === 'between');
      expect(res.json().error).toMatchObject({ code: 1002, message: expect.stringContaining(`part ${between}`) });
    }
    expect(await seen(chat)).toEqual(['text:hello']);
    // Without the flag the same parts go out one by one, in the order asked.
    const res = await t.api('POST', `/api/v1/chats/${chat.id}/messages`, { message: { parts: [media(a), text('between'), media(b)] } });
    expect(res.statusCode, res.body).toBe(200);
    expect(await seen(chat)).toEqual(['text:hello', `media:${a}`, 'text:between', `media:${b}`]);
  });

  it('applies the same order rule to a direct chat created with grouped images', async () => {
    const [a, b] = [await image(), await image()];
    t.clock.advance(11 * 60_000);
    const refused = await t.api('POST', '/api/v1/chats', {
      to: newRecipient(),
      message: { parts: [media(a), text('between'), media(b)], parallel_attachments: true },
    });
    expect(refused.json().error).toMatchObject({ code: 1002, message: expect.stringContaining('part 1') });

    t.clock.advance(11 * 60_000);
    const res = await t.api('POST', '/api/v1/chats', {
      to: newRecipient(),
      message: { parts: [text('hi there'), media(a), media(b), text('bye')], parallel_attachments: true },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(await seen(res.json().chat)).toEqual([
      'text:hi there',
      `media_group:${a}+${b}`,
      'text:bye',
    ]);
  });
});

// A field of another part type (a caption as `value` on a media part, an attachment on a text
// part) was accepted and dropped: the media went out without the caption, silently.
describe("a part carrying another type's field", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await prepareSandbox(t);
  });
  afterAll(async () => t.close());

  it('is refused (1002, naming the part and the field) and nothing is sent', async () => {
    t.clock.advance(11 * 60_000);
    const opened = await t.api('POST', '/api/v1/chats', { to: newRecipient(), message: { parts: [{ type: 'text', value: 'hello' }] } });
    const chat = opened.json().chat as { id: string; phone_line_id: string };
    const before = (await deviceLog(t, chat.phone_line_id)).length;
    const bytes = fileBytes('image/png', 1500);
    const slot = (await t.api('POST', '/api/v1/attachments', { filename: 'p.png', content_type: 'image/png', size_bytes: bytes.length })).json();
    await t.request({ method: 'PUT', url: `/api/v1/attachments/${slot.attachment_id}/upload`, payload: bytes, headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': 'image/png' } });

    const cases: [object[], string, number | undefined][] = [
      [[{ type: 'media', attachment_id: slot.attachment_id, value: 'caption' }], 'media part 0 takes no value: a caption is a text part of its own', 0],
      [[{ type: 'text', value: 'see this' }, { type: 'media', attachment_id: slot.attachment_id, value: 'x' }], 'media part 1 takes no value', 1],
      [[{ type: 'text', value: 'x', attachment_id: slot.attachment_id }], 'text part 0 takes no attachment_id', undefined],
      [[{ type: 'rich_link', url: 'https://example.com', value: 'Example' }], 'rich_link part 0 takes no value', undefined],
    ];
    for (const [parts, says, index] of cases) {
      const res = await t.api('POST', `/api/v1/chats/${chat.id}/messages`, { message: { parts } });
      expect(res.statusCode, JSON.stringify(parts)).toBe(400);
      expect(res.json().error).toMatchObject({ code: 1002, message: expect.stringContaining(says) });
      expect(res.json().error.attachment_index).toBe(index);
    }
    expect((await deviceLog(t, chat.phone_line_id)).length).toBe(before);
    // The same parts, each field where it belongs, go out.
    const ok = await t.api('POST', `/api/v1/chats/${chat.id}/messages`, { message: { parts: [{ type: 'media', attachment_id: slot.attachment_id }, { type: 'text', value: 'caption' }] } });
    expect(ok.statusCode, ok.body).toBe(200);
  });
});
