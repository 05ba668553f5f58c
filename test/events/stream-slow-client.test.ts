/**
 * An event stream whose client reads slower than its events (or stopped) holds the stream back,
 * not the process's memory: the next batch is read from the log only once the client took the
 * last one. Before, a stream replaying a backlog (`?since=`) wrote all of it into the response's
 * buffer at once, and a stalled client kept it there: 15 MB here, the whole log for a long
 * `since`. And a client that does not take the stream's end is disconnected a heartbeat later
 * instead of holding its connection for good. Over real sockets on loopback; the backlog is
 * larger than loopback's socket buffers, so a client that reads nothing really holds it up.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { eventually } from '../support/messaging.js';
import { newEventId } from '../../src/domain/ids.js';

const METRICS_TOKEN = 'stream-slow-client-metrics-0123';
const EVENTS = 1_500;
/** Each event's payload: ~10 KB, so the backlog is ~15 MB and the stream's batch (200) ~2 MB. */
const FILLER = 'x'.repeat(10_000);

/** Records the backlog: EVENTS events of the demo tenant in the hour before now, oldest first. */
async function recordBacklog(t: TestApp): Promise<string[]> {
  const tenant = (await t.testStore.store.tenants.getBySlug('demo'))!;
  const start = t.clock.now() - 3600_000;
  const ids: string[] = [];
  for (let i = 0; i < EVENTS; i += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, EVENTS - i) }, (_, j) => {
        const at = start + (i + j) * 1_000;
        const id = newEventId(at);
        ids.push(id);
        return t.testStore.store.events.insertEvent({
          id, tenant_id: tenant.id, type: 'message.received', event_id: `backlog:${i + j}`, lead_id: null, convo_id: null,
          payload: JSON.stringify({ n: i + j, filler: FILLER }), status: 'delivered', dev_inbox: false, delivered_at: at, created_at: at,
        });
      }),
    );
  }
  return ids.sort();
}

/** A stream read over a raw socket, so the test decides when the client reads. */
function openStream(port: number, t: TestApp, since: number) {
  const socket = net.connect(port, '127.0.0.1');
  let buf = '';
  const ids: string[] = [];
  const frames: string[] = [];
  socket.setEncoding('utf8');
  socket.on('connect', () =>
    socket.write(
      `GET /api/v1/events/stream?since=${encodeURIComponent(new Date(since).toISOString())} HTTP/1.1\r\nHost: x\r\n` +
        `Authorization: Bearer ${t.demo.signing_secret}\r\nX-Service-Tenant: demo\r\n\r\n`,
    ),
  );
  socket.on('data', (d: string) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const frame = buf.slice(0, i);
      buf = buf.slice(i + 2);
      frames.push(frame);
      const id = /(?:^|\n)id: (evt_[^\n]+)/.exec(frame)?.[1];
      if (id) ids.push(id);
    }
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => {});
  return { socket, ids, frames, closed };
}

describe.each(STORE_KINDS)('event stream: a slow client (%s)', (kind) => {
  let t: TestApp;
  let port: number;
  let backlog: string[];
  beforeAll(async () => {
    t = await startTestApp(kind, { METRICS_TOKEN });
    port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
    backlog = await recordBacklog(t);
  });
  afterAll(async () => t?.close());

  const gauge = async (name: string) => {
    const res = await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.statusCode).toBe(200);
    return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(res.body)?.[1]);
  };

  it('holds back a client that stopped reading, not the memory, and sends it every event once it reads again', async () => {
    const stream = openStream(port, t, t.clock.now() - 2 * 3600_000);
    await eventually(async () => stream.ids.length, (n) => n > 0);
    stream.socket.pause();
    // The stream has filled what the connection holds and waits on the client...
    await eventually(() => gauge('blueline_sse_buffered_bytes'), (bytes) => bytes > 0);
    // ...and stays there: a fixed wait, since this shows something does not happen.
    await new Promise((r) => setTimeout(r, 500));
    const buffered = await gauge('blueline_sse_buffered_bytes');
    // At most about a batch (200 events, ~2 MB) waits in the process, not the ~15 MB backlog.
    expect(buffered).toBeGreaterThan(0);
    expect(buffered).toBeLessThan(3_000_000);

    stream.socket.resume();
    await eventually(async () => stream.ids.length, (n) => n >= EVENTS, 30_000);
    expect(stream.ids).toEqual(backlog);
    stream.socket.destroy();
    await stream.closed;
    await eventually(() => gauge('blueline_sse_connections'), (n) => n === 0);
  });
});

describe('event stream: a client that does not take the stream\'s end', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { BLUELINE_SSE_MAX_MS: '400', BLUELINE_SSE_HEARTBEAT_MS: '200' });
    port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
    await recordBacklog(t);
  });
  afterAll(async () => t?.close());

  const connections = () => new Promise<number>((resolve, reject) => t.app.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));

  it('is disconnected a heartbeat after the end, and gets no close frame it could not take', async () => {
    const stream = openStream(port, t, t.clock.now() - 2 * 3600_000);
    await eventually(async () => stream.ids.length, (n) => n > 0);
    stream.socket.pause();
    expect(await connections()).toBe(1);
    // The stream ends at 400 ms; its close frame waits behind what the client has not read.
    await eventually(connections, (n) => n === 0, 10_000);
    expect(await connections()).toBe(0);
    stream.socket.resume();
    await stream.closed;
    expect(stream.frames.some((f) => f.includes('event: close'))).toBe(false);
    expect(stream.ids.length).toBeLessThan(EVENTS);
  });
});
