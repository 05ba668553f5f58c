/**
 * Outbound HTTP with the SSRF guard (DESIGN §5): webhook delivery (postJson) and voice-note
 * `audio_url` fetches (fetchBytes).
 *
 * Every hop is checked twice: target-policy.ts on the URL (scheme, credentials, literal IPs, which
 * Node connects to without any lookup) and guarded-lookup.ts on the resolved address at connect
 * time. `allowPrivateNetworks` (operator setting, for local dev receivers) turns both address
 * checks off.
 *
 * Webhook deliveries keep their connections alive: a busy receiver gets many deliveries a
 * second, and a new TCP (and TLS) connection for each costs both sides more than the request.
 * Sockets are pooled per address policy (one pool for "private networks allowed", one per guard
 * otherwise), so a socket opened under a looser policy never carries a stricter request; the
 * address check happens when a socket connects, and a reused socket goes to the address that
 * passed it. A receiver may close an idle socket just as we reuse it: that request is retried
 * once on a fresh socket. Fetches (`audio_url`) are rare and use a socket each.
 */
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { defaultAddressGuard, type AddressGuard } from './guarded-lookup.js';
import { NetError } from './net-error.js';
import { bareHost, parseAbsoluteUrl, targetProblem } from './target-policy.js';

/** Extra trust roots for https (a private CA; tests use a self-signed certificate). */
export type TrustRoots = string | Buffer | Array<string | Buffer>;

export interface PostJsonOptions {
  url: string;
  /** Sent as given (e.g. from deliveryHeaders); content-length is set here. */
  headers: Record<string, string>;
  body: Buffer;
  /** Budget for the whole exchange: DNS, connect, TLS, answer. */
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  /** Default: https is required unless private networks are allowed, as at subscription time. */
  requireHttps?: boolean;
  /** How much of the answer's body is kept (and read at all). Default 4096. */
  maxResponseBytes?: number;
  ca?: TrustRoots;
  /** Replaces the address policy and resolver (tests script DNS with it). Default: defaultAddressGuard. */
  guard?: AddressGuard;
}

export interface PostJsonResult {
  /** Any status, 3xx included: redirects are never followed for webhooks. */
  status: number;
  durationMs: number;
  /** The first maxResponseBytes of the body as UTF-8 (a cut may split a character). */
  bodySnippet: string;
  /** The body was longer than maxResponseBytes, or ended early / ran out of time after the status. */
  bodyTruncated: boolean;
}

/**
 * POST a webhook delivery. Resolves with any HTTP answer; rejects with NetError (with
 * durationMs set) when there is no answer: forbidden address, DNS, connection, timeout.
 */
export async function postJson(options: PostJsonOptions): Promise<PostJsonResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const deadline = startDeadline(options.timeoutMs);
  try {
    const url = parseAbsoluteUrl(options.url);
    if (url instanceof NetError) throw url;
    const problem = targetProblem(url, {
      allowPrivateNetworks: options.allowPrivateNetworks,
      requireHttps: options.requireHttps ?? !options.allowPrivateNetworks,
      guard: options.guard,
    });
    if (problem) throw problem;
    const res = await exchange({
      url,
      method: 'POST',
      headers: { ...options.headers, 'content-length': String(options.body.length) },
      body: options.body,
      allowPrivateNetworks: options.allowPrivateNetworks,
      ca: options.ca,
      guard: options.guard,
      signal: deadline.signal,
      timeoutMs: options.timeoutMs,
      keepAlive: true,
    });
    // Once we have a status the receiver has answered; a body that is cut short, too long or
    // too slow only shortens the stored snippet.
    const read = await readBody(res, deadline.signal, options.maxResponseBytes ?? 4096);
    return {
      status: res.statusCode ?? 0,
      durationMs: elapsed(),
      bodySnippet: read.bytes.toString('utf8'),
      bodyTruncated: read.end !== 'complete',
    };
  } catch (err) {
    if (err instanceof NetError) err.durationMs = elapsed();
    throw err;
  } finally {
    deadline.clear();
  }
}

export interface FetchBytesOptions {
  url: string;
  /** Budget for the whole fetch, redirects included. */
  timeoutMs: number;
  /** Largest accepted body; more aborts the download. */
  maxBytes: number;
  allowPrivateNetworks: boolean;
  /** The spec requires https for audio_url, redirect targets included. Default true. */
  requireHttps?: boolean;
  /** Default 3. Each hop is re-checked like the first URL. */
  maxRedirects?: number;
  ca?: TrustRoots;
  /** Replaces the address policy and resolver (tests script DNS with it). Default: defaultAddressGuard. */
  guard?: AddressGuard;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * GET a URL into memory, never holding more than maxBytes. Rejects with NetError: invalid_url,
 * insecure_url, forbidden_address, dns, connection, timeout, redirect, http_status, too_large.
 */
export async function fetchBytes(options: FetchBytesOptions): Promise<Buffer> {
  const started = performance.now();
  const maxRedirects = options.maxRedirects ?? 3;
  const policy = {
    allowPrivateNetworks: options.allowPrivateNetworks,
    requireHttps: options.requireHttps ?? true,
    guard: options.guard,
  };
  const deadline = startDeadline(options.timeoutMs);
  try {
    const first = parseAbsoluteUrl(options.url);
    if (first instanceof NetError) throw first;
    let url = first;
    for (let hop = 0; ; hop++) {
      try {
        const problem = targetProblem(url, policy);
        if (problem) throw problem;
        const res = await exchange({
          url,
          method: 'GET',
          headers: { accept: '*/*' },
          allowPrivateNetworks: options.allowPrivateNetworks,
          ca: options.ca,
          guard: options.guard,
          signal: deadline.signal,
          timeoutMs: options.timeoutMs,
        });
        const status = res.statusCode ?? 0;
        if (REDIRECT_STATUSES.has(status)) {
          res.destroy();
          url = nextHop(url, res.headers.location, status, hop, maxRedirects);
          continue;
        }
        if (status < 200 || status > 299) {
          res.destroy();
          throw new NetError('http_status', `${url.host} answered ${status}`, status);
        }
        const declared = res.headers['content-length'];
        if (declared !== undefined && Number(declared) > options.maxBytes) {
          res.destroy();
          throw tooLarge(options.maxBytes);
        }
        const read = await readBody(res, deadline.signal, options.maxBytes);
        if (read.end === 'complete') return read.bytes;
        if (read.end === 'overflow') throw tooLarge(options.maxBytes);
        if (read.end === 'timeout') throw timedOut(url, options.timeoutMs);
        throw new NetError('connection', `${url.host}: the body ended before it was complete`);
      } catch (err) {
        // Say that a refusal happened on a redirect target, not on the URL the caller gave.
        if (hop > 0 && err instanceof NetError && err.kind !== 'redirect') {
          throw new NetError(err.kind, `after a redirect: ${err.message}`, err.status);
        }
        throw err;
      }
    }
  } catch (err) {
    if (err instanceof NetError) err.durationMs = Math.round(performance.now() - started);
    throw err;
  } finally {
    deadline.clear();
  }
}

function nextHop(from: URL, location: string | undefined, status: number, hop: number, max: number): URL {
  if (!location) throw new NetError('redirect', `${from.host} answered ${status} without a Location`, status);
  if (hop >= max) throw new NetError('redirect', `more than ${max} redirects`, status);
  try {
    return new URL(location, from);
  } catch {
    throw new NetError('redirect', `${from.host} answered ${status} with an unusable Location`, status);
  }
}

function tooLarge(maxBytes: number): NetError {
  return new NetError('too_large', `the body is larger than ${maxBytes} bytes`);
}

function timedOut(url: URL, timeoutMs: number): NetError {
  return new NetError('timeout', `${url.host}: no complete answer within ${timeoutMs} ms`);
}

function startDeadline(timeoutMs: number): { signal: AbortSignal; clear(): void } {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new TypeError('timeoutMs must be > 0');
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

interface ExchangeOptions {
  url: URL;
  method: 'GET' | 'POST';
  headers: http.OutgoingHttpHeaders;
  body?: Buffer;
  allowPrivateNetworks: boolean;
  ca?: TrustRoots;
  guard?: AddressGuard;
  signal: AbortSignal;
  timeoutMs: number;
  /** Use (and return the socket to) the policy's keep-alive pool. */
  keepAlive?: boolean;
}

interface Pools {
  http: http.Agent;
  https: https.Agent;
}
const newPools = (): Pools => ({
  http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 64 }),
});
const privateNetworkPools = newPools();
const guardedPools = new WeakMap<AddressGuard, Pools>();

function pooledAgent(o: ExchangeOptions, isHttps: boolean): http.Agent {
  let pools = privateNetworkPools;
  if (!o.allowPrivateNetworks) {
    const guard = o.guard ?? defaultAddressGuard;
    const known = guardedPools.get(guard);
    pools = known ?? newPools();
    if (!known) guardedPools.set(guard, pools);
  }
  return isHttps ? pools.https : pools.http;
}

/** One request, no redirects; resolves when the status line and headers have arrived. */
function exchange(o: ExchangeOptions, fresh = false): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const isHttps = o.url.protocol === 'https:';
    const request = isHttps ? https.request : http.request;
    const req = request({
      host: bareHost(o.url),
      port: o.url.port === '' ? undefined : Number(o.url.port),
      path: `${o.url.pathname}${o.url.search}`,
      method: o.method,
      headers: o.headers,
      agent: o.keepAlive && !fresh ? pooledAgent(o, isHttps) : false,
      lookup: o.allowPrivateNetworks ? undefined : (o.guard ?? defaultAddressGuard).lookup,
      signal: o.signal,
      ...(isHttps && o.ca !== undefined ? { ca: o.ca } : {}),
    });
    req.once('response', resolve);
    // `on`, not `once`: a second error (e.g. the abort after a reset) must not go unhandled.
    req.on('error', (err) => {
      const code = (err as NodeJS.ErrnoException).code;
      // The receiver closed an idle pooled socket as we reused it: nothing reached it, try once more.
      if (req.reusedSocket && !o.signal.aborted && (code === 'ECONNRESET' || code === 'EPIPE')) {
        exchange(o, true).then(resolve, reject);
        return;
      }
      reject(classify(err, o));
    });
    req.end(o.body);
  });
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA', 'ENODATA']);

function classify(err: unknown, o: ExchangeOptions): NetError {
  if (err instanceof NetError) return err;
  // Check the guard's verdict through any wrapping Node may add.
  const cause = (err as { cause?: unknown } | null)?.cause;
  if (cause instanceof NetError) return cause;
  if (o.signal.aborted) return timedOut(o.url, o.timeoutMs);
  const e = err as NodeJS.ErrnoException;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  if (code !== undefined && DNS_CODES.has(code)) {
    return new NetError('dns', `${o.url.hostname} did not resolve (${code})`);
  }
  const what = e?.message ?? String(err);
  return new NetError('connection', `${o.url.host}: ${what}${code && !what.includes(code) ? ` (${code})` : ''}`);
}

type BodyEnd = 'complete' | 'overflow' | 'timeout' | 'interrupted';

/** Read at most `limit` bytes, then stop the download. Never rejects; `end` says how it ended. */
function readBody(res: http.IncomingMessage, signal: AbortSignal, limit: number): Promise<{ bytes: Buffer; end: BodyEnd }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (end: BodyEnd) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      resolve({ bytes: Buffer.concat(chunks, size), end });
      if (end !== 'complete') res.destroy();
    };
    const onAbort = () => finish('timeout');
    if (signal.aborted) return finish('timeout');
    signal.addEventListener('abort', onAbort, { once: true });
    res.on('data', (chunk: Buffer) => {
      if (settled) return;
      const room = limit - size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        size += room;
        finish('overflow');
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    res.on('end', () => finish('complete'));
    res.on('error', () => finish('interrupted'));
    res.on('close', () => finish(res.complete ? 'complete' : 'interrupted'));
  });
}
