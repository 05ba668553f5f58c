/**
 * The one HMAC construction of the spec: hex HMAC-SHA256 over `<ts>.<raw body>`.
 * Request authentication (account signing secret) and webhook signing
 * (subscription secret) both use it.
 */
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

export function hmacHex(secret: string, ts: number | string, rawBody: Buffer | string): string {
  return hmacOf(secret, ts, rawBody).digest('hex');
}

function hmacOf(secret: string | KeyObject, ts: number | string, rawBody: Buffer | string) {
  const h = createHmac('sha256', secret).update(`${ts}.`);
  return rawBody.length ? h.update(rawBody) : h;
}

/** A secret prepared once for many checks (saves re-deriving the key on every request). */
export const hmacKey = (secret: string): KeyObject => createSecretKey(Buffer.from(secret, 'utf8'));

/**
 * Whether `claimed` (the 32 digest bytes a caller sent) is the HMAC of `<ts>.<raw body>`
 * under `key`, compared in constant time.
 */
export function hmacMatches(key: KeyObject, ts: number | string, rawBody: Buffer | string, claimed: Buffer): boolean {
  const expected = hmacOf(key, ts, rawBody).digest();
  return claimed.length === expected.length && timingSafeEqual(expected, claimed);
}
