/**
 * One HTTP exchange with the API, with authentication (bearer or HMAC v1), a timeout and the
 * retry policy of the spec (Errors → retry strategy):
 *   - a retry only when the API says `retryable: true`, on 429/503 with Retry-After, or when no
 *     answer arrived and repeating cannot do a thing twice (see `RetryMode`); a call that is
 *     unsafe to repeat is retried after an answer only when that answer shows nothing was done;
 *   - `retry_after` / `Retry-After` is honoured (plus up to a quarter, so callers told the same
 *     second spread out), otherwise capped jittered exponential backoff;
 *   - a failure that recorded a message (its `message_id`) is never repeated: the caller checks it;
 *   - an ambiguous failure (the request may have been processed) of a non-idempotent call is
 *     never retried; /send and POST /chats carry an idempotency key, which makes them safe.
 * Runs on Node 20+ and in browsers (fetch, WebCrypto); nothing here imports node: modules.
 */
import { BlueLineConnectionError, BlueLineError, UnexpectedResponseError, errorFromBody, rangeNotSatisfiable } from './errors.js';

/** `session`: a browser signed in to the console (cookie) — no secret; state changes carry the CSRF token. */
export type AuthMode = 'bearer' | 'hmac' | 'session';

/** A fetch request body (named here: Node's types have no global `BodyInit`). */
export type Body = NonNullable<RequestInit['body']>;
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

export interface BluelineOptions {
  /** Default: `BLUELINE_URL`, else `http://127.0.0.1:8787`. */
  baseUrl?: string;
  /** The account signing secret. Default: `BLUELINE_SECRET`. Never ship it to a browser. */
  secret?: string;
  /** Tenant slug (`x-service-tenant`): needed by multi-tenant accounts and the event routes (a single-tenant account's bearer or HMAC signature says whose it is). Default: `BLUELINE_TENANT`. */
  tenant?: string;
  /**
   * Default `bearer`. `hmac` signs every request (`x-service-signature: v1,<ts>,<hex>`) but the
   * upload PUT and the two rotations whose answer is a secret (signing secret, webhook secret),
   * which the API takes by bearer only.
   */
  auth?: AuthMode;
  /** Per attempt. Default 60 000 ms. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** Backoff when the API gives no retry_after: base doubling per retry, capped, jittered. Defaults 1 s / 8 s (the spec's 1 s, 2 s, 4 s). */
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
  /** A retry_after longer than this (seconds) is not waited for: the error is thrown with it. Default 60. */
  maxRetryAfterSeconds?: number;
  /** The `service` segment of `x-service-*` header names (the server's BLUELINE_HEADER_BRAND). */
  brand?: string;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** `auth: 'session'`: the session's CSRF token (from sign-in or `console.session()`), sent as x-csrf-token. */
  csrfToken?: string;
}

/**
 * How safe it is to repeat a call whose answer never arrived:
 *   idempotent  reads, deletes, and /send or POST /chats with their idempotency key: always
 *   unsafe      anything else: only when the connection was never made, or when the API refused
 *               it before acting (429, or a retryable answer with retry_after)
 */
export type RetryMode = 'idempotent' | 'unsafe';

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string;
  query?: Record<string, string | number | boolean | null | undefined>;
  /** A JSON body. */
  json?: unknown;
  /** A non-JSON body, created afresh for each attempt (an upload). */
  body?: () => Promise<{ body: Body; length: number }>;
  headers?: Record<string, string>;
  retry: RetryMode;
  /** Give back the Response (2xx) unread: downloads and SSE. */
  raw?: boolean;
  /** Override the client's timeout (0: none, e.g. a stream). */
  timeoutMs?: number;
  /** Use this bearer instead of the client's auth (the upload slot's token). */
  bearer?: string;
  /**
   * The route answers with a secret and takes no request signature (a signature names no route,
   * so one copied from a log could be replayed to be issued a secret): `auth: 'hmac'` sends the
   * secret as the bearer for this call.
   */
  noSignature?: boolean;
  /** An absolute URL instead of baseUrl + path (the upload_url). */
  url?: string;
  signal?: AbortSignal;
}

const env = (name: string): string | undefined =>
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name] || undefined;

// Errors raised while connecting: nothing reached the server, so any request can be repeated.
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export class Core {
  readonly baseUrl: string;
  readonly tenant: string | undefined;
  readonly auth: AuthMode;
  readonly brand: string;
  // Credentials live in ECMAScript private fields: JSON.stringify, console.log and util.inspect
  // of a client (a logged error's context, a serialized config) never show them.
  readonly #secret: string | undefined;
  #csrfToken: string | undefined;
  private readonly timeoutMs: number;
  readonly maxRetries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxRetryAfterSeconds: number;
  private readonly fetchImpl: typeof fetch;
  /** On Node without a custom fetch, streamed bodies go through node:http (see node-put.ts). */
  private readonly streamingFetch: ((url: string, init: RequestInit) => Promise<Response>) | undefined;
  #hmacKey: Promise<HmacKey> | undefined;

  constructor(o: BluelineOptions = {}) {
    this.baseUrl = (o.baseUrl ?? env('BLUELINE_URL') ?? 'http://127.0.0.1:8787').replace(/\/+$/, '');
    this.#secret = o.secret ?? env('BLUELINE_SECRET');
    this.tenant = o.tenant ?? env('BLUELINE_TENANT');
    this.auth = o.auth ?? 'bearer';
    this.#csrfToken = o.csrfToken;
    this.brand = (o.brand ?? 'service').toLowerCase();
    this.timeoutMs = o.timeoutMs ?? 60_000;
    this.maxRetries = Math.max(0, o.maxRetries ?? 2);
    this.baseDelayMs = o.retryBaseDelayMs ?? 1_000;
    this.maxDelayMs = o.retryMaxDelayMs ?? 8_000;
    this.maxRetryAfterSeconds = o.maxRetryAfterSeconds ?? 60;
    this.fetchImpl = o.fetch ?? globalThis.fetch.bind(globalThis);
    const onNode = typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';
    this.streamingFetch = !o.fetch && onNode ? (url, init) => import('./node-put.js').then((m) => m.nodeStreamingFetch(url, init)) : undefined;
  }

  /** `auth: 'session'`: sent as x-csrf-token on every request that is not a GET. */
  get csrfToken(): string | undefined {
    return this.#csrfToken;
  }
  set csrfToken(token: string | undefined) {
    this.#csrfToken = token;
  }

  async request<T>(spec: RequestSpec): Promise<T> {
    return (await this.send(spec)) as T;
  }

  /** The parsed JSON body, or the Response itself when `raw`. */
  async send(spec: RequestSpec): Promise<unknown> {
    const url = spec.url ?? this.baseUrl + spec.path + queryString(spec.query);
    const payload = spec.json === undefined ? undefined : JSON.stringify(spec.json);
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.maxRetries;
      const timeoutMs = spec.timeoutMs ?? this.timeoutMs;
      const signals = [spec.signal, timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined].filter((s): s is AbortSignal => !!s);
      const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
      let res: Response;
      try {
        const init: RequestInit & { duplex?: 'half' } = { method: spec.method, headers: await this.headers(spec, payload), signal };
        if (this.auth === 'session') init.credentials = 'include';
        if (payload !== undefined) init.body = payload;
        else if (spec.body) {
          const b = await spec.body();
          init.body = b.body;
          (init.headers as Record<string, string>)['content-length'] = String(b.length);
          init.duplex = 'half';
        }
        res = spec.body && this.streamingFetch ? await this.streamingFetch(url, init) : await this.fetchImpl(url, init);
      } catch (err) {
        if (spec.signal?.aborted) throw spec.signal.reason ?? err;
        const connectFailed = CONNECT_ERRORS.has(errorCode(err));
        if (!last && (spec.retry === 'idempotent' || connectFailed)) {
          await sleep(this.backoff(attempt), spec.signal);
          continue;
        }
        throw new BlueLineConnectionError(`${spec.method} ${spec.path}: no answer (${describe(err)})`, !connectFailed, { cause: err });
      }
      if (res.ok && spec.raw) return res;
      let text: string;
      try {
        text = await res.text();
      } catch (err) {
        // Headers arrived, the body did not: the request was processed.
        if (!last && spec.retry === 'idempotent') {
          await sleep(this.backoff(attempt), spec.signal);
          continue;
        }
        throw new BlueLineConnectionError(`${spec.method} ${spec.path}: the answer was cut off (${describe(err)})`, true, { cause: err });
      }
      const traceId = res.headers.get('x-trace-id');
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (res.ok) {
        if (body === undefined && text !== '') throw new UnexpectedResponseError(res.status, text, traceId);
        return body;
      }
      const retryAfterHeader = parseRetryAfter(res.headers.get('retry-after'));
      const error = errorFromBody(res.status, body, traceId, retryAfterHeader);
      const retryAfter = error ? error.retryAfter : retryAfterHeader;
      const retryable = error
        ? error.retryable
        : retryAfterHeader !== null && (res.status === 429 || res.status === 503);
      // An answer means the request reached the service. A call that is unsafe to repeat is
      // repeated only when the answer shows nothing was done: a rate limit, or "later" with a
      // retry_after. Any other retryable failure may have acted (3002 for a message the line
      // took but never confirmed, 3001): the caller checks before sending again.
      // A failure that recorded a message (a send the line refused, or one it may have taken) is
      // the caller's to look at (`messages.get`) before anything is sent again: a retry would be
      // a new attempt, and its answer would replace this one and its message id.
      const recorded = error?.messageId != null;
      const repeatable = !recorded && (spec.retry === 'idempotent' || res.status === 429 || retryAfter !== null);
      if (!last && retryable && repeatable && (retryAfter === null || retryAfter <= this.maxRetryAfterSeconds)) {
        // Callers told the same retry_after would all come back in the same second: spread by up to a quarter.
        await sleep(retryAfter !== null ? retryAfter * 1000 * (1 + Math.random() / 4) : this.backoff(attempt), spec.signal);
        continue;
      }
      if (!error && res.status === 416) throw rangeNotSatisfiable(rangeOf(spec.headers), res.headers.get('content-range'), traceId);
      throw error ?? new UnexpectedResponseError(res.status, text, traceId);
    }
  }

  /** `attempt` 0 is the first retry: base, 2×base, 4×base… capped (the spec's 1 s, 2 s, 4 s), each ±25 %. */
  private backoff(attempt: number): number {
    const step = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** attempt);
    return step * (0.75 + Math.random() / 2);
  }

  private async headers(spec: RequestSpec, payload: string | undefined): Promise<Record<string, string>> {
    const h: Record<string, string> = { accept: 'application/json', ...spec.headers };
    if (payload !== undefined) h['content-type'] = 'application/json';
    if (spec.bearer) {
      h.authorization = `Bearer ${spec.bearer}`;
      return h;
    }
    if (this.auth === 'session') {
      // The cookie authenticates; the token in a header proves the request came from the console's page.
      if (spec.method !== 'GET' && this.#csrfToken) h['x-csrf-token'] = this.#csrfToken;
      return h;
    }
    if (this.tenant) h[`x-${this.brand}-tenant`] = this.tenant;
    if (!this.#secret) return h; // the API answers 2012, as a typed error
    // The upload PUT and the routes answering a secret take bearer only; every other route takes the configured mode.
    if (this.auth === 'hmac' && !spec.body && !spec.noSignature) {
      const ts = Math.floor(Date.now() / 1000);
      h[`x-${this.brand}-signature`] = `v1,${ts},${await this.hmacHex(`${ts}.${payload ?? ''}`)}`;
    } else {
      h.authorization = `Bearer ${this.#secret}`;
    }
    return h;
  }

  private async hmacHex(message: string): Promise<string> {
    this.#hmacKey ??= crypto.subtle.importKey('raw', new TextEncoder().encode(this.#secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await this.#hmacKey, new TextEncoder().encode(message)));
    let hex = '';
    for (const b of mac) hex += b.toString(16).padStart(2, '0');
    return hex;
  }
}

function rangeOf(headers: Record<string, string> | undefined): string | null {
  for (const [name, value] of Object.entries(headers ?? {})) if (name.toLowerCase() === 'range') return value;
  return null;
}

export function queryString(query: RequestSpec['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) params.append(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

export function parseRetryAfter(value: string | null): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener('abort', abort);
      resolve();
    };
    const t = setTimeout(done, ms);
    const abort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/** The system error code behind a fetch failure (undici wraps it in `cause`). */
function errorCode(err: unknown): string {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (typeof e.code === 'string') return e.code;
  }
  return '';
}

function describe(err: unknown): string {
  const code = errorCode(err);
  const msg = err instanceof Error ? err.message : String(err);
  return code ? `${code}: ${msg}` : msg;
}

export { BlueLineError };
