/**
 * SIGTERM as a load balancer's drain sees it, on the real process (`src/main.ts`): a request whose
 * body is still arriving gets its answer and the process exits 0, even past the old hard-coded
 * 10 s; a request that comes on a kept-alive connection once shutdown has begun is refused in the
 * spec's envelope with X-Trace-ID and Connection: close; and BLUELINE_SHUTDOWN_GRACE_MS bounds the
 * wait, after which the process exits 1 and says why. A send whose line never answers (the
 * simulator's +15005550006/7) holds no request open: the process stops at once.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SERVICE_TEST_MS, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { parseResponses } from '../support/raw-http.js';
import { SIMULATOR_RECIPIENTS } from '../../src/drivers/simulator/reserved.js';

/** One kept-alive connection written by hand, so the test decides when each byte arrives. */
function rawConnection(url: string) {
  const { port } = new URL(url);
  const socket = net.connect(Number(port), '127.0.0.1');
  let received = '';
  socket.on('data', (d) => (received += d.toString()));
  socket.on('error', () => {});
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  return { socket, closed, received: () => received };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the service process on SIGTERM', () => {
  let server: ServerProcess | undefined;
  afterEach(() => server?.cleanup());

  const start = async (env: Record<string, string> = {}) => {
    server = await startServerProcess({ prefix: 'blueline-shutdown-', captureStdout: true, env });
    const demo = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'demo.json'), 'utf8')) as { admin_token: string; signing_secret: string; phone_line_ids: string[] };
    const exited = new Promise<{ code: number | null; at: number }>((r) => server!.child.once('exit', (code) => r({ code, at: Date.now() })));
    return { server, adminToken: demo.admin_token, demo, exited };
  };

  /** A POST whose headers and first bytes are sent now; the rest is up to the test. */
  const startSlowPost = (url: string, adminToken: string, body: string) => {
    const conn = rawConnection(url);
    conn.socket.write(
      `POST /admin/v1/accounts HTTP/1.1\r\nHost: blueline\r\nAuthorization: Bearer ${adminToken}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 2)}`,
    );
    return conn;
  };

  it(
    'answers a request whose body is still arriving after 10 s, refuses a pipelined one in the envelope, and exits 0',
    async () => {
      const { server, adminToken, exited } = await start({ LOG_LEVEL: 'info' });
      const body = JSON.stringify({ name: 'Slow Body Inc', multi_tenant: false, email_verified: true });
      const conn = startSlowPost(server.url, adminToken, body);
      // The request is under way (headers read) before the signal.
      await sleep(300);
      const signalled = Date.now();
      server.child.kill('SIGTERM');
      // The body keeps coming, a byte a second, for over 10 s: the old hard-coded force-exit point.
      let sent = 2;
      while (Date.now() - signalled < 11_000 && sent < body.length - 1) {
        await sleep(1_000);
        conn.socket.write(body[sent++]!);
        expect(server.child.exitCode, 'the process must still be waiting for the request').toBeNull();
      }
      // The rest of the body, and a second request pipelined behind it on the same connection.
      conn.socket.write(`${body.slice(sent)}GET /admin/v1/accounts HTTP/1.1\r\nHost: blueline\r\nAuthorization: Bearer ${adminToken}\r\n\r\n`);
      const { code, at } = await exited;
      await conn.closed;
      expect(at - signalled).toBeGreaterThan(10_000);
      expect(code).toBe(0);
      // The whole shutdown ran: the store closed (the SQLite checkpointer's thread, unreferenced,
      // once let the process end while the store waited for it, before anything after it ran).
      expect(server.stdout()).toMatch(/"msg":"stopped"/);

      const [first, second, ...more] = parseResponses(conn.received());
      expect(more).toEqual([]);
      expect(first?.status, conn.received().slice(0, 300)).toBe(201);
      expect(JSON.parse(first!.body).account).toMatchObject({ name: 'Slow Body Inc' });
      // Not fastify's {"error":"Service Unavailable",…}: the spec's envelope, retryable, traced.
      expect(second?.status, conn.received()).toBe(503);
      expect(second!.headers.connection).toBe('close');
      const traceId = second!.headers['x-trace-id'];
      expect(traceId).toMatch(/\S/);
      expect(JSON.parse(second!.body)).toEqual({
        success: false,
        error: { status: 503, code: 3001, message: expect.stringContaining('shutting down'), retryable: true },
        trace_id: traceId,
      });
    },
    SERVICE_TEST_MS,
  );

  it(
    'exits 1 once BLUELINE_SHUTDOWN_GRACE_MS is over while a request is still open, and logs why',
    async () => {
      const { server, adminToken, exited } = await start({ BLUELINE_SHUTDOWN_GRACE_MS: '1500' });
      const conn = startSlowPost(server.url, adminToken, JSON.stringify({ name: 'Never Finished' }));
      await sleep(300);
      const signalled = Date.now();
      server.child.kill('SIGTERM');
      const { code, at } = await exited;
      expect(code).toBe(1);
      // At the configured time, not at once and not after the default 35 s (the upper bound only
      // allows for a loaded machine).
      expect(at - signalled).toBeGreaterThanOrEqual(1_500);
      expect(at - signalled).toBeLessThan(8_000);
      expect(server.stdout()).toContain('BLUELINE_SHUTDOWN_GRACE_MS');
      conn.socket.destroy();
    },
    SERVICE_TEST_MS,
  );

  it(
    'stops at once after a send and a group creation whose line never answers: each was answered 503 / 3002, and nothing waits out the grace',
    async () => {
      const { server, demo, exited } = await start({ LOG_LEVEL: 'info' });
      const post = (p: string, body: object) =>
        fetch(server.url + p, { method: 'POST', headers: { authorization: `Bearer ${demo.signing_secret}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
          async (res) => ({ status: res.status, json: (await res.json()) as any }),
        );
      const [lineA, lineB] = demo.phone_line_ids as [string, string];
      const answers = Promise.all([
        post('/api/v1/send', { phone: SIMULATOR_RECIPIENTS.stallsBeforeDevice, body: 'never reaches the device', phone_line_id: lineA }),
        post('/api/v1/chats', { to: [SIMULATOR_RECIPIENTS.stallsAfterDevice, '+14155550778'], message: { parts: [{ type: 'text', value: 'Kickoff' }] }, phone_line_id: lineB }),
      ]);
      // Answered at once (the old simulator never answered them); 10 s only bounds a loaded machine.
      const answered = await Promise.race([answers, sleep(10_000).then(() => undefined)]);
      expect(answered, 'both requests answered').toBeDefined();
      const [send, group] = answered!;
      expect(send.status).toBe(503);
      expect(send.json).toMatchObject({ code: 3002, retryable: true, message_id: expect.stringMatching(/^msg_/) });
      expect(group.status).toBe(503);
      expect(group.json.error).toMatchObject({ code: 3002, retryable: true });

      // Their reconciliation is pending (the message `sending`, the group unrecorded); SIGTERM stops the service at once.
      const signalled = Date.now();
      server.child.kill('SIGTERM');
      const { code, at } = await exited;
      expect(code).toBe(0);
      // Not the default 35 s grace (the bound only allows for a loaded machine).
      expect(at - signalled).toBeLessThan(8_000);
      expect(server.stdout()).toMatch(/"msg":"stopped"/);
    },
    SERVICE_TEST_MS,
  );
});
