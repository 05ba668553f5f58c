/**
 * A request that comes on a kept-alive connection once close() has begun (a load balancer still
 * using the connection while the process drains): refused in the spec's envelope, with
 * X-Trace-ID and Connection: close, while the request already under way on that connection
 * finishes. The send route keeps its own flat failure shape.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { parseResponses, type RawResponse } from '../support/raw-http.js';

describe('a request that arrives while the app is closing', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.testStore.cleanup();
    t = undefined;
  });

  /**
   * Starts a POST (headers and part of its body), closes the app, then sends the rest of the body
   * with `pipelined` behind it on the same connection; resolves with what came back.
   */
  async function pipelinedDuringClose(pipelined: string): Promise<RawResponse[]> {
    t = await startTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as net.AddressInfo;
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (d) => (received += d.toString()));
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    const body = JSON.stringify({ name: 'Drained Inc' });
    socket.write(
      `POST /admin/v1/accounts HTTP/1.1\r\nHost: blueline\r\nAuthorization: Bearer ${t.adminToken}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 3)}`,
    );
    // The first request is under way (its onRequest hook has run) before close() begins.
    await new Promise((r) => setTimeout(r, 100));
    const closing = t.app.close();
    await new Promise((r) => setTimeout(r, 100));
    socket.write(body.slice(3) + pipelined);
    await closing;
    await closed;
    const responses = parseResponses(received);
    expect(responses[0]?.status, received.slice(0, 300)).toBe(201);
    expect(responses).toHaveLength(2);
    return responses;
  }

  it('answers 503 in the envelope with X-Trace-ID and Connection: close', async () => {
    const [, refused] = await pipelinedDuringClose(`GET /admin/v1/accounts HTTP/1.1\r\nHost: blueline\r\nAuthorization: Bearer ${'x'.repeat(8)}\r\n\r\n`);
    expect(refused!.status).toBe(503);
    expect(refused!.headers.connection).toBe('close');
    expect(refused!.headers['content-type']).toMatch(/^application\/json/);
    const traceId = refused!.headers['x-trace-id'];
    expect(traceId).toMatch(/\S/);
    // Refused before authentication: the bad token plays no part, and nothing else runs.
    expect(JSON.parse(refused!.body)).toEqual({
      success: false,
      error: { status: 503, code: 3001, message: 'this process is shutting down; retry the request', retryable: true },
      trace_id: traceId,
    });
  });

  it('gives the send route its flat failure shape, retryable, with X-Trace-ID', async () => {
    const send = JSON.stringify({ phone: '+14155550177', body: 'hi' });
    const [, refused] = await pipelinedDuringClose(
      `POST /api/v1/send HTTP/1.1\r\nHost: blueline\r\nAuthorization: Bearer nope\r\nContent-Type: application/json\r\nContent-Length: ${send.length}\r\n\r\n${send}`,
    );
    expect(refused!.status).toBe(503);
    expect(refused!.headers.connection).toBe('close');
    expect(refused!.headers['x-trace-id']).toMatch(/\S/);
    expect(JSON.parse(refused!.body)).toMatchObject({ status: 'failed', code: 3001, retryable: true });
  });
});
