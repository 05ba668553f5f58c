/**
 * The console's one way to the API: @blueline/sdk with `auth: 'session'` (the HttpOnly cookie
 * authenticates; the CSRF token lives only in memory). No secret is ever stored in the browser.
 */
import { Blueline, BlueLineError } from '@blueline/sdk';

const base = window.location.origin;

/**
 * Told of every 401 outside the sign-in routes: the session may have ended (expired, signed out
 * in another tab), and the shell checks it and shows the sign-in again instead of an error on
 * every screen.
 */
const unauthorizedListeners = new Set<() => void>();
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => void unauthorizedListeners.delete(listener);
}
function noticeUnauthorized(status: number, url: string): void {
  // /console/session and /console/sessions: asking whether a session exists, or signing in.
  if (status === 401 && !new URL(url, base).pathname.startsWith('/api/v1/console/session')) for (const l of unauthorizedListeners) l();
}
const watchedFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  noticeUnauthorized(res.status, input instanceof Request ? input.url : String(input));
  return res;
};

export const client = new Blueline({ baseUrl: base, auth: 'session', maxRetries: 1, timeoutMs: 30_000, fetch: watchedFetch });

/**
 * A client whose requests go through XMLHttpRequest, for uploads: fetch cannot report upload
 * progress, XHR can. The SDK takes any fetch-compatible function (its `fetch` option).
 */
export function uploadClient(onProgress: (fraction: number) => void): Blueline {
  const xhrFetch: typeof fetch = async (input, init = {}) => {
    // The SDK streams a File's bytes; XHR sends a Blob (and reports its progress).
    const body = init.body instanceof ReadableStream ? await new Response(init.body).blob() : init.body;
    return new Promise<Response>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open(init.method ?? 'GET', String(input));
      xhr.withCredentials = true;
      xhr.responseType = 'blob';
      for (const [k, v] of Object.entries((init.headers ?? {}) as Record<string, string>)) {
        if (k.toLowerCase() !== 'content-length') xhr.setRequestHeader(k, v);
      }
      xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
      xhr.onload = () => {
        noticeUnauthorized(xhr.status, String(input));
        const headers = new Headers();
        for (const line of xhr.getAllResponseHeaders().trim().split(/[\r\n]+/)) {
          const i = line.indexOf(':');
          if (i > 0) headers.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
        }
        resolve(new Response(xhr.status === 204 ? null : xhr.response, { status: xhr.status, headers }));
      };
      xhr.onerror = () => reject(new TypeError('network error'));
      init.signal?.addEventListener('abort', () => xhr.abort());
      xhr.send((body ?? null) as XMLHttpRequestBodyInit | null);
    });
  };
  const c = new Blueline({ baseUrl: base, auth: 'session', fetch: xhrFetch, maxRetries: 0, timeoutMs: 0 });
  c.core.csrfToken = client.core.csrfToken;
  return c;
}

/** The API's own words for a failure: its message, code and what to do. */
export function describeError(err: unknown): string {
  if (err instanceof BlueLineError) {
    const retry = err.retryAfter ? ` Try again in ${formatWait(err.retryAfter)}.` : '';
    return `${err.message} (${err.code})${retry}`;
  }
  return err instanceof Error ? err.message : String(err);
}

export function formatWait(seconds: number): string {
  if (seconds < 90) return `${Math.ceil(seconds)} s`;
  if (seconds < 5400) return `${Math.ceil(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

export { BlueLineError };
