/**
 * Request bodies that never finish are answered 408, over real sockets on loopback with a short
 * configured timeout: a JSON body must arrive whole in time; an upload only has to keep moving.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { fileBytes } from '../support/files.js';

const TIMEOUT_MS = 300;
const MIN_RATE = 2_000;

describe('slow request bodies', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { BLUELINE_BODY_TIMEOUT_MS: String(TIMEOUT_MS), BLUELINE_UPLOAD_MIN_BYTES_PER_SEC: String(MIN_RATE) });
    port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
  });
  afterAll(async () => t.close());

  /** Writes the head and the given body chunks (each after its delay), and reads the whole answer. */
  function exchange(head: string, chunks: { after: number; bytes: Buffer | string }[] = []) {
    return new Promise<{ status: number; headers: string; body: string; ms: number; closed: boolean }>((resolve, reject) => {
      const started = Date.now();
      const socket = net.connect(port, '127.0.0.1');
      const timers: NodeJS.Timeout[] = [];
      let got = '';
      socket.on('connect', () => {
        socket.write(head);
        let at = 0;
        for (const c of chunks) {
          at += c.after;
          timers.push(setTimeout(() => socket.writable && socket.write(c.bytes), at));
        }
      });
      socket.on('data', (d) => (got += d.toString()));
      // The answer is complete once the server closes the connection (it says `connection: close`)
      // or, for an answer on a kept-alive connection, once its body has arrived.
      const finish = (closed: boolean) => {
        timers.forEach(clearTimeout);
        const [headers, body = ''] = got.split('\r\n\r\n');
        resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers ?? '')?.[1]), headers: headers ?? '', body, ms: Date.now() - started, closed });
        socket.destroy();
      };
      socket.on('end', () => finish(true));
      socket.on('data', () => {
        const length = /content-length: (\d+)/i.exec(got)?.[1];
        const [, body] = got.split('\r\n\r\n');
        if (length !== undefined && body !== undefined && Buffer.byteLength(body) >= Number(length) && !/connection: close/i.test(got)) finish(false);
      });
      socket.on('error', reject);
    });
  }

  it('answers a JSON body that never finishes with 408 in the envelope, before authentication', async () => {
    const res = await exchange('POST /api/v1/chats HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{}');
    expect(res.status).toBe(408);
    expect(res.closed).toBe(true);
    expect(res.ms).toBeLessThan(TIMEOUT_MS + 1_500);
    expect(JSON.parse(res.body)).toEqual({
      success: false,
      error: { status: 408, code: 1002, message: `the request body did not arrive within ${TIMEOUT_MS} ms`, retryable: false },
      trace_id: expect.stringMatching(/^tr_/),
    });
    // Logged like any other refused request.
    expect(t.logs.join('')).toContain('"path":"/api/v1/chats","status":408');
    // The send route answers in its own flat shape (spec rule 5), as for any failure.
    const send = await exchange('POST /api/v1/send HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{}');
    expect(send.status).toBe(408);
    expect(JSON.parse(send.body)).toMatchObject({ status: 'failed', code: 1002, reason: `the request body did not arrive within ${TIMEOUT_MS} ms` });
    // And the service goes on serving.
    expect((await t.api('GET', '/api/v1/phone-numbers')).statusCode).toBe(200);
  });

  const slot = async (size: number) => {
    const res = await t.api('POST', '/api/v1/attachments', { filename: 'photo.png', content_type: 'image/png', size_bytes: size });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().attachment_id as string;
  };
  const uploadHead = (id: string, size: number) =>
    `PUT /api/v1/attachments/${id}/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.demo.signing_secret}\r\nContent-Type: image/png\r\nContent-Length: ${size}\r\n\r\n`;

  it('answers an upload that stalls with 408, and keeps nothing', async () => {
    const size = 20_000;
    const id = await slot(size);
    const res = await exchange(uploadHead(id, size), [{ after: 0, bytes: fileBytes('image/png', 1_000) }]);
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body).error).toEqual({
      status: 408, code: 1002, message: `the request body arrived slower than ${MIN_RATE} bytes/s over ${TIMEOUT_MS} ms`, retryable: false,
    });
    expect((await t.api('GET', `/api/v1/attachments/${id}`)).json().attachment.uploaded_at).toBeNull();
  });

  it('lets a slow upload that keeps moving finish, long after the JSON timeout', async () => {
    // 8,000 bytes in 400-byte steps every 50 ms: about a second, at four times the minimum rate.
    const size = 8_000;
    const id = await slot(size);
    const bytes = fileBytes('image/png', size);
    const chunks = Array.from({ length: size / 400 }, (_, i) => ({ after: 50, bytes: bytes.subarray(i * 400, (i + 1) * 400) }));
    const res = await exchange(uploadHead(id, size), chunks);
    expect(res.status, res.body).toBe(200);
    expect(res.ms).toBeGreaterThan(TIMEOUT_MS * 2);
    expect(JSON.parse(res.body).attachment).toMatchObject({ attachment_id: id, size_bytes: size });
  });
});
