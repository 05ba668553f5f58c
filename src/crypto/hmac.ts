/**
 * The one HMAC construction of the spec: hex HMAC-SHA256 over `<ts>.<raw body>`.
 * Request authentication (account signing secret) and webhook signing
 * (subscription secret) both use it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function hmacHex(secret: string, ts: number | string, rawBody: Buffer | string): string {
  return createHmac('sha256', secret).update(`${ts}.`).update(rawBody).digest('hex');
}

/** Constant-time equality of two hex strings; false (never a throw) on any length mismatch. */
export function sameHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length * 2 === a.length && timingSafeEqual(x, y);
}
