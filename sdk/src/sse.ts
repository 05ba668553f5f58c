/**
 * `GET /api/v1/events/stream` as an async iterator. The server closes each connection after
 * 60 s (`event: close`) and a network can drop one at any time; either way the iterator
 * reconnects with `Last-Event-ID` (the id of the last event it yielded), so nothing is skipped
 * and nothing repeated. Heartbeat comments are read and dropped.
 */
import type { Core } from './core.js';
import { sleep } from './core.js';
import { BlueLineError } from './errors.js';
import type { WebhookEvent } from './webhook-types.js';

/** One frame's data: the event record's id, type, payload (the webhook envelope) and created_at. */
export interface StreamEvent<P = WebhookEvent> {
  id: string;
  type: string;
  payload: P;
  created_at: string;
}

export interface StreamOptions {
  /** Start after this ISO 8601 time (default: now, only new events). */
  since?: string;
  /** Resume after this event id (wins over `since`). */
  lastEventId?: string;
  /** Stop the iterator (or just `break` out of the loop). */
  signal?: AbortSignal;
  /** Reconnects in a row without receiving a frame before giving up. Default 10. */
  maxReconnects?: number;
  /**
   * A connection that sends nothing, not even the server's heartbeat (every 15 s), for this long
   * is taken for dead and opened again: a proxy or NAT can drop one without closing it. Default
   * 45 000 ms; 0 never gives up on a silent connection.
   */
  idleTimeoutMs?: number;
  /** Called on each (re)connection, with the id it resumes after. */
  onConnect?: (resumeAfter: string | undefined) => void;
}

interface Frame {
  id?: string;
  event?: string;
  data: string;
}

export async function* streamEvents(core: Core, opts: StreamOptions = {}): AsyncGenerator<StreamEvent, void, undefined> {
  let lastId = opts.lastEventId;
  let since = opts.since;
  let retryMs = 1000;
  let failures = 0;
  const maxReconnects = opts.maxReconnects ?? 10;
  while (!opts.signal?.aborted) {
    let res: Response;
    try {
      opts.onConnect?.(lastId);
      res = await core.request<Response>({
        method: 'GET',
        path: '/api/v1/events/stream',
        query: lastId ? undefined : { since },
        headers: { accept: 'text/event-stream', ...(lastId && { 'last-event-id': lastId }) },
        retry: 'idempotent',
        raw: true,
        timeoutMs: 0,
        signal: opts.signal,
      });
    } catch (err) {
      if (opts.signal?.aborted || err instanceof BlueLineError || ++failures > maxReconnects) throw err;
      await sleep(retryMs, opts.signal);
      continue;
    }
    let closed = false;
    try {
      for await (const frame of frames(res.body!, opts.idleTimeoutMs ?? 45_000)) {
        failures = 0;
        if (frame.event === 'close') {
          // Only when no event has been seen does the server's `since` matter; an id resumes exactly.
          const info = safeJson(frame.data) as { reconnect_with_since?: string } | undefined;
          if (!lastId && info?.reconnect_with_since) since = info.reconnect_with_since;
          closed = true;
          break;
        }
        if (frame.event === undefined && frame.data === '' && frame.id === undefined) continue;
        const retry = /^retry:(\d+)$/.exec(frame.data);
        if (retry) {
          retryMs = Math.min(Number(retry[1]), 30_000);
          continue;
        }
        const event = safeJson(frame.data) as StreamEvent | undefined;
        if (!event) continue;
        if (frame.id) lastId = frame.id;
        yield event;
      }
    } catch (err) {
      if (opts.signal?.aborted) return;
      if (++failures > maxReconnects) throw err;
    } finally {
      // Leaving early (break, return, throw) releases the connection.
      await res.body?.cancel().catch(() => undefined);
    }
    if (opts.signal?.aborted) return;
    if (!closed) await sleep(retryMs, opts.signal).catch(() => undefined);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Nothing arrived on the stream for the idle timeout: the connection is taken for dead. */
export class StreamIdleError extends Error {
  constructor(ms: number) {
    super(`the event stream sent nothing for ${ms} ms (not even a heartbeat)`);
    this.name = 'StreamIdleError';
  }
}

/** The next chunk, or StreamIdleError after `idleMs` without one (0: wait for ever). */
function readWithin(reader: ReadableStreamDefaultReader<Uint8Array>, idleMs: number) {
  if (idleMs <= 0) return reader.read();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StreamIdleError(idleMs)), idleMs);
  });
  return Promise.race([reader.read(), idle]).finally(() => clearTimeout(timer));
}

/** The event-stream format: frames end at a blank line; `retry:` is passed on as data `retry:<ms>`. */
async function* frames(body: ReadableStream<Uint8Array>, idleMs: number): AsyncGenerator<Frame> {
  const decoder = new TextDecoder();
  let buffer = '';
  let frame: Frame = { data: '' };
  let hasData = false;
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await readWithin(reader, idleMs);
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1));
        if (line === '') {
          if (hasData || frame.event || frame.id) yield frame;
          frame = { data: '' };
          hasData = false;
          continue;
        }
        if (line.startsWith(':')) continue; // heartbeat
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') {
          frame.data = hasData ? `${frame.data}\n${value}` : value;
          hasData = true;
        } else if (field === 'event') frame.event = value;
        else if (field === 'id') frame.id = value;
        else if (field === 'retry' && /^\d+$/.test(value)) {
          yield { data: `retry:${value}` };
        }
      }
    }
  } finally {
    reader.releaseLock();
  }
}
