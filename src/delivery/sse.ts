/**
 * Server-Sent Events for the event log. Each stream first replays what came
 * after `Last-Event-ID` (or `?since=`), then follows new events (woken by the
 * bus, with a poll as the safety net), sends a heartbeat comment every 15 s,
 * and after 60 s says `event: close` with where to resume.
 *
 * Access can be taken away while a stream is open (its secret rotated away, its console session
 * ended, the tenant suspended): every poll, and a wake-up more than ACCESS_RECHECK_MS after the
 * last check, first asks `allowed` (from the database), and a stream no longer allowed ends with
 * `event: close` (reason access_revoked) before it sends anything more. Asked at every wake-up,
 * the three reads per stream per event doubled the stream's latency under a burst (100 streams:
 * p99 12 → 30 ms); a request's own credentials are cached as long (AUTH_CACHE_MS).
 *
 * A stream follows ids. Where an event can commit after a newer one (PostgreSQL: concurrent
 * transactions, several processes), a stream that already passed its id would never send it:
 * so at each poll it also asks for the ids of the last LATE_MS before its position and sends the
 * ones it has not (out of id order: receivers dedup and order on event_id and created_at).
 *
 * A client slower than its events (or one that stopped reading) holds the stream back, not the
 * process's memory: the next batch is read from the log only once the client took the last one
 * (its buffer drained), so what waits for it waits in the log. At the stream's end, a client that
 * has not taken the close frame a heartbeat later has its connection closed; it resumes from the
 * last event it got, as from any dropped stream.
 */
import type { ServerResponse } from 'node:http';
import type { Store, EventRow, Tenant } from '../store/index.js';
import type { EventBus } from '../domain/events/bus.js';
import type { StreamClosed, StreamedEvent } from '../contract/event.js';
import { eventIdFloor } from '../domain/ids.js';

export interface SseSettings {
  maxMs: number;
  heartbeatMs: number;
  pollMs: number;
}

const BATCH = 200;
/** How long (business time) a stream's access, once checked, serves its wake-ups. */
const ACCESS_RECHECK_MS = 1_000;
/** How long after its created_at an event may commit and still reach a stream that passed it. */
export const LATE_MS = 10_000;

/** Resolves once `res` can take more (what it holds has gone out) or is closed. */
function drained(res: ServerResponse): Promise<void> {
  if (!res.writableNeedDrain || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

export function sseHub(deps: { store: Store; bus: EventBus }, settings: SseSettings) {
  type Stream = {
    tenantId: string;
    res: ServerResponse;
    lastId?: string;
    sinceMs?: number;
    lastCreatedAt?: number;
    busy: boolean;
    again: boolean;
    /** Where the stream started: what it sends is after this id (Last-Event-ID) or created after sinceMs. */
    startId?: string;
    /** The ids it sent in the last LATE_MS before lastCreatedAt (kept only where commits can be late), oldest first. */
    recent: { id: string; at: number }[];
    /** A poll asked for the look-back (done by the pump running now, if one is). */
    lookBackDue: boolean;
    /** Why the stream may no longer be served (undefined: it may). */
    allowed: () => Promise<string | undefined>;
    /** When `allowed` last said yes (business time). */
    allowedAt: number;
    now: () => number;
    /** Ends the stream with its close frame. */
    end: (reason: StreamClosed['reason'], message?: string) => void;
  };
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
   * event_id), losses are not. Where events can commit late, LATE_MS earlier, for the same reason.
   * Before any event, the stream's own start (it sent nothing older).
   */
  function reconnectSince(s: Stream, nowMs: () => number): number {
    if (s.lastCreatedAt !== undefined) return s.lastCreatedAt - (late ? LATE_MS : 1);
    return s.sinceMs ?? nowMs();
  }

  const late = deps.store.events.lateCommits;

  function send(s: Stream, e: EventRow) {
    if (s.res.writableEnded) return;
    s.res.write(frame(e));
    if (late) s.recent.push({ id: e.id, at: e.created_at });
  }

  /** Sends what committed late: events of the last LATE_MS up to the stream's position that it has not sent. */
  async function sendLate(s: Stream) {
    if (s.lastId === undefined || s.lastCreatedAt === undefined) return;
    const horizon = s.lastCreatedAt - LATE_MS;
    let dropped = 0;
    while (dropped < s.recent.length && s.recent[dropped]!.at < horizon) dropped++;
    s.recent.splice(0, dropped);
    const floor = eventIdFloor(horizon);
    const after = s.startId !== undefined && s.startId > floor ? s.startId : floor;
    const ids = await deps.store.events.eventIdsBetween(s.tenantId, after, s.lastId, s.startId === undefined ? s.sinceMs : undefined);
    if (ids.length <= s.recent.length) return; // the common case: nothing came late
    const sent = new Set(s.recent.map((r) => r.id));
    const rows = await deps.store.events.eventsByIds(s.tenantId, ids.filter((id) => !sent.has(id)));
    if (!(await allowedFor(s, rows))) return;
    for (const e of rows) send(s, e);
  }

  /** Whether rows just read may be sent: a check that went stale while they were read (a slow read, a moved test clock) is asked again. */
  async function allowedFor(s: Stream, rows: readonly EventRow[]): Promise<boolean> {
    return rows.length === 0 || s.now() - s.allowedAt < ACCESS_RECHECK_MS || stillAllowed(s);
  }

  /**
   * Asks whether the stream's access still holds; false once it ended the stream. An answer that
   * took a second or more is stale when it comes (the change may have landed meanwhile): asked again.
   */
  async function stillAllowed(s: Stream): Promise<boolean> {
    for (;;) {
      const checkedAt = s.now();
      const refused = await s.allowed();
      if (refused !== undefined) {
        s.end('access_revoked', refused);
        return false;
      }
      if (s.now() - checkedAt < ACCESS_RECHECK_MS) {
        s.allowedAt = checkedAt;
        return true;
      }
    }
  }

  async function pump(s: Stream, lookBack = false) {
    if (lookBack && late) s.lookBackDue = true;
    if (s.busy) {
      s.again = true;
      return;
    }
    s.busy = true;
    try {
      do {
        s.again = false;
        if (lookBack || s.now() - s.allowedAt >= ACCESS_RECHECK_MS) {
          if (!(await stillAllowed(s))) return;
        }
        for (;;) {
          await drained(s.res);
          if (s.res.writableEnded || s.res.destroyed) return;
          const rows = await deps.store.events.eventsAfter(s.tenantId, s.lastId ? { id: s.lastId } : { createdAtMs: s.sinceMs }, BATCH);
          if (!(await allowedFor(s, rows))) return;
          for (const e of rows) {
            send(s, e);
            s.lastId = e.id;
            s.lastCreatedAt = e.created_at;
          }
          if (rows.length < BATCH) break;
        }
        if (s.lookBackDue) {
          s.lookBackDue = false;
          await sendLate(s);
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

    /** Bytes written to the open streams that their clients have not taken yet. */
    bufferedBytes(): number {
      let bytes = 0;
      for (const s of streams) bytes += s.res.writableLength;
      return bytes;
    },

    /**
     * Serves one stream on `res` until it closes (60 s), the client goes away, or `allowed`
     * (asked at every wake-up and poll) gives a reason it may no longer be served.
     */
    async serve(
      tenant: Tenant,
      res: ServerResponse,
      resume: { lastEventId?: string; sinceMs?: number },
      nowMs: () => number,
      allowed: () => Promise<string | undefined> = async () => undefined,
    ) {
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
      let finish!: () => void;
      const finished = new Promise<void>((resolve) => (finish = resolve));
      res.on('close', () => finish());
      // With neither, a stream starts at "now": only new events.
      const s: Stream = {
        tenantId: tenant.id,
        res,
        busy: false,
        again: false,
        recent: [],
        lookBackDue: false,
        allowed,
        // Authenticated by the request that opened it.
        allowedAt: nowMs(),
        now: nowMs,
        end(reason, message) {
          if (!res.writableEnded) {
            const since = new Date(reconnectSince(s, nowMs)).toISOString();
            const closed: StreamClosed = { reason, ...(message !== undefined && { message }), reconnect_with_since: since, ...(s.lastId && { last_event_id: s.lastId }) };
            res.write(`event: close\ndata: ${JSON.stringify(closed)}\n\n`);
            res.end();
            if (!res.writableFinished) {
              const cut = setTimeout(() => res.destroy(), settings.heartbeatMs).unref();
              res.once('finish', () => clearTimeout(cut));
              res.once('close', () => clearTimeout(cut));
            }
          }
          finish();
        },
      };
      if (resume.lastEventId) s.lastId = s.startId = resume.lastEventId;
      // "Now" includes the opening millisecond: an event recorded right after the client saw the
      // headers can share it, and would be skipped (one recorded just before may be sent: extra, not lost).
      else s.sinceMs = resume.sinceMs ?? nowMs() - 1;
      streams.add(s);
      const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), settings.heartbeatMs);
      const poll = setInterval(() => void pump(s, true), settings.pollMs);
      // From the start: a replay a slow client holds back still ends on time.
      const close = setTimeout(() => s.end('max_duration'), settings.maxMs);
      void pump(s);
      await finished;
      clearTimeout(close);
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
