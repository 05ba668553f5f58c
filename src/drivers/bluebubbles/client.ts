/**
 * A small HTTP client for BlueBubbles Server's REST API (/api/v1).
 *
 * - Authenticates with the server password in the `password` query parameter
 *   (BlueBubbles' AuthMiddleware reads `guid`, `password` or `token` from the
 *   query string). The URL therefore carries a secret: it is never put into an
 *   error message, and the password is scrubbed from any text we pass on.
 * - Every request has a time limit and refuses redirects, so the password is never replayed to
 *   another host. A call without a file has one limit for all of it. A file's body has an idle
 *   limit instead (file-limits.ts): an upload fails when no bytes of its body were taken for the
 *   line's timeout_ms, or when the body outlasts its limit; then its answer gets the upload's
 *   wait. A download gets the request's limit for its headers, then fails when no bytes came for
 *   timeout_ms while they were being read, or when it outlasts the 30-minute cap.
 * - JSON answers are the `{ status, message, data, error }` envelope; a non-2xx
 *   answer becomes a BlueBubblesError carrying BlueBubbles' own message texts.
 */
import { Readable } from 'node:stream';
import type { MultipartBody } from '../../net/multipart.js';
import type { BBEnvelope } from './api-types.js';
import { CallTimer } from './call-timer.js';
import type { BlueBubblesConfig } from './config.js';
import { FILE_TRANSFER_CAP_MS } from './file-limits.js';

export type BlueBubblesErrorKind = 'network' | 'timeout' | 'redirect' | 'http' | 'bad_response';

export class BlueBubblesError extends Error {
  constructor(
    readonly kind: BlueBubblesErrorKind,
    message: string,
    readonly details: {
      status?: number;
      /** The answer was BlueBubbles' JSON envelope (not a proxy's error page). */
      envelope?: boolean;
      bbMessage?: string;
      bbErrorType?: string;
      bbError?: string;
      data?: unknown;
      /** A transport error code such as ECONNREFUSED. */
      code?: string;
    } = {},
  ) {
    super(message);
    this.name = 'BlueBubblesError';
  }

  /** BlueBubbles' own words about the failure (message and error text), for matching. */
  get serverText(): string {
    return [this.details.bbMessage, this.details.bbErrorType, this.details.bbError].filter(Boolean).join(' | ');
  }
}

export interface RequestOptions {
  query?: Record<string, string>;
  json?: unknown;
  /** A multipart body streamed from its files as it is sent (net/multipart.ts); closed once the call is over. */
  multipart?: MultipartBody;
  /**
   * The call's limit (default the line's timeout_ms); with a multipart body, the wait for the
   * answer once the body is sent.
   */
  timeoutMs?: number;
  /** With a multipart body: the longest sending it may take (at most, and by default, FILE_TRANSFER_CAP_MS). */
  bodyLimitMs?: number;
}

export interface Download {
  /**
   * The file's bytes as they arrive (never held whole). A body that stalls (no bytes for the
   * line's timeout_ms while they are read), outlasts the cap or is cut off errors with the
   * failure (mapped by the caller's `failure`).
   */
  body: Readable;
  contentType?: string;
  filename?: string;
}

type FetchLike = typeof fetch;

export class BlueBubblesClient {
  readonly host: string;

  constructor(
    private readonly cfg: BlueBubblesConfig,
    private readonly fetchImpl: FetchLike = fetch,
  ) {
    this.host = new URL(cfg.baseUrl).host;
  }

  get timeoutMs(): number {
    return this.cfg.timeoutMs;
  }

  /** Removes the password (raw and URL-encoded) from text that may leave the driver. */
  redact(text: string): string {
    const secrets = new Set([this.cfg.password, encodeURIComponent(this.cfg.password), new URLSearchParams({ p: this.cfg.password }).toString().slice(2)]);
    let out = text;
    for (const s of secrets) if (s.length >= 1) out = out.split(s).join('***');
    return out;
  }

  private url(path: string, query: Record<string, string> = {}): URL {
    const u = new URL(this.cfg.baseUrl + path);
    for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
    u.searchParams.set('password', this.cfg.password);
    return u;
  }

  /** Makes the request under `timer`: its answer's wait, or a multipart body's limits and then that wait. */
  private async send(method: string, path: string, opts: RequestOptions, timer: CallTimer): Promise<Response> {
    const waitMs = opts.timeoutMs ?? this.cfg.timeoutMs;
    const what = `${method} ${path}`;
    let body: RequestInit['body'];
    let upload: TimedBody | undefined;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (opts.multipart) {
      upload = timedBody(opts.multipart.body, timer, { what, idleMs: this.cfg.timeoutMs, limitMs: Math.min(opts.bodyLimitMs ?? FILE_TRANSFER_CAP_MS, FILE_TRANSFER_CAP_MS), waitMs });
      body = upload.body;
      headers['content-type'] = opts.multipart.contentType;
      headers['content-length'] = String(opts.multipart.length);
    } else {
      timer.arm('wait', waitMs, answerWithin(what, waitMs));
      if (opts.json !== undefined) {
        body = JSON.stringify(opts.json);
        headers['content-type'] = 'application/json';
      }
    }
    // A streamed body is refused a redirect by fetch itself ('error'): with 'manual' (or 'follow')
    // Node's fetch clones the request as if to send it again, and the clone's copy of the body
    // keeps every chunk already sent until the request ends (a 100 MiB upload grew the process
    // by ~117 MB that way; with 'error', ~34 MB of garbage at the peak). Duplex 'half': the only
    // mode fetch has for a streamed body.
    const init = { method, headers, body, redirect: opts.multipart ? 'error' : 'manual', signal: timer.signal, ...(opts.multipart && { duplex: 'half' }) };
    let res: Response;
    try {
      res = await this.fetchImpl(this.url(path, opts.query), init as RequestInit);
    } catch (err) {
      // A file that could not be read to its end stopped the request: that is the failure, not the Mac.
      if (opts.multipart?.sourceFailure !== undefined) throw opts.multipart.sourceFailure;
      if (opts.multipart && isRefusedRedirect(err)) throw this.redirectError(what);
      throw this.transportError(err, what, timer);
    }
    // An answer before the whole body (a refusal) is read under the answer's wait.
    upload?.answering();
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => {});
      throw this.redirectError(what, res.status);
    }
    return res;
  }

  private redirectError(what: string, status?: number): BlueBubblesError {
    const code = status === undefined ? '' : ` (${status})`;
    return new BlueBubblesError('redirect', `BlueBubbles Server at ${this.host} answered ${what} with a redirect${code}; check driver_config.url`, { status });
  }

  private transportError(err: unknown, what: string, timer: CallTimer): BlueBubblesError {
    if (timer.expired !== undefined) return new BlueBubblesError('timeout', `BlueBubbles Server at ${this.host} ${timer.expired}`);
    const e = err as { name?: string; cause?: { code?: string; name?: string } };
    if (e?.name === 'TimeoutError' || e?.cause?.name === 'TimeoutError') {
      return new BlueBubblesError('timeout', `BlueBubbles Server at ${this.host} did not answer ${what} in time`);
    }
    const code = typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
    return new BlueBubblesError('network', `BlueBubbles Server at ${this.host} is unreachable (${code ?? 'connection failed'})`, { code });
  }

  private async readText(res: Response, what: string, timer: CallTimer): Promise<string> {
    try {
      return await res.text();
    } catch (err) {
      throw this.transportError(err, what, timer);
    }
  }

  private httpError(res: Response, what: string, text: string): BlueBubblesError {
    const env = tryJson(text);
    if (env) {
      const bbMessage = str(env.message);
      const bbError = str(env.error?.message);
      const detail = this.redact([bbMessage, bbError].filter(Boolean).join(': ') || res.statusText);
      return new BlueBubblesError('http', `BlueBubbles answered ${what} with ${res.status}: ${detail}`, {
        status: res.status, envelope: true, bbMessage: bbMessage && this.redact(bbMessage), bbError: bbError && this.redact(bbError),
        bbErrorType: str(env.error?.type), data: env.data,
      });
    }
    return new BlueBubblesError('http', `BlueBubbles Server at ${this.host} answered ${what} with ${res.status} (not a BlueBubbles answer)`, { status: res.status, envelope: false });
  }

  /** A JSON call; resolves with the envelope of a 2xx answer. */
  async request<T>(method: 'GET' | 'POST' | 'DELETE' | 'PUT', path: string, opts: RequestOptions = {}): Promise<BBEnvelope<T>> {
    const what = `${method} ${path}`;
    const timer = new CallTimer();
    let res: Response;
    let text: string;
    try {
      res = await this.send(method, path, opts, timer);
      text = await this.readText(res, what, timer);
    } finally {
      timer.end();
      opts.multipart?.close();
    }
    if (!res.ok) throw this.httpError(res, what, text);
    if (text.trim() === '') return { status: res.status };
    const env = tryJson(text);
    if (!env) throw new BlueBubblesError('bad_response', `BlueBubbles Server at ${this.host} answered ${what} with something that is not JSON`, { status: res.status });
    return env as BBEnvelope<T>;
  }

  /**
   * A file download: resolves once the answer's headers are in (within `timeoutMs`, default the
   * line's timeout_ms), with the bytes exactly as served to be read as they arrive. A body that
   * breaks off, gives nothing for the line's timeout_ms while it is read, or outlasts the cap errors
   * with `failure(the BlueBubblesError)`, as a failed request is mapped by the caller.
   */
  async download(path: string, query: Record<string, string> = {}, timeoutMs?: number, failure: (err: BlueBubblesError) => unknown = (err) => err): Promise<Download> {
    const what = `GET ${path}`;
    const timer = new CallTimer();
    timer.arm('total', FILE_TRANSFER_CAP_MS, `did not send all of ${what} within ${FILE_TRANSFER_CAP_MS / 60_000} minutes`);
    let res: Response;
    try {
      res = await this.send('GET', path, { query, timeoutMs }, timer);
      if (!res.ok) throw this.httpError(res, what, await this.readText(res, what, timer));
    } catch (err) {
      timer.end();
      throw err;
    }
    timer.clear('wait');
    const contentType = res.headers.get('content-type')?.split(';')[0]?.trim() || undefined;
    const idleMs = this.cfg.timeoutMs;
    const body = streamOf(res, {
      waiting: () => timer.arm('idle', idleMs, `sent no bytes of ${what} for ${idleMs} ms`),
      came: () => timer.clear('idle'),
      over: () => timer.end(),
      failure: (err) => failure(this.transportError(err, what, timer)),
    });
    return { body, contentType, filename: filenameFrom(res.headers.get('content-disposition')) };
  }
}

const answerWithin = (what: string, ms: number) => `did not answer ${what} within ${ms} ms`;

interface TimedBody {
  body: ReadableStream<Uint8Array>;
  /** The body is all sent, or the answer came first: from now the answer's wait runs. */
  answering(): void;
}

/**
 * A multipart body as fetch takes it, timed: while it is sent, the call fails when fetch took none
 * of it for `idleMs` (fetch takes the next chunk once the socket has room for it, so a stalled
 * link stops it taking; a file read slowly counts too) or it is not all sent within `limitMs`.
 * Once it is, the answer gets `waitMs`.
 */
function timedBody(source: ReadableStream<Uint8Array>, timer: CallTimer, t: { what: string; idleMs: number; limitMs: number; waitMs: number }): TimedBody {
  const reader = source.getReader();
  let sending = true;
  const answering = () => {
    if (!sending) return;
    sending = false;
    timer.clear('idle');
    timer.clear('total');
    timer.arm('wait', t.waitMs, answerWithin(t.what, t.waitMs));
  };
  timer.arm('idle', t.idleMs, `took no bytes of ${t.what} for ${t.idleMs} ms`);
  timer.arm('total', t.limitMs, `did not take all of ${t.what} within ${t.limitMs} ms`);
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const r = await reader.read();
        if (r.done) {
          controller.close();
          answering();
          return;
        }
        timer.restart('idle');
        controller.enqueue(r.value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    // As the source: nothing read ahead, so a chunk is read only when fetch takes one.
    { highWaterMark: 0 },
  );
  return { body, answering };
}

/**
 * fetch's body as a Node stream, read as the consumer asks (its backpressure reaches the socket),
 * its errors passed through `failure`; destroying it early cancels the download. `waiting` and
 * `came` bracket each read the consumer asked for, so the idle limit runs only while it waits on
 * the Mac, never while the consumer (the blob store) is slow to ask; `over` once it ended.
 */
function streamOf(res: Response, on: { waiting(): void; came(): void; over(): void; failure(err: unknown): unknown }): Readable {
  const reader = res.body?.getReader();
  return new Readable({
    read() {
      if (!reader) return void this.push(null);
      const next = (): void => {
        on.waiting();
        reader.read().then(
          ({ done, value }) => {
            on.came();
            if (this.destroyed) return;
            if (done) {
              on.over();
              return void this.push(null);
            }
            if (value.byteLength === 0) return next();
            this.push(value);
          },
          (err: unknown) => {
            if (!this.destroyed) this.destroy(on.failure(err) as Error);
          },
        );
      };
      next();
    },
    destroy(err, cb) {
      on.over();
      reader?.cancel().catch(() => {});
      cb(err);
    },
  });
}

/** fetch's failure for a redirect it was told not to follow (redirect: 'error'). */
const isRefusedRedirect = (err: unknown) => /redirect/i.test(String((err as { cause?: { message?: unknown } })?.cause?.message ?? ''));

function tryJson(text: string): BBEnvelope | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as BBEnvelope) : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/** filename*=UTF-8''… wins over filename="…" (RFC 6266). */
export function filenameFrom(disposition: string | null): string | undefined {
  if (!disposition) return undefined;
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition);
  if (star?.[1]) {
    try {
      return decodeURIComponent(star[1].trim());
    } catch {
      /* fall through to the plain form */
    }
  }
  const plain = /filename\s*=\s*"((?:[^"\\]|\\.)*)"|filename\s*=\s*([^;]+)/i.exec(disposition);
  const name = plain?.[1] ?? plain?.[2]?.trim();
  return name ? name.replace(/\\(.)/g, '$1') : undefined;
}
