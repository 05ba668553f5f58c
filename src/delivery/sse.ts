/**
 * Server-Sent Events for the event log. Each stream first replays what came
 * after `Last-Event-ID` (or `?since=`), then follows new events (woken by the
 * bus, with a poll as the safety net), sends a heartbeat comment every 15 s,
 * and after 60 s says `event: close` with where to resume.
 */
import type { ServerResponse } from 'node:http';
import type { Store, EventRow, Tenant } from '../store/index.js';
import type { EventBus } from '../domain/events/bus.js';
import type { StreamClosed, StreamedEvent } from '../contract/event.js';

export interface SseSettings {
  maxMs: number;
  heartbeatMs: number;
  pollMs: number;
}

const BATCH = 200;

export function sseHub(deps: { store: Store; bus: EventBus }, settings: SseSettings) {
  type Stream = { tenantId: string; res: ServerResponse; lastId?: string; sinceMs?: number; lastCreatedAt?: number; busy: boolean; again: boolean };
  const streams = new Set<Stream>();

  const frame = (e: EventRow) => {
    const data: StreamedEvent = { id: e.id, type: e.type, payload: JSON.parse(e.payload), created_at: new Date(e.created_at).toISOString() };
    return `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(data)}\n\n`;
  };

  /**
   * Where a reconnect with `?since=` (created_at strictly after it) must start. Not the last sent
   * event's created_at: another event of that same millisecond may commit after this stream read
   * (another request's transaction, another process), and would be skipped. One millisecond
   * earlier resends that millisecond's events instead: duplicates are allowed (receivers dedup on
   * event_id), losses are not. Before any event, the stream's own start (it sent nothing older).
   */
  function reconnectSince(s: Stream, nowMs: () => number): number {
    if (s.lastCreatedAt !== undefined) return s.lastCreatedAt - 1;
    return s.sinceMs ?? nowMs();
  }

  async function pump(s: Stream) {
    if (s.busy) {
      s.again = true;
      return;
    }
    s.busy = true;
    try {
      do {
        s.again = false;
        for (;;) {
          const rows = await deps.store.events.eventsAfter(s.tenantId, s.lastId ? { id: s.lastId } : { createdAtMs: s.sinceMs }, BATCH);
          for (const e of rows) {
            s.res.write(frame(e));
            s.lastId = e.id;
            s.lastCreatedAt = e.created_at;
          }
          if (rows.length < BATCH) break;
        }
      } while (s.again && !s.res.writableEnded);
    } catch {
      /* the next wake-up or poll retries */
    } finally {
      s.busy = false;
    }
  }

  deps.bus.onEventRecorded((tenantId) => {
    for (const s of streams) if (s.tenantId === tenantId) void pump(s);
  });

  return {
    get size() {
      return streams.size;
    },

    /** Serves one stream on `res` until it closes (60 s) or the client goes away. */
    async serve(tenant: Tenant, res: ServerResponse, resume: { lastEventId?: string; sinceMs?: number }, nowMs: () => number) {
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      // HEAD has no body to stream: its headers would wait for the 60 s close, holding a stream.
      if (res.req?.method === 'HEAD') {
        res.end();
        return;
      }
      res.write('retry: 3000\n\n');
      // With neither, a stream starts at "now": only new events.
      const s: Stream = { tenantId: tenant.id, res, busy: false, again: false };
      if (resume.lastEventId) s.lastId = resume.lastEventId;
      else s.sinceMs = resume.sinceMs ?? nowMs();
      streams.add(s);
      await pump(s);
      const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), settings.heartbeatMs);
      const poll = setInterval(() => void pump(s), settings.pollMs);
      await new Promise<void>((resolve) => {
        const close = setTimeout(() => {
          const since = new Date(reconnectSince(s, nowMs)).toISOString();
          const closed: StreamClosed = { reason: 'max_duration', reconnect_with_since: since, ...(s.lastId && { last_event_id: s.lastId }) };
          res.write(`event: close\ndata: ${JSON.stringify(closed)}\n\n`);
          res.end();
          resolve();
        }, settings.maxMs);
        res.on('close', () => {
          clearTimeout(close);
          resolve();
        });
      });
      clearInterval(heartbeat);
      clearInterval(poll);
      streams.delete(s);
    },

    closeAll() {
      for (const s of streams) s.res.end();
    },
  };
}

export type SseHub = ReturnType<typeof sseHub>;
