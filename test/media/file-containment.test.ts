/**
 * A stored file is someone else's bytes served from the console's origin: a contact's inbound
 * "text/html" without a filename must download, never render as a page that runs script with the
 * signed-in console's session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

describe('serving a stored file', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(async () => t.close());

  it('always as a download, its type never sniffed, and inert if a browser renders it anyway (200 and 206)', async () => {
    const lineId = t.demo.phone_line_ids[0]!;
    const page = '<script>fetch("/api/v1/console/session")</script><h1>hello</h1>';
    const sent = await t.admin('POST', `/admin/v1/lines/${lineId}/simulate/inbound`, {
      from: '+14155550177',
      parts: [{ type: 'media', mime_type: 'text/html', content_base64: Buffer.from(page).toString('base64') }],
    });
    expect(sent.statusCode, sent.body).toBe(202);
    const message = await t.testStore.store.messages.byProviderGuid(lineId, sent.json().guid);
    const part = message!.parts[0] as { attachment_id: string; filename?: string };
    expect(part.filename).toBeUndefined();
    for (const range of [undefined, 'bytes=0-9']) {
      const res = await t.request({ method: 'GET', url: `/api/v1/attachments/${part.attachment_id}/content`, headers: { authorization: `Bearer ${t.demo.signing_secret}`, ...(range && { range }) } });
      expect(res.statusCode).toBe(range ? 206 : 200);
      expect(res.headers['content-type']).toBe('text/html');
      expect(res.headers['content-disposition']).toBe('attachment');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toBe("sandbox; default-src 'none'");
    }
  });
});
