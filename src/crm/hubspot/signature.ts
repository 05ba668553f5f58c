/**
 * HubSpot's request signatures. HubSpot signs the URL it called, so the URL is
 * rebuilt from PUBLIC_BASE_URL and the path and query exactly as received (never
 * from the Host header). v3: base64 HMAC-SHA256(secret, method + URI + body +
 * timestamp), timestamp in ms and at most 5 minutes old; v2: hex SHA-256(secret +
 * method + URI + body); v1: hex SHA-256(secret + body). Compared in constant time.
 * The window is real time (as for our own signatures), so a test clock never breaks it.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { realNowMs } from '../../clock.js';

export const SIGNATURE_MAX_AGE_MS = 5 * 60_000;

export type SignatureVersion = 'v1' | 'v2' | 'v3';

export interface SignedRequest {
  method: string;
  /** path and query as received, e.g. req.url */
  pathAndQuery: string;
  rawBody: string;
  headers: Record<string, string | string[] | undefined>;
}

export type SignatureCheck = { ok: true; version: SignatureVersion; timestampMs?: number } | { ok: false; reason: string };

// HubSpot decodes these before signing v3 (its request-validation docs).
const V3_DECODED: Record<string, string> = {
  '%3A': ':', '%2F': '/', '%3F': '?', '%40': '@', '%21': '!', '%24': '$', '%27': "'", '%28': '(', '%29': ')', '%2A': '*', '%2C': ',', '%3B': ';',
};

export function v3Uri(url: string): string {
  return url.replace(/%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi, (m) => V3_DECODED[m.toUpperCase()]!);
}

export function signV3(secret: string, method: string, uri: string, body: string, timestampMs: string | number): string {
  return createHmac('sha256', secret).update(`${method}${v3Uri(uri)}${body}${timestampMs}`, 'utf8').digest('base64');
}

export function signV2(secret: string, method: string, uri: string, body: string): string {
  return createHash('sha256').update(`${secret}${method}${uri}${body}`, 'utf8').digest('hex');
}

export function signV1(secret: string, body: string): string {
  return createHash('sha256').update(`${secret}${body}`, 'utf8').digest('hex');
}

/** Constant time for equal lengths; differing lengths compare digests so timing says nothing either. */
function same(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y) && a.length === b.length;
}

const header = (h: SignedRequest['headers'], name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * Checks a request against the versions the route accepts. v3 is tried when its
 * header is present; otherwise `X-HubSpot-Signature` with `X-HubSpot-Signature-Version`.
 */
export function verifyHubSpotSignature(req: SignedRequest, opts: { secret: string; publicBaseUrl: string; accept: SignatureVersion[]; nowMs?: number }): SignatureCheck {
  const url = `${opts.publicBaseUrl}${req.pathAndQuery}`;
  const v3 = header(req.headers, 'x-hubspot-signature-v3');
  if (v3 !== undefined && opts.accept.includes('v3')) {
    const ts = header(req.headers, 'x-hubspot-request-timestamp');
    if (!ts || !/^\d{1,16}$/.test(ts)) return { ok: false, reason: 'X-HubSpot-Request-Timestamp is missing or not milliseconds' };
    const age = (opts.nowMs ?? realNowMs()) - Number(ts);
    if (age > SIGNATURE_MAX_AGE_MS) return { ok: false, reason: 'the request timestamp is more than 5 minutes old' };
    if (age < -SIGNATURE_MAX_AGE_MS) return { ok: false, reason: 'the request timestamp is more than 5 minutes in the future' };
    if (!same(v3, signV3(opts.secret, req.method, url, req.rawBody, ts))) return { ok: false, reason: 'X-HubSpot-Signature-v3 does not match' };
    return { ok: true, version: 'v3', timestampMs: Number(ts) };
  }
  const sig = header(req.headers, 'x-hubspot-signature');
  const version = (header(req.headers, 'x-hubspot-signature-version') ?? '').toLowerCase();
  if (sig !== undefined && (version === 'v1' || version === 'v2') && opts.accept.includes(version)) {
    const expected = version === 'v2' ? signV2(opts.secret, req.method, url, req.rawBody) : signV1(opts.secret, req.rawBody);
    if (!same(sig.toLowerCase(), expected)) return { ok: false, reason: `X-HubSpot-Signature (${version}) does not match` };
    return { ok: true, version };
  }
  return { ok: false, reason: `missing HubSpot signature (this route accepts ${opts.accept.join(', ')})` };
}
