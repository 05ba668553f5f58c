import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest, startTestApp, type TestApp } from '../support/app.js';
import { deviceLog, firstTouch, newRecipient, prepareSandbox } from '../support/messaging.js';

describe('attachments', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { PUBLIC_BASE_URL: 'https://api.example.test' });
    await prepareSandbox(t);
  });
  afterAll(async () => t.close());

  const slot = async (over: object = {}) => {
    const res = await t.api('POST', '/api/v1/attachments', { filename: 'photo.png', content_type: 'image/png', size_bytes: 2048, ...over });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const put = (id: string, bytes: Buffer, headers: Record<string, string> = {}) =>
    t.request({
      method: 'PUT',
      url: `/api/v1/attachments/${id}/upload`,
      payload: bytes,
      headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': 'image/png', ...headers },
    });
  const uploaded = async (bytes = randomBytes(2048), type = 'image/png', filename = 'photo.png') => {
    const s = await slot({ size_bytes: bytes.length, content_type: type, filename });
    const res = await put(s.attachment_id, bytes, { 'content-type': type });
    expect(res.statusCode, res.body).toBe(200);
    return { id: s.attachment_id as string, bytes };
  };

  it('gives an upload slot per the spec, under PUBLIC_BASE_URL, valid 15 minutes', async () => {
    const before = t.clock.now();
    const s = await slot();
    expect(Object.keys(s).sort()).toEqual(['attachment_id', 'expires_at', 'required_headers', 'upload_url']);
    expect(s.attachment_id).toMatch(/^att_[0-9a-f]{32}$/);
    expect(s.upload_url).toBe(`https://api.example.test/api/v1/attachments/${s.attachment_id}/upload`);
    expect(s.required_headers).toEqual({ authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': 'image/png' });
    expect(Date.parse(s.expires_at) - before).toBeGreaterThanOrEqual(15 * 60_000 - 1_000);
    expect(Date.parse(s.expires_at) - before).toBeLessThanOrEqual(15 * 60_000 + 1_000);
  });

  it('refuses unsupported types (5003) and files over 100 MB (5002)', async () => {
    const type = await t.api('POST', '/api/v1/attachments', { filename: 'x.exe', content_type: 'application/x-msdownload', size_bytes: 10 });
    expect(type.json().error.code).toBe(5003);
    const big = await t.api('POST', '/api/v1/attachments', { filename: 'x.mp4', content_type: 'video/mp4', size_bytes: 100 * 1024 * 1024 + 1 });
    expect(big.json().error.code).toBe(5002);
  });

  it('stores the exact bytes, serves metadata and content, and honours Range', async () => {
    const { id, bytes } = await uploaded();
    const meta = (await t.api('GET', `/api/v1/attachments/${id}`)).json().attachment;
    expect(meta).toEqual({ attachment_id: id, content_type: 'image/png', size_bytes: 2048, filename: 'photo.png', uploaded_at: expect.any(String), expires_at: expect.any(String) });
    const whole = await t.api('GET', `/api/v1/attachments/${id}/content`);
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-type']).toBe('image/png');
    expect(whole.headers['content-length']).toBe('2048');
    expect(whole.headers['content-disposition']).toContain('photo.png');
    expect(whole.rawPayload.equals(bytes)).toBe(true);
    const range = await t.request({ method: 'GET', url: `/api/v1/attachments/${id}/content`, headers: { authorization: `Bearer ${t.demo.signing_secret}`, range: 'bytes=100-199' } });
    expect(range.statusCode).toBe(206);
    expect(range.headers['content-range']).toBe('bytes 100-199/2048');
    expect(range.rawPayload.equals(bytes.subarray(100, 200))).toBe(true);
    const suffix = await t.request({ method: 'GET', url: `/api/v1/attachments/${id}/content`, headers: { authorization: `Bearer ${t.demo.signing_secret}`, range: 'bytes=-10' } });
    expect(suffix.rawPayload.equals(bytes.subarray(2038))).toBe(true);
    const bad = await t.request({ method: 'GET', url: `/api/v1/attachments/${id}/content`, headers: { authorization: `Bearer ${t.demo.signing_secret}`, range: 'bytes=5000-' } });
    expect(bad.statusCode).toBe(416);
    expect(bad.headers['content-range']).toBe('bytes */2048');
  });

  it('takes the upload by bearer only, with the declared type and size', async () => {
    const s = await slot();
    const body = randomBytes(2048);
    const hmac = await t.request({
      method: 'PUT', url: `/api/v1/attachments/${s.attachment_id}/upload`, payload: body,
      headers: { 'content-type': 'image/png', 'x-service-signature': signRequest(t.demo.signing_secret, body.toString('latin1')), 'x-service-tenant': 'demo' },
    });
    expect(hmac.statusCode).toBe(401);
    expect((await put(s.attachment_id, body, { 'content-type': 'image/jpeg' })).json().error.code).toBe(1002);
    expect((await put(s.attachment_id, randomBytes(1000))).json().error.code).toBe(1002);
    expect((await t.api('GET', `/api/v1/attachments/${s.attachment_id}/content`)).json().error.code).toBe(5004);
    expect((await put(s.attachment_id, body)).statusCode).toBe(200);
    const second = await put(s.attachment_id, body);
    expect(second.statusCode).toBe(409);
    expect(second.json().error.code).toBe(1012);
  });

  it('needs Content-Length (411/1001), keeps nothing of a cut-off upload, and the slot stays usable', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const s = await slot({ size_bytes: 1000 });
    const send = (headers: Record<string, string>, chunks: Buffer[]) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(`${address}/api/v1/attachments/${s.attachment_id}/upload`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': 'image/png', ...headers },
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        for (const c of chunks) req.write(c);
        req.end();
      });
    const chunked = await send({ 'transfer-encoding': 'chunked' }, [randomBytes(500), randomBytes(500)]);
    expect(chunked.status).toBe(411);
    expect(JSON.parse(chunked.body).error.code).toBe(1001);
    // The client dies after half the declared bytes.
    await new Promise<void>((resolve) => {
      const req = http.request(`${address}/api/v1/attachments/${s.attachment_id}/upload`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': 'image/png', 'content-length': '1000' },
      });
      req.on('error', () => resolve());
      req.write(randomBytes(500), () => setTimeout(() => req.destroy(), 50));
      req.on('close', () => resolve());
    });
    await new Promise((r) => setTimeout(r, 100));
    const meta = (await t.api('GET', `/api/v1/attachments/${s.attachment_id}`)).json().attachment;
    expect(meta.uploaded_at).toBeNull();
    expect((await t.api('GET', `/api/v1/attachments/${s.attachment_id}/content`)).json().error.code).toBe(5004);
    const whole = await send({ 'content-length': '1000' }, [randomBytes(1000)]);
    expect(whole.status).toBe(200);
    expect(JSON.parse(whole.body).attachment.size_bytes).toBe(1000);
  });

  it('makes expired slots unusable and keeps tenants apart', async () => {
    const s = await slot();
    t.clock.advance(15 * 60_000 + 1);
    const late = await put(s.attachment_id, randomBytes(2048));
    expect(late.json().error.code).toBe(1012);
    const send = await firstTouch(t, { phone: newRecipient(), attachments: [s.attachment_id] });
    expect(send.json()).toMatchObject({ code: 5001, attachment_index: 0 });

    const { id } = await uploaded();
    const other = (await t.admin('POST', '/admin/v1/accounts', { name: 'Other media' })).json();
    await t.admin('POST', '/admin/v1/tenants', { account_id: other.account.id, slug: 'other-media' });
    for (const url of [`/api/v1/attachments/${id}`, `/api/v1/attachments/${id}/content`]) {
      expect((await t.api('GET', url, undefined, { secret: other.signing_secret })).json().error.code).toBe(5001);
    }
  });

  it('sends media through /send and chats; the device log links the exact bytes', async () => {
    const pending = await slot();
    const early = await firstTouch(t, { phone: newRecipient(), attachments: [pending.attachment_id] });
    expect(early.json()).toMatchObject({ code: 5004, attachment_index: 0 });

    const photo = await uploaded();
    const sent = (await firstTouch(t, { phone: newRecipient(), body: 'a photo', attachments: [{ attachment_id: photo.id }] })).json();
    expect(sent.status).toBe('sent');
    const log = await deviceLog(t, sent.phone_line_id);
    expect(log[1]).toMatchObject({ kind: 'text', text: 'a photo' });
    expect(log[0]).toMatchObject({ kind: 'media', parts: [{ attachment_id: photo.id, mime_type: 'image/png', size_bytes: 2048 }] });
    const bytes = await t.admin('GET', (log[0]!.parts as { content_path: string }[])[0]!.content_path);
    expect(bytes.rawPayload.equals(photo.bytes)).toBe(true);

    const a = await uploaded(randomBytes(3000), 'image/jpeg', 'a.jpg');
    const b = await uploaded(randomBytes(4000), 'image/webp', 'b.webp');
    const grouped = await t.api('POST', `/api/v1/chats/${sent.chat_id}/messages`, {
      message: { parts: [{ type: 'text', value: 'two pics' }, { type: 'media', attachment_id: a.id }, { type: 'media', attachment_id: b.id }] },
      parallel_attachments: true,
    });
    expect(grouped.statusCode, grouped.body).toBe(200);
    const after = await deviceLog(t, sent.phone_line_id);
    expect(after[0]).toMatchObject({ kind: 'media_group', parts: [{ attachment_id: a.id }, { attachment_id: b.id }] });
    expect(after[1]).toMatchObject({ kind: 'text', text: 'two pics' });

    const pdf = await uploaded(randomBytes(100), 'application/pdf', 'doc.pdf');
    const mixed = await t.api('POST', `/api/v1/chats/${sent.chat_id}/messages`, {
      message: { parts: [{ type: 'media', attachment_id: a.id }, { type: 'media', attachment_id: pdf.id }] },
      parallel_attachments: true,
    });
    expect(mixed.json().error).toMatchObject({ code: 1002, attachment_index: 1 });
  });
});
