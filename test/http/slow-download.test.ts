/**
 * A client that stops taking a file it asked for is cut off: each BLUELINE_BODY_TIMEOUT_MS window
 * must take at least BLUELINE_UPLOAD_MIN_BYTES_PER_SEC, as an upload must bring it. Before, a
 * reader that stopped held its connection and the open file (or bucket stream) for good. Over
 * real sockets on loopback with a short configured window; the file is larger than loopback's
 * socket buffers, so a client that reads nothing really holds the answer up.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { eventually, uploadedFile } from '../support/messaging.js';

const TIMEOUT_MS = 300;
const MIN_RATE = 2_000;
const SIZE = 48 * 1024 * 1024;

describe('slow downloads', () => {
  let t: TestApp;
  let port: number;
  let id: string;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { BLUELINE_BODY_TIMEOUT_MS: String(TIMEOUT_MS), BLUELINE_UPLOAD_MIN_BYTES_PER_SEC: String(MIN_RATE) });
    port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
    id = await uploadedFile(t, 'large.pdf', 'application/pdf', SIZE);
  });
  afterAll(async () => t.close());

  /**
   * Asks for the attachment's content and reads it as `reader` says: it is called with the socket
   * once the first bytes came. Resolves with the bytes of body taken and whether the server closed.
   */
  function download(reader: (socket: net.Socket) => void) {
    return new Promise<{ status: number; length: number; body: number; ms: number }>((resolve, reject) => {
      const started = Date.now();
      const socket = net.connect(port, '127.0.0.1');
      let head = '';
      let body = 0;
      let first = true;
      socket.on('connect', () => socket.write(`GET /api/v1/attachments/${id}/content HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.demo.signing_secret}\r\n\r\n`));
      socket.on('data', (d: Buffer) => {
        if (!head.includes('\r\n\r\n')) {
          head += d.toString('latin1');
          const end = head.indexOf('\r\n\r\n');
          if (end >= 0) body += Buffer.byteLength(head.slice(end + 4), 'latin1');
        } else body += d.length;
        if (first) {
          first = false;
          reader(socket);
        }
        if (body >= SIZE) socket.end();
      });
      socket.on('close', () =>
        resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), length: Number(/content-length: (\d+)/i.exec(head)?.[1]), body, ms: Date.now() - started }),
      );
      socket.on('error', reject);
    });
  }

  /** Files of the blob store this process holds open (Linux: /proc/self/fd). */
  const openBlobFiles = () =>
    fs.readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`).includes(`${path.sep}blueline-blobs-`);
      } catch {
        return false;
      }
    }).length;

  it('closes the connection of a client that stopped reading, and the file, and logs it', async () => {
    const cut = `a download was cut: its client took less than ${MIN_RATE} bytes/s`;
    const openBefore = openBlobFiles();
    let openWhileStalled = 0;
    // The client stops reading; once the server logged the cut, it reads what is left: the body ends short.
    const res = await download((socket) => {
      socket.pause();
      openWhileStalled = openBlobFiles();
      void eventually(async () => t.logs.join(''), (logs) => logs.includes(cut)).then(() => socket.resume());
    });
    expect(res.status).toBe(200);
    expect(res.length).toBe(SIZE);
    // Cut off well short of the file, within a few windows of the stop.
    expect(res.body).toBeLessThan(SIZE / 2);
    expect(res.ms).toBeLessThan(TIMEOUT_MS * 4 + 2_000);
    expect(t.logs.join('')).toContain(cut);
    expect(t.logs.join('')).toContain('"path":"/api/v1/attachments/:id/content"');
    // The stored file was open while the client held the answer up, and is closed with the connection.
    expect(openWhileStalled).toBe(openBefore + 1);
    expect(await eventually(async () => openBlobFiles(), (n) => n === openBefore, 5_000)).toBe(openBefore);
    // The service goes on serving, that file too.
    const again = await t.api('GET', `/api/v1/attachments/${id}/content`);
    expect(again.statusCode).toBe(200);
    expect(again.rawPayload.length).toBe(SIZE);
  });

  it('lets a client that reads in bursts, pausing for less than a window each time, take the whole file', async () => {
    // Reads 50 ms, pauses 200 ms (two thirds of a window), until the whole file is in.
    const res = await download((socket) => {
      const cycle = () => {
        if (socket.destroyed) return;
        socket.pause();
        setTimeout(() => {
          socket.resume();
          setTimeout(cycle, 50);
        }, 200);
      };
      cycle();
    });
    expect(res.status).toBe(200);
    expect(res.body).toBe(SIZE);
    expect(res.ms).toBeGreaterThan(TIMEOUT_MS);
  });
});
