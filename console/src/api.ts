/**
 * The console's one way to the API: @blueline/sdk with `auth: 'session'` (the HttpOnly cookie
 * authenticates; the CSRF token lives only in memory). No secret is ever stored in the browser.
 */
import { Blueline, BlueLineError } from '@blueline/sdk';

const base = window.location.origin;

/**
 * Why the session is asked for again: a 401 (it may have ended: expired, signed out in another
 * tab), a 403 2005 for the CSRF token (this browser signed in again, in another tab, so this
 * tab's token is another session's), the tab coming back into view, or another tab saying it
 * signed in or out.
 */
export type SessionDoubt = 'unauthorized' | 'csrf' | 'focus' | 'other-tab';
/** What asking found: the session this tab shows, another one, none, or no answer. */
export type SessionVerdict = 'same' | 'changed' | 'ended' | 'unknown';

let checker: ((why: SessionDoubt) => Promise<SessionVerdict>) | null = null;
/** The shell's check (it owns the cached session and the screens); returns the unregister. */
export function setSessionChecker(fn: (why: SessionDoubt) => Promise<SessionVerdict>): () => void {
  checker = fn;
  return () => void (checker === fn && (checker = null));
}

let pending: Promise<SessionVerdict> | null = null;
let lastCheck = 0;
/**
 * Bumped when the session changed or ended: an answer to a request sent before is not
 * delivered (it may be another project's data, and this tab's screens are the last session's).
 */
let generation = 0;

/** Asks for the session again (one check at a time); requests made meanwhile wait for it. */
export function recheckSession(why: SessionDoubt): Promise<SessionVerdict> {
  // A token refused now is not answered by a check that began before: it may have read the old session.
  if (pending) return why === 'csrf' ? pending.then(() => recheckSession(why)) : pending;
  if (!checker) return Promise.resolve('unknown');
  // Focus and visibility come together, and often: one check a second is plenty.
  if (why === 'focus' && Date.now() - lastCheck < 1_000) return Promise.resolve('unknown');
  lastCheck = Date.now();
  const check = checker(why)
    .catch((): SessionVerdict => 'unknown')
    .then((v) => {
      if (v === 'changed' || v === 'ended') generation++;
      return v;
    })
    .finally(() => void (pending === check && (pending = null)));
  pending = check;
  return check;
}

/** Other tabs of this browser share its session (one cookie): a sign-in or sign-out is told to them. */
const tabs = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel('blueline-console-session');
export const tellOtherTabs = () => tabs?.postMessage('session');
if (tabs) tabs.onmessage = () => void recheckSession('other-tab');

/** The API's refusal of this tab's CSRF token (not of a cross-origin request, also 2005). */
async function refusedCsrfToken(res: Response): Promise<boolean> {
  if (res.status !== 403) return false;
  const body = (await res.clone().json().catch(() => null)) as { code?: unknown; message?: unknown; error?: { code?: unknown; message?: unknown } } | null;
  const e = body?.error ?? body;
  return e?.code === 2005 && typeof e.message === 'string' && e.message.includes('x-csrf-token');
}

/**
 * Every request of the console's clients: held while the session is being asked for, not
 * delivered when the session changed under it; a 401 or a refused CSRF token has the session
 * asked for again. A request refused for its token under the same session (signed in again in
 * another tab) is sent once more with the session's token: the refusal shows nothing was done.
 */
const watched = (f: typeof fetch): typeof fetch => async (input, init) => {
  // /console/session and /console/sessions: asking whether a session exists, or signing in.
  if (new URL(input instanceof Request ? input.url : String(input), base).pathname.startsWith('/api/v1/console/session')) return f(input, init);
  if (pending) await pending;
  const sent = generation;
  let res = await f(input, init);
  if (res.status === 401) void recheckSession('unauthorized');
  else if (await refusedCsrfToken(res)) {
    const verdict = await recheckSession('csrf');
    const headers = init?.headers as Record<string, string> | undefined;
    const token = client.core.csrfToken;
    if (verdict === 'same' && generation === sent && token && token !== headers?.['x-csrf-token'] && (init?.body === undefined || typeof init.body === 'string')) {
      res = await f(input, { ...init, headers: { ...headers, 'x-csrf-token': token } });
    }
  }
  if (generation !== sent) throw new Error('the console session changed: this browser signed in to another project or signed out');
  return res;
};

export const client = new Blueline({ baseUrl: base, auth: 'session', maxRetries: 1, timeoutMs: 30_000, fetch: watched(fetch) });

/**
 * Signing in is never retried: a sign-in refused for too many failures (429, ten a minute) is
 * shown at once with its wait. Retried, it sat behind "Signing in…" for up to a minute, saying
 * nothing, then failed or signed in without a word. The session's CSRF token is the console's.
 */
const signInClient = new Blueline({ baseUrl: base, auth: 'session', maxRetries: 0, timeoutMs: 30_000 });
export async function signIn(params: Parameters<typeof client.session.signIn>[0]): ReturnType<typeof client.session.signIn> {
  const s = await signInClient.session.signIn(params);
  client.core.csrfToken = s.csrf_token;
  return s;
}

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
  const c = new Blueline({ baseUrl: base, auth: 'session', fetch: watched(xhrFetch), maxRetries: 0, timeoutMs: 0 });
  c.core.csrfToken = client.core.csrfToken;
  return c;
}

/** The API's own words for a failure: its message, code and what to do. */
export function describeError(err: unknown): string {
  if (err instanceof BlueLineError) {
    // Not twice: some messages already say when ("try again in 41 s").
    const retry = err.retryAfter && !/try again/i.test(err.message) ? ` Try again in ${formatWait(err.retryAfter)}.` : '';
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
