/**
 * Request bodies that never finish. fastify reads a body before authentication (HMAC needs
 * the bytes), so without a bound anyone could hold a connection open by sending a
 * Content-Length and then too few bytes. Two rules, checked by one shared ticker (no timer
 * per request, none at all while no body is in flight):
 *
 *  - a JSON body must have arrived `bodyTimeoutMs` after the request started;
 *  - a route that takes large bodies (`config.minBodyRate`, the upload) must instead bring at
 *    least that many bytes per second over each `bodyTimeoutMs` window, so a real slow upload
 *    goes on as long as it keeps moving.
 *
 * The same ticker watches the answers of routes that stream stored files (`config.minAnswerRate`:
 * an attachment's content, the simulator's device files): a client that takes less than the
 * upload's minimum rate over a window, while the answer waits on it, has its connection closed
 * (the rate and window of `uploadMinBytesPerSec` and `bodyTimeoutMs`). A reader that stopped would
 * otherwise hold the connection, and the file or the bucket's stream behind it, for good. The
 * answer's head is long gone by then, so there is nothing to answer: the client sees the body cut
 * short of its Content-Length.
 *
 * A late body is answered 408 in the envelope (with `Connection: close`, so the rest of the body
 * is not waited for). The error takes the ordinary error path: for JSON it is raised on the
 * request stream fastify's body reader listens to; a rate-checked route reads its body through
 * `watchedBody(req)`, a stream the guard can fail without destroying the socket (destroying the
 * request itself would, and then no answer could be written).
 */
import { PassThrough, Stream, type Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import { HttpFailure } from './errors.js';
import { realNowMs } from '../clock.js';

export interface SlowBodyOptions {
  bodyTimeoutMs: number;
  /** Default minimum rate (bytes per second) for routes that set `config.minBodyRate: true`. */
  uploadMinBytesPerSec: number;
}

interface InFlight {
  req: FastifyRequest;
  reply: FastifyReply;
  /** Per-second minimum for rate-checked routes; undefined: the whole body within the timeout. */
  minRate: number | undefined;
  windowStart: number;
  bytesAtWindowStart: number;
  /** The stream a rate-checked route reads (watchedBody), once it asked for it. */
  body?: PassThrough;
}

/** A streamed answer being written, and what its connection took since its window began. */
interface Download {
  reply: FastifyReply;
  windowStart: number;
  bytesAtWindowStart: number;
}

const ENTRY = Symbol('slowBody');
type Tracked = FastifyRequest & { [ENTRY]?: InFlight };

/** The body of a rate-checked route, as a stream the guard can fail with its 408. */
export function watchedBody(req: FastifyRequest): Readable {
  const entry = (req as Tracked)[ENTRY];
  if (!entry) return req.raw;
  const body = req.raw.pipe(new PassThrough({ highWaterMark: 64 * 1024 }));
  // pipe() passes no failure on: a client that goes away mid-body must fail the reader, or it waits forever.
  const aborted = () => {
    if (!req.raw.complete) body.destroy(new Error('the client closed the connection before the whole body arrived'));
  };
  req.raw.once('close', aborted);
  req.raw.once('error', aborted);
  entry.body = body;
  return body;
}

export function slowBodyError(timeoutMs: number, minRate?: number): HttpFailure {
  const message =
    minRate === undefined
      ? `the request body did not arrive within ${timeoutMs} ms`
      : `the request body arrived slower than ${minRate} bytes/s over ${timeoutMs} ms`;
  return new HttpFailure(1002, message, 408);
}

function expectsBody(req: FastifyRequest): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

export function registerSlowBodyGuard(app: FastifyInstance, opts: SlowBodyOptions): void {
  const inFlight = new Set<InFlight>();
  const downloads = new Set<Download>();
  const tickMs = Math.max(10, Math.min(1_000, Math.floor(opts.bodyTimeoutMs / 4)));
  let ticker: NodeJS.Timeout | undefined;
  const startTicker = () => {
    ticker ??= setInterval(tick, tickMs).unref();
  };

  function refuse(entry: InFlight, err: HttpFailure) {
    inFlight.delete(entry);
    // The body is left unread: close the connection after the answer instead of waiting for it.
    entry.reply.header('connection', 'close');
    if (entry.body) {
      entry.req.raw.unpipe(entry.body);
      entry.body.destroy(err);
    } else {
      entry.req.raw.emit('error', err);
    }
  }

  function tick() {
    const now = realNowMs();
    for (const entry of inFlight) {
      const { req, reply } = entry;
      const raw = req.raw;
      if (raw.complete || raw.destroyed || reply.sent) {
        inFlight.delete(entry);
        continue;
      }
      const elapsed = now - entry.windowStart;
      if (elapsed < opts.bodyTimeoutMs) continue;
      if (entry.minRate === undefined) {
        // Only a body fastify is reading can be refused this way; until then the next tick looks again.
        if (raw.listenerCount('error') === 0) continue;
        refuse(entry, slowBodyError(opts.bodyTimeoutMs));
        continue;
      }
      const bytes = (raw.socket?.bytesRead ?? 0) - entry.bytesAtWindowStart;
      // Until the route reads the body, and while bytes wait unread, the slowness is ours
      // (authentication, storage), not the client's.
      const ours = !entry.body || raw.readableLength > 0 || entry.body.readableLength > 0;
      if (!ours && bytes < (entry.minRate * elapsed) / 1000) {
        refuse(entry, slowBodyError(opts.bodyTimeoutMs, entry.minRate));
        continue;
      }
      entry.windowStart = now;
      entry.bytesAtWindowStart += bytes;
    }
    for (const d of downloads) watchDownload(d, now);
    if (inFlight.size === 0 && downloads.size === 0 && ticker) {
      clearInterval(ticker);
      ticker = undefined;
    }
  }

  function watchDownload(d: Download, now: number) {
    const res = d.reply.raw;
    const socket = res.socket;
    if (res.writableFinished || res.destroyed || !socket) {
      downloads.delete(d);
      return;
    }
    const elapsed = now - d.windowStart;
    if (elapsed < opts.bodyTimeoutMs) return;
    // What the connection took (bytesWritten counts what is queued on it too, so it stops growing
    // once the client's buffers are full). Only while the answer waits on the client: a source
    // slow to give its bytes (a bucket) is ours to wait for.
    const bytes = socket.bytesWritten - d.bytesAtWindowStart;
    if (res.writableNeedDrain && bytes < (opts.uploadMinBytesPerSec * elapsed) / 1000) {
      downloads.delete(d);
      d.reply.log.info(
        { trace_id: d.reply.request.id, path: d.reply.request.routeOptions.url, bytes_in_window: bytes, window_ms: elapsed },
        `a download was cut: its client took less than ${opts.uploadMinBytesPerSec} bytes/s`,
      );
      socket.destroy();
      return;
    }
    d.windowStart = now;
    d.bytesAtWindowStart += bytes;
  }

  const watchAnswer: onSendHookHandler = (_req, reply, payload, done) => {
    const socket = reply.raw.socket;
    if (payload instanceof Stream && socket) {
      const entry: Download = { reply, windowStart: realNowMs(), bytesAtWindowStart: socket.bytesWritten };
      downloads.add(entry);
      reply.raw.once('close', () => downloads.delete(entry));
      startTicker();
    }
    done(null, payload);
  };
  // On the routes that stream files only (`config.minAnswerRate`): no hook on any other answer.
  app.addHook('onRoute', (r) => {
    if (!r.config?.minAnswerRate) return;
    r.onSend = [...(r.onSend === undefined ? [] : [r.onSend].flat()), watchAnswer];
  });

  app.addHook('onRequest', (req, reply, done) => {
    if (expectsBody(req) && !req.raw.complete) {
      const minRate = req.routeOptions.config?.minBodyRate ? opts.uploadMinBytesPerSec : undefined;
      const entry: InFlight = { req, reply, minRate, windowStart: realNowMs(), bytesAtWindowStart: req.raw.socket?.bytesRead ?? 0 };
      inFlight.add(entry);
      // Out of the set as soon as the body is in. Left for the tick, the set held every request
      // and its reply for up to a second: long enough to survive the young generation's
      // collections, which cost a send ~10 % of its CPU (bench/README, twenty-seventh session).
      req.raw.once('end', () => inFlight.delete(entry));
      if (minRate !== undefined) (req as Tracked)[ENTRY] = entry;
      startTicker();
    }
    done();
  });
  app.addHook('onClose', (_app, done) => {
    if (ticker) clearInterval(ticker);
    ticker = undefined;
    inFlight.clear();
    downloads.clear();
    done();
  });
}
