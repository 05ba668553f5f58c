/**
 * 1005: a first message into a new chat carries no URL. What counts as one is what a phone turns
 * into a link: any scheme, www., an IP address, a bare domain under a country code or a common
 * generic top-level domain. An e-mail address, a version number or a sentence missing a space is not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUrl } from '../../src/domain/messaging/urls.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { deviceLog, newRecipient, prepareSandbox } from '../support/messaging.js';

describe('what a first message may not contain', () => {
  it.each([
    ['see https://example.com/offer', 'https://example.com/offer'],
    ['HTTP://EXAMPLE.COM', 'HTTP://EXAMPLE.COM'],
    ['files at ftp://files.example.de/x', 'ftp://files.example.de/x'],
    ['visit www.example.org today', 'www.example.org'],
    ['192.168.1.1:8080/x is the box', '192.168.1.1:8080/x'],
    ['see 10.0.0.1/x', '10.0.0.1/x'],
    ['see example.de/offer', 'example.de/offer'],
    ['go to shop.example.edu.', 'shop.example.edu.'],
    ['our site: acme.co.uk', 'acme.co.uk'],
    ['Book at Example.Travel now', 'Example.Travel'],
    ['bücher.de hat es', 'bücher.de'],
    ['(see example.io)', 'example.io)'],
    ['a link: my-shop.store/sale?x=1', 'my-shop.store/sale?x=1'],
  ])('finds a URL in %j', (text, found) => {
    expect(findUrl(text)).toBe(found);
  });

  it.each([
    'mail me at a@b.co',
    'write to jane.doe@example.com please',
    'version 1.2.3 is out',
    'call 415.555.0100',
    'it costs 3.50, ok?',
    'see you at 5.30',
    'Done.Thanks!',
    'Node.js and file.txt',
    'hello',
    'e.g. tomorrow, i.e. Friday',
    '1.2.3.4.5 is not an address',
  ])('finds none in %j', (text) => {
    expect(findUrl(text)).toBeUndefined();
  });
});

describe('1005 on the two routes that start a chat', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await prepareSandbox(t);
  });
  afterAll(async () => t.close());

  it('refuses the URLs a phone would link, names what it found, and writes nothing', async () => {
    for (const value of ['192.168.1.1:8080/x', 'see example.de/offer', 'go to shop.example.edu']) {
      const phone = newRecipient();
      t.clock.advance(11 * 60_000);
      const chat = await t.api('POST', '/api/v1/chats', { to: phone, message: { parts: [{ type: 'text', value }] } });
      expect(chat.statusCode, value).toBe(400);
      expect(chat.json().error).toMatchObject({ code: 1005, retryable: false });
      expect(chat.json().error.message).toContain(`text part 0 contains "${value.split(' ').at(-1)}"`);
      const send = await t.api('POST', '/api/v1/send', { phone, body: value });
      expect(send.json()).toMatchObject({ status: 'failed', code: 1005, lead_created: false, lead_id: null });
      expect(send.json().reason).toContain('body contains');
    }
  });

  it('sends a first message that only mentions an e-mail address, and links once the chat exists', async () => {
    const phone = newRecipient();
    t.clock.advance(11 * 60_000);
    const first = await t.api('POST', '/api/v1/send', { phone, body: 'mail me at jane.doe@example.com' });
    expect(first.json(), first.body).toMatchObject({ status: 'sent', lead_created: true });
    const later = await t.api('POST', '/api/v1/send', { phone, body: 'the offer: example.de/offer' });
    expect(later.json()).toMatchObject({ status: 'sent' });
    const texts = (await deviceLog(t, first.json().phone_line_id)).map((e) => e.text);
    expect(texts).toEqual(expect.arrayContaining(['mail me at jane.doe@example.com', 'the offer: example.de/offer']));
  });
});
