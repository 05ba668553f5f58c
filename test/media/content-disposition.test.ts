/**
 * The filename of GET /api/v1/attachments/{id}/content, as clients read it: a strict RFC 8187
 * reader of `filename*` gets the exact name back, and a client that reads only `filename`
 * (curl -OJ, older libraries) gets a plain ASCII name rather than none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { prepareSandbox } from '../support/messaging.js';
import { fileBytes } from '../support/files.js';

/** RFC 8187 ext-value, strictly (value-chars = pct-encoded / attr-char), as the `content-disposition` package reads it. */
function strictFilenameStar(header: string): string | undefined {
  const m = /;\s*filename\*=([^;]*)/i.exec(header);
  if (!m) return undefined;
  const ext = /^UTF-8'[A-Za-z-]*'((?:%[0-9A-Fa-f]{2}|[A-Za-z0-9!#$&+.^_`|~-])+)$/.exec(m[1]!.trim());
  if (!ext) throw new Error(`invalid extended field value: ${m[1]}`);
  return Buffer.from(ext[1]!.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8');
}

/** What curl -J takes: the first plain `filename=` parameter, quotes stripped (no unescaping). */
function plainFilename(header: string): string | undefined {
  const m = /;\s*filename=("([^"]*)"|[^;\s]*)/i.exec(header);
  return m ? (m[2] ?? m[1]) : undefined;
}

describe('the filename of a downloaded attachment', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await prepareSandbox(t);
  });
  afterAll(async () => t.close());

  const download = async (filename: string) => {
    const bytes = fileBytes('image/png', 10);
    const slot = await t.api('POST', '/api/v1/attachments', { filename, content_type: 'image/png', size_bytes: bytes.length });
    expect(slot.statusCode, slot.body).toBe(200);
    const id = slot.json().attachment_id as string;
    const put = await t.request({
      method: 'PUT',
      url: `/api/v1/attachments/${id}/upload`,
      payload: bytes,
      headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': 'image/png' },
    });
    expect(put.statusCode, put.body).toBe(200);
    const res = await t.api('GET', `/api/v1/attachments/${id}/content`);
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(bytes)).toBe(true);
    return res.headers['content-disposition'] as string;
  };

  it.each([
    ['photo (1).png', 'photo (1).png'],
    ["Bob's photo*.png", "Bob's photo*.png"],
    ['say "cheese".png', 'say _cheese_.png'],
    ['naïve café 😀.png', 'na_ve caf_ _.png'],
    ['a\r\nSet-Cookie: x=1.png', 'a__Set-Cookie: x=1.png'],
    ['50%20off;filename=evil.png', '50_20off;filename=evil.png'],
    ['../../etc\\passwd.png', '.._.._etc_passwd.png'],
  ])('%j: exact in filename*, a plain ASCII stand-in in filename', async (name, plain) => {
    const header = await download(name);
    expect(header).toMatch(/^attachment; /);
    expect(header).not.toMatch(/[\r\n]/);
    expect(strictFilenameStar(header)).toBe(name);
    expect(plainFilename(header)).toBe(plain);
  });

  it('a plain name is the same in both', async () => {
    expect(await download('report.pdf.png')).toBe(`attachment; filename="report.pdf.png"; filename*=UTF-8''report.pdf.png`);
  });
});
