import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { prepareSandbox } from '../support/messaging.js';
import { timeSortableId } from '../../src/domain/ids.js';

interface Frame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
  retry?: string;
}

/** Opens the stream and collects frames until the server ends it (or `untilMs`). */
function readStream(base: string, secret: string, opts: { since?: string; lastEventId?: string; untilMs?: number; onOpen?: () => void } = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; frames: Frame[] }>((resolve, reject) => {
    const url = `${base}/api/v1/events/stream${opts.since ? `?since=${encodeURIComponent(opts.since)}` : ''}`;
    const req = http.get(url, { headers: { authorization: `Bearer ${secret}`, 'x-service-tenant': 'demo', ...(opts.lastEventId && { 'last-event-id': opts.lastEventId }) } }, (res) => {
      let buf = '';
      const frames: Frame[] = [];
      opts.onOpen?.();
      res.on('data', (d) => {
        buf += d.toString();
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const raw = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const f: Frame = {};
          for (const line of raw.split('\n')) {
            if (line.startsWith(':')) f.comment = line.slice(1).trim();
            else {
              const [k, ...v] = line.split(':');
              (f as Record<string, string>)[k!] = v.join(':').trim();
            }
          }
          frames.push(f);
        }
      });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, frames }));
      if (opts.untilMs) setTimeout(() => { req.destroy(); resolve({ status: res.statusCode!, headers: res.headers, frames }); }, opts.untilMs);
    });
    req.on('error', reject);
  });
}

describe('SSE stream', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { BLUELINE_SSE_MAX_MS: '700', BLUELINE_SSE_HEARTBEAT_MS: '150' });
    await prepareSandbox(t);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => t.close());

  const inbound = (text: string) => t.admin('POST', `/admin/v1/lines/${t.demo.phone_line_ids[0]}/simulate/inbound`, { from: '+14155550122', text });

  it('streams new events with ids, heartbeats, then closes with where to resume', async () => {
    const stream = readStream(base, t.demo.signing_secret, { onOpen: () => setTimeout(() => void inbound('live one'), 50) });
    const { status, headers, frames } = await stream;
    expect(status).toBe(200);
    expect(headers['content-type']).toContain('text/event-stream');
    expect(headers['cache-control']).toBe('no-cache');
    expect(headers['x-accel-buffering']).toBe('no');
    expect(frames[0]).toEqual({ retry: '3000' });
    const events = frames.filter((f) => f.event === 'message.received');
    expect(events).toHaveLength(1);
    const data = JSON.parse(events[0]!.data!);
    expect(Object.keys(data).sort()).toEqual(['created_at', 'id', 'payload', 'type']);
    expect(events[0]!.id).toBe(data.id);
    expect(data).toMatchObject({ type: 'message.received', payload: { text: 'live one', partner_id: 'demo' } });
    expect(frames.filter((f) => f.comment === 'heartbeat').length).toBeGreaterThanOrEqual(3);
    const close = frames[frames.length - 1]!;
    expect(close.event).toBe('close');
    const closing = JSON.parse(close.data!);
    expect(closing).toMatchObject({ reason: 'max_duration', last_event_id: data.id });
    expect(Date.parse(closing.reconnect_with_since)).not.toBeNaN();
  });

  it('an event recorded in the millisecond the stream opened reaches it', async () => {
    // Only Date is frozen (timers and sockets run): the stream opens and the event is recorded in
    // one millisecond, as happens by chance when the client answers its headers at once.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      const { frames } = await readStream(base, t.demo.signing_secret, { untilMs: 400, onOpen: () => void inbound('same millisecond') });
      expect(frames.filter((f) => f.event === 'message.received').map((f) => JSON.parse(f.data!).payload.text)).toEqual(['same millisecond']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('resumes after Last-Event-ID (which wins over since) and after ?since=', async () => {
    const first = readStream(base, t.demo.signing_secret, { onOpen: () => setTimeout(() => void inbound('before gap'), 30) });
    const got = (await first).frames.filter((f) => f.event === 'message.received');
    const lastId = got[got.length - 1]!.id!;
    const closeSince = JSON.parse((await first).frames.at(-1)!.data!).reconnect_with_since;
    t.clock.advance(1_000);
    await inbound('while away 1');
    await inbound('while away 2');
    const byId = await readStream(base, t.demo.signing_secret, { lastEventId: lastId, since: '2000-01-01T00:00:00Z', untilMs: 300 });
    expect(byId.frames.filter((f) => f.event === 'message.received').map((f) => JSON.parse(f.data!).payload.text)).toEqual(['while away 1', 'while away 2']);
    // ?since= resends the last sent event's millisecond (here: 'before gap'), so nothing is skipped.
    const bySince = await readStream(base, t.demo.signing_secret, { since: closeSince, untilMs: 300 });
    expect(bySince.frames.filter((f) => f.event === 'message.received').map((f) => JSON.parse(f.data!).payload.text)).toEqual(['before gap', 'while away 1', 'while away 2']);
  });

  it("reconnecting with reconnect_with_since skips no event of the last sent event's millisecond", async () => {
    const tenant = (await t.testStore.store.tenants.getBySlug('demo'))!;
    let at = 0;
    let n = 0;
    /** An event recorded at `at` (as another request's transaction committing late would be). */
    const record = async (text: string) => {
      const id = `evt_${timeSortableId(at).slice(0, 10)}${String(++n).padStart(16, '0')}`;
      await t.testStore.store.events.insertEvent({
        id, tenant_id: tenant.id, type: 'message.received', event_id: `imessage:msg:same-ms-${at}-${n}`, lead_id: null, convo_id: null,
        payload: JSON.stringify({ text }), status: 'failed', dev_inbox: false, delivered_at: null, created_at: at,
      });
      t.services.bus.eventRecorded(tenant.id);
    };
    const stream = readStream(base, t.demo.signing_secret, {
      onOpen: () =>
        setTimeout(() => {
          at = t.clock.now();
          void record('first of the millisecond');
        }, 30),
    });
    const { frames } = await stream;
    expect(frames.filter((f) => f.event === 'message.received').map((f) => JSON.parse(f.data!).payload.text)).toEqual(['first of the millisecond']);
    const { reconnect_with_since } = JSON.parse(frames.at(-1)!.data!);
    // Same millisecond, committed after the stream closed.
    await record('second of the millisecond');
    const resumed = await readStream(base, t.demo.signing_secret, { since: reconnect_with_since, untilMs: 300 });
    const texts = resumed.frames.filter((f) => f.event === 'message.received').map((f) => JSON.parse(f.data!).payload.text);
    expect(texts).toEqual(['first of the millisecond', 'second of the millisecond']);
  });

  it('streams an event whose recording waited (media bytes being stored) after one recorded meanwhile: neither is skipped', async () => {
    // Hold the photo's bytes on their way to the blob store, so the text from another contact is
    // recorded while the photo is still on its way, a second later by the service clock.
    const put = t.blobs.put.bind(t.blobs);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let reached!: () => void;
    const atGate = new Promise<void>((r) => (reached = r));
    t.blobs.put = async (...args: Parameters<typeof put>) => {
      reached();
      await gate;
      return put(...args);
    };
    try {
      let bothRecorded!: () => void;
      const recorded = new Promise<void>((r) => (bothRecorded = r));
      const stream = readStream(base, t.demo.signing_secret, {
        onOpen: () =>
          setTimeout(async () => {
            const photo = t.admin('POST', `/admin/v1/lines/${t.demo.phone_line_ids[0]}/simulate/inbound`, {
              from: '+14155550123', parts: [{ type: 'media', mime_type: 'image/png', filename: 'a.png', content_base64: Buffer.from('png bytes').toString('base64') }],
            });
            await atGate;
            t.clock.advance(1_000);
            expect((await inbound('sent while the photo was stored')).statusCode).toBe(202);
            await new Promise((r) => setTimeout(r, 100)); // the stream has sent the text by now
            release();
            await photo;
            bothRecorded();
          }, 30),
      });
      const first = await stream;
      await recorded;
      const frames = first.frames.filter((f) => f.event === 'message.received');
      // On a slow machine the stream may reach its end (700 ms here) before the photo is recorded:
      // a client then resumes from the last event it had, as the close frame says, and must get it.
      const close = JSON.parse(first.frames.at(-1)!.data!) as { last_event_id?: string };
      if (frames.length < 2 && close.last_event_id) {
        const resumed = await readStream(base, t.demo.signing_secret, { lastEventId: close.last_event_id, untilMs: 300 });
        frames.push(...resumed.frames.filter((f) => f.event === 'message.received'));
      }
      const streamed = frames.map((f) => JSON.parse(f.data!).payload);
      expect(streamed.map((p: { text: string | null; media?: unknown[] }) => (p.text ? p.text : 'photo'))).toEqual(['sent while the photo was stored', 'photo']);
    } finally {
      t.blobs.put = put;
    }
  });

  it('refuses a stream without the tenant header', async () => {
    const res = await t.api('GET', '/api/v1/events/stream');
    expect(res.json().error.code).toBe(2001);
  });
});

describe('SSE stream, HEAD', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp('sqlite'); // the default 60 s stream lifetime
    await prepareSandbox(t);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => t.close());

  it('answers HEAD with the stream headers at once, without holding a stream open for 60 s', async () => {
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request(`${base}/api/v1/events/stream`, { method: 'HEAD', headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'x-service-tenant': 'demo' } }, resolve);
      req.on('error', reject);
      req.end();
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/event-stream');
    expect(res.headers['x-trace-id']).toMatch(/^tr_/);
    await new Promise((r) => res.resume().on('end', r));
  }, 5_000);
});
