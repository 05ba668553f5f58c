/** Pagination over several pages and the SSE iterator across a forced reconnect, against the real service. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Blueline, PermissionError, type StreamEvent } from '@blueline/sdk';
import { startService, until, type Service } from './support/service.js';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy.js';

let svc: Service;
let client: Blueline;
let proxy: FaultProxy;

beforeAll(async () => {
  // Connections of 1.5 s, so the stream's `event: close` and the reconnect happen within a test.
  svc = await startService({ BLUELINE_SSE_MAX_MS: '1500', BLUELINE_SSE_POLL_MS: '100' });
  client = new Blueline(svc.options);
  proxy = await startFaultProxy(svc.url);
});
afterAll(async () => {
  await proxy?.close();
  await svc?.stop();
});

describe('pagination', () => {
  it('walks every page of events, newest first; .page() gives one page with next_cursor', async () => {
    for (let i = 0; i < 7; i++) await svc.inbound(`+1415555030${i}`, `page test ${i}`);
    await until('7 events', async () => (await client.events.list({ limit: 200 }).page()).events.length >= 7);

    const first = await client.events.list({ limit: 2 }).page();
    expect(first.events).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));

    const pages = [];
    for await (const page of client.events.list({ limit: 2, type: 'message.received' }).pages()) pages.push(page);
    expect(pages).toHaveLength(4);
    expect(pages.at(-1)!.next_cursor).toBeNull();

    const texts: string[] = [];
    for await (const e of client.events.list({ limit: 2, status: 'failed' })) texts.push((e.payload as { text: string }).text);
    expect(texts).toEqual([6, 5, 4, 3, 2, 1, 0].map((i) => `page test ${i}`));
  });
});

describe('events.stream', () => {
  it('yields every event once across the server closing the connection', async () => {
    const connects: (string | undefined)[] = [];
    const controller = new AbortController();
    const got: StreamEvent[] = [];
    const reading = (async () => {
      for await (const e of client.events.stream({ signal: controller.signal, onConnect: (id) => connects.push(id) })) {
        got.push(e);
        if (got.length === 4) break;
      }
    })();
    await until('the first connection', async () => connects.length >= 1);
    await new Promise((r) => setTimeout(r, 200));
    await svc.inbound('+14155550401', 'sse one');
    await svc.inbound('+14155550402', 'sse two');
    await until('two events', async () => got.length >= 2);
    // Past the 1.5 s connection lifetime: the server says `event: close`, the iterator reconnects.
    await until('a reconnect', async () => connects.length >= 2, 5_000);
    await svc.inbound('+14155550403', 'sse three');
    await svc.inbound('+14155550404', 'sse four');
    await reading;
    controller.abort();
    expect(got.map((e) => (e.payload as { text?: string }).text)).toEqual(['sse one', 'sse two', 'sse three', 'sse four']);
    expect(new Set(got.map((e) => e.id)).size).toBe(4);
    // The reconnect resumed after the last event it had yielded.
    expect(connects[1]).toBe(got[1]!.id);
  });

  it('reconnects with Last-Event-ID after the network drops the connection', async () => {
    const viaProxy = new Blueline({ ...svc.options, baseUrl: proxy.url });
    proxy.seen.length = 0;
    proxy.plan([{ cutAfterMs: 700 }], (_m, url) => url.startsWith('/api/v1/events/stream'));
    const got: StreamEvent[] = [];
    const controller = new AbortController();
    const reading = (async () => {
      for await (const e of viaProxy.events.stream({ signal: controller.signal })) {
        got.push(e);
        if (got.length === 2) break;
      }
    })();
    await until('the stream', async () => proxy.seen.length >= 1);
    await new Promise((r) => setTimeout(r, 200));
    await svc.inbound('+14155550411', 'before the drop');
    await until('the drop and a new connection', async () => proxy.seen.length >= 2, 6_000);
    await svc.inbound('+14155550412', 'after the drop');
    await reading;
    controller.abort();
    expect(got.map((e) => (e.payload as { text?: string }).text)).toEqual(['before the drop', 'after the drop']);
    expect(proxy.seen[1]!.headers['last-event-id']).toBe(got[0]!.id);
  });

  // A proxy or NAT that drops a connection without closing it leaves the stream silent: no
  // heartbeat ever comes again. The stream takes it for dead and resumes on a new connection.
  it('reconnects after a connection goes silent (no heartbeat within idleTimeoutMs)', async () => {
    const viaProxy = new Blueline({ ...svc.options, baseUrl: proxy.url });
    proxy.seen.length = 0;
    proxy.plan([{ stallAfterMs: 300 }], (_m, url) => url.startsWith('/api/v1/events/stream'));
    const got: StreamEvent[] = [];
    const controller = new AbortController();
    const reading = (async () => {
      for await (const e of viaProxy.events.stream({ signal: controller.signal, idleTimeoutMs: 800 })) {
        got.push(e);
        if (got.length === 2) break;
      }
    })();
    await until('the stream', async () => proxy.seen.length >= 1);
    await new Promise((r) => setTimeout(r, 100));
    await svc.inbound('+14155550421', 'before the stall');
    await until('the silent connection given up and a new one', async () => proxy.seen.length >= 2, 6_000);
    await svc.inbound('+14155550422', 'after the stall');
    await reading;
    controller.abort();
    expect(got.map((e) => (e.payload as { text?: string }).text)).toEqual(['before the stall', 'after the stall']);
    expect(proxy.seen[1]!.headers['last-event-id']).toBe(got[0]!.id);
  });

  it("stops with the API's error once access is taken away (a suspension), yielding nothing after it", async () => {
    const got: StreamEvent[] = [];
    const connects: (string | undefined)[] = [];
    const reading = (async () => {
      for await (const e of client.events.stream({ onConnect: (id) => connects.push(id) })) got.push(e);
    })();
    const outcome = reading.then(() => undefined, (err: unknown) => err);
    await until('the stream', async () => connects.length >= 1);
    await new Promise((r) => setTimeout(r, 200));
    await svc.inbound('+14155550431', 'before the suspension');
    await until('the event', async () => got.length >= 1);
    await svc.admin('PATCH', '/admin/v1/tenants/demo', { status: 'suspended' });
    try {
      // A stream's access, once checked, serves its wake-ups for a second (business time).
      await svc.advance(1_000);
      await svc.inbound('+14155550432', 'after the suspension');
      const err = await outcome;
      expect(err).toBeInstanceOf(PermissionError);
      expect((err as PermissionError).code).toBe(2005);
      expect(got.map((e) => (e.payload as { text?: string }).text)).toEqual(['before the suspension']);
    } finally {
      await svc.admin('PATCH', '/admin/v1/tenants/demo', { status: 'active' });
    }
  });
});
