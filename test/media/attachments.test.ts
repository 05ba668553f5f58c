import http from 'node:http';
import { fileBytes } from '../support/files.js';
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
  const uploaded = async (bytes = fileBytes('image/png', 2048), type = 'image/png', filename = 'photo.png') => {
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
    // A bearer token of the slot's own, never the caller's signing secret.
    expect(s.required_headers).toEqual({ authorization: expect.stringMatching(/^Bearer bl_up_[A-Za-z0-9_-]{43}$/), 'content-type': 'image/png' });
    expect(s.required_headers.authorization).not.toContain(t.demo.signing_secret);
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
    // No body: nothing says it is the file (OpenAPI documents the 416 without content).
    expect([bad.headers['content-type'], bad.headers['content-disposition'], bad.body]).toEqual([undefined, undefined, '']);
    // An invalid range (last before first) is ignored (RFC 9110 §14.2): the whole file.
    const invalid = await t.request({ method: 'GET', url: `/api/v1/attachments/${id}/content`, headers: { authorization: `Bearer ${t.demo.signing_secret}`, range: 'bytes=5-2' } });
    expect(invalid.statusCode).toBe(200);
    expect(invalid.rawPayload.equals(bytes)).toBe(true);
    // The range unit is case-insensitive (RFC 9110 §14.1): `Bytes=` is the same range.
    const upper = await t.request({ method: 'GET', url: `/api/v1/attachments/${id}/content`, headers: { authorization: `Bearer ${t.demo.signing_secret}`, range: 'Bytes=100-199' } });
    expect(upper.statusCode).toBe(206);
    expect(upper.rawPayload.equals(bytes.subarray(100, 200))).toBe(true);
  });

  it('takes the upload by bearer only, with the declared type and size', async () => {
    const s = await slot();
    const body = fileBytes('image/png', 2048);
    const hmac = await t.request({
      method: 'PUT', url: `/api/v1/attachments/${s.attachment_id}/upload`, payload: body,
      headers: { 'content-type': 'image/png', 'x-service-signature': signRequest(t.demo.signing_secret, body.toString('latin1')), 'x-service-tenant': 'demo' },
    });
    // Credentials were sent, just not a kind this route takes: 2004 (invalid), not 2012 (missing).
    expect(hmac.statusCode).toBe(401);
    expect(hmac.json().error).toMatchObject({ code: 2004, message: expect.stringContaining('bearer') });
    // With no credentials at all, the answer names only what this route takes.
    const none = await t.request({ method: 'PUT', url: `/api/v1/attachments/${s.attachment_id}/upload`, payload: body, headers: { 'content-type': 'image/png' } });
    expect(none.json().error).toMatchObject({ code: 2012, message: 'send Authorization: Bearer <secret>' });
    expect((await put(s.attachment_id, body, { 'content-type': 'image/jpeg' })).json().error.code).toBe(1002);
    expect((await put(s.attachment_id, fileBytes('image/png', 1000))).json().error.code).toBe(1002);
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
    const chunked = await send({ 'transfer-encoding': 'chunked' }, [fileBytes('image/png', 500), fileBytes('image/png', 500)]);
    expect(chunked.status).toBe(411);
    expect(JSON.parse(chunked.body).error.code).toBe(1001);
    // The client dies after half the declared bytes.
    await new Promise<void>((resolve) => {
      const req = http.request(`${address}/api/v1/attachments/${s.attachment_id}/upload`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': 'image/png', 'content-length': '1000' },
      });
      req.on('error', () => resolve());
      req.write(fileBytes('image/png', 500), () => setTimeout(() => req.destroy(), 50));
      req.on('close', () => resolve());
    });
    await new Promise((r) => setTimeout(r, 100));
    const meta = (await t.api('GET', `/api/v1/attachments/${s.attachment_id}`)).json().attachment;
    expect(meta.uploaded_at).toBeNull();
    expect((await t.api('GET', `/api/v1/attachments/${s.attachment_id}/content`)).json().error.code).toBe(5004);
    const whole = await send({ 'content-length': '1000' }, [fileBytes('image/png', 1000)]);
    expect(whole.status).toBe(200);
    expect(JSON.parse(whole.body).attachment.size_bytes).toBe(1000);
  });

  it('makes expired slots unusable and keeps tenants apart', async () => {
    const s = await slot();
    t.clock.advance(15 * 60_000 + 1);
    const late = await put(s.attachment_id, fileBytes('image/png', 2048));
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

    const a = await uploaded(fileBytes('image/jpeg', 3000), 'image/jpeg', 'a.jpg');
    const b = await uploaded(fileBytes('image/webp', 4000), 'image/webp', 'b.webp');
    const grouped = await t.api('POST', `/api/v1/chats/${sent.chat_id}/messages`, {
      message: { parts: [{ type: 'text', value: 'two pics' }, { type: 'media', attachment_id: a.id }, { type: 'media', attachment_id: b.id }] },
      parallel_attachments: true,
    });
    expect(grouped.statusCode, grouped.body).toBe(200);
    const after = await deviceLog(t, sent.phone_line_id);
    expect(after[0]).toMatchObject({ kind: 'media_group', parts: [{ attachment_id: a.id }, { attachment_id: b.id }] });
    expect(after[1]).toMatchObject({ kind: 'text', text: 'two pics' });

    const pdf = await uploaded(fileBytes('application/pdf', 100), 'application/pdf', 'doc.pdf');
    const mixed = await t.api('POST', `/api/v1/chats/${sent.chat_id}/messages`, {
      message: { parts: [{ type: 'media', attachment_id: a.id }, { type: 'media', attachment_id: pdf.id }] },
      parallel_attachments: true,
    });
    expect(mixed.json().error).toMatchObject({ code: 1002, attachment_index: 1 });
  });
  it('takes MIME types in any case, and stores and reports them in lower case', async () => {
    const s = await slot({ content_type: 'image/PNG', size_bytes: 512 });
    expect(s.required_headers['content-type']).toBe('image/png');
    const bytes = fileBytes('image/png', 512);
    // The PUT's Content-Type is compared case-insensitively and without parameters.
    const res = await put(s.attachment_id, bytes, { 'content-type': 'Image/Png; charset=binary' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().attachment.content_type).toBe('image/png');
    expect((await t.api('GET', `/api/v1/attachments/${s.attachment_id}`)).json().attachment.content_type).toBe('image/png');
    const content = await t.api('GET', `/api/v1/attachments/${s.attachment_id}/content`);
    expect(content.headers['content-type']).toBe('image/png');
    expect(content.rawPayload.equals(bytes)).toBe(true);
    // A type that differs in more than case is still refused.
    const other = await slot({ content_type: 'IMAGE/JPEG', size_bytes: 512 });
    expect((await put(other.attachment_id, bytes, { 'content-type': 'image/png' })).json().error.code).toBe(1002);
  });

  it('refuses bytes that are not the declared type (1002, naming what they look like), keeps nothing, and the slot takes the right bytes after', async () => {
    const jpeg = fileBytes('image/jpeg', 2048);
    const s = await slot({ size_bytes: jpeg.length });
    const wrong = await put(s.attachment_id, jpeg);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error).toMatchObject({ code: 1002, message: 'the uploaded bytes are not image/png: they begin like image/jpeg; nothing was kept' });
    const junk = await put(s.attachment_id, Buffer.alloc(2048, 0x41));
    expect(junk.json().error.message).toBe('the uploaded bytes are not image/png: their first bytes match none of the supported types; nothing was kept');
    expect((await t.api('GET', `/api/v1/attachments/${s.attachment_id}/content`)).json().error.code).toBe(5004);
    expect((await firstTouch(t, { phone: newRecipient(), attachments: [s.attachment_id] })).json()).toMatchObject({ code: 5004 });
    const png = fileBytes('image/png', 2048);
    expect((await put(s.attachment_id, png)).statusCode).toBe(200);
    expect((await t.api('GET', `/api/v1/attachments/${s.attachment_id}/content`)).rawPayload.equals(png)).toBe(true);
    // A file shorter than the bytes the check reads is checked whole.
    const tiny = await slot({ size_bytes: 10 });
    expect((await put(tiny.attachment_id, Buffer.from('not a png!'))).json().error.code).toBe(1002);
    expect((await put(tiny.attachment_id, fileBytes('image/png', 10))).statusCode).toBe(200);
  });

  it('answers reads of an expired attachment 404/5001 like a send does, uploaded or never uploaded', async () => {
    const { id } = await uploaded();
    const pending = await slot();
    const read = (url: string) => t.api('GET', url);
    t.clock.advance(15 * 60_000 + 1);
    // The never-uploaded slot is gone for good: 5001 (expired), not 5004 (not uploaded yet).
    for (const url of [`/api/v1/attachments/${pending.attachment_id}`, `/api/v1/attachments/${pending.attachment_id}/content`]) {
      const res = await read(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error).toMatchObject({ code: 5001, message: expect.stringContaining('expired') });
    }
    // The uploaded one lives for its retention period, then answers as a send would.
    expect((await read(`/api/v1/attachments/${id}`)).statusCode).toBe(200);
    const expiresAt = Date.parse((await read(`/api/v1/attachments/${id}`)).json().attachment.expires_at);
    t.clock.advance(expiresAt - t.clock.now() - 1_000);
    expect((await read(`/api/v1/attachments/${id}/content`)).statusCode).toBe(200);
    t.clock.advance(1_000);
    for (const url of [`/api/v1/attachments/${id}`, `/api/v1/attachments/${id}/content`]) {
      const res = await read(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error).toMatchObject({ code: 5001, message: expect.stringContaining('has expired') });
    }
    const send = await firstTouch(t, { phone: newRecipient(), attachments: [id] });
    expect(send.json()).toMatchObject({ code: 5001, attachment_index: 0 });
  });

  it('keeps inbound media (in_…) readable for its 30 days, then answers 5001 like uploads', async () => {
    const image = fileBytes('image/png', 700);
    const line = t.demo.phone_line_ids[0]!;
    const inbound = await t.admin('POST', `/admin/v1/lines/${line}/simulate/inbound`, {
      from: '+14155550177',
      parts: [{ type: 'media', filename: 'in.png', mime_type: 'image/png', content_base64: image.toString('base64') }],
    });
    expect(inbound.statusCode, inbound.body).toBe(202);
    const events = await t.api('GET', '/api/v1/events?limit=1', undefined, { tenant: 'demo' });
    const id = /in_[0-9a-f]{32}/.exec(events.body)?.[0];
    expect(id, events.body).toBeDefined();
    t.clock.advance(30 * 86_400_000 - 60_000);
    const meta = await t.api('GET', `/api/v1/attachments/${id}`);
    expect(meta.statusCode, meta.body).toBe(200);
    expect((await t.api('GET', `/api/v1/attachments/${id}/content`)).rawPayload.equals(image)).toBe(true);
    t.clock.advance(60_000);
    for (const url of [`/api/v1/attachments/${id}`, `/api/v1/attachments/${id}/content`]) {
      expect((await t.api('GET', url)).json().error?.code, url).toBe(5001);
    }
  });

  it('reports an inbound media type as the API reports types: lower case, no parameters; not a type at all → application/octet-stream', async () => {
    const line = t.demo.phone_line_ids[0]!;
    const typeOf = async (mime_type: string) => {
      await t.admin('POST', `/admin/v1/lines/${line}/simulate/inbound`, {
        from: '+14155550178',
        parts: [{ type: 'media', filename: 'in.bin', mime_type, content_base64: fileBytes('image/jpeg', 300).toString('base64') }],
      });
      const event = (await t.api('GET', '/api/v1/events?limit=1', undefined, { tenant: 'demo' })).json().events[0];
      const part = event.payload.data.message.parts[0];
      const meta = (await t.api('GET', `/api/v1/attachments/${part.attachment_id}`)).json().attachment;
      const content = await t.api('GET', `/api/v1/attachments/${part.attachment_id}/content`);
      return [part.mime_type, meta.content_type, content.headers['content-type']];
    };
    expect(await typeOf('Image/JPEG; charset=binary')).toEqual(['image/jpeg', 'image/jpeg', 'image/jpeg']);
    expect(await typeOf('NOT A MIME')).toEqual(['application/octet-stream', 'application/octet-stream', 'application/octet-stream']);
  });

  describe('the upload token in required_headers', () => {
    const putWith = (s: { upload_url: string; attachment_id: string }, authorization: string, bytes: Buffer) =>
      t.request({
        method: 'PUT',
        url: new URL(s.upload_url).pathname,
        payload: bytes,
        headers: { authorization, 'content-type': 'image/png' },
      });

    it('uploads to its own slot, exactly as the response says to', async () => {
      const s = await slot({ size_bytes: 1024 });
      const bytes = fileBytes('image/png', 1024);
      const res = await putWith(s, s.required_headers.authorization, bytes);
      expect(res.statusCode, res.body).toBe(200);
      expect((await t.api('GET', `/api/v1/attachments/${s.attachment_id}/content`)).rawPayload.equals(bytes)).toBe(true);
      // Once used, the slot is done: the same token gets the usual 409.
      expect((await putWith(s, s.required_headers.authorization, bytes)).json().error.code).toBe(1012);
    });

    it('is handed to HMAC callers too, who never send their secret at all', async () => {
      const body = JSON.stringify({ filename: 'h.png', content_type: 'image/png', size_bytes: 300 });
      const res = await t.request({
        method: 'POST', url: '/api/v1/attachments', payload: body,
        headers: { 'content-type': 'application/json', 'x-service-signature': signRequest(t.demo.signing_secret, body), 'x-service-tenant': 'demo' },
      });
      expect(res.statusCode, res.body).toBe(200);
      const s = res.json();
      expect(s.required_headers.authorization).toMatch(/^Bearer bl_up_/);
      expect(s.required_headers.authorization).not.toContain(t.demo.signing_secret);
      expect((await putWith(s, s.required_headers.authorization, fileBytes('image/png', 300))).statusCode).toBe(200);
    });

    it('works for no other slot, no other route, and not past the slot expiry (401/2004)', async () => {
      const a = await slot({ size_bytes: 100 });
      const b = await slot({ size_bytes: 100 });
      const wrongSlot = await putWith(b, a.required_headers.authorization, fileBytes('image/png', 100));
      expect(wrongSlot.statusCode).toBe(401);
      expect(wrongSlot.json().error.code).toBe(2004);
      const token = a.required_headers.authorization.slice('Bearer '.length);
      const otherRoute = await t.api('GET', `/api/v1/attachments/${a.attachment_id}`, undefined, { secret: token });
      expect(otherRoute.json().error.code).toBe(2004);
      t.clock.advance(15 * 60_000 + 1);
      const late = await putWith(a, a.required_headers.authorization, fileBytes('image/png', 100));
      expect(late.statusCode).toBe(401);
      expect(late.json().error.code).toBe(2004);
      // Neither slot took any bytes.
      for (const s of [a, b]) expect((await t.api('GET', `/api/v1/attachments/${s.attachment_id}`)).json().error.code).toBe(5001);
    });

    it('is never written to the logs', async () => {
      const s = await slot({ size_bytes: 64 });
      const token = s.required_headers.authorization.slice('Bearer '.length);
      await putWith(s, s.required_headers.authorization, fileBytes('image/png', 10)); // a failure, logged with its request
      await putWith(s, s.required_headers.authorization, fileBytes('image/png', 64));
      const other = await slot({ size_bytes: 64 });
      await putWith(other, s.required_headers.authorization, fileBytes('image/png', 64)); // 2004, logged
      expect(t.logs.length).toBeGreaterThan(0);
      expect(t.logs.join('')).not.toContain(token);
    });
  });
});
