/**
 * Webhook signature verification for receivers (published as `blueline/verify`).
 *
 * This file ships standalone: it imports nothing but node:crypto, so it must never import from
 * the rest of the service. (That is why it carries its own copy of the HMAC construction.)
 *
 * Both delivery header forms are accepted:
 *   X-Webhook-Signature: t=<ts>,v1=<hex>[,v1=<hex>...]   (one v1= per valid secret during rotation)
 *   x-service-signature: v1,<ts>,<hex>                   (legacy; `service` is configurable: `brand`)
 * When `X-Webhook-Signature` is present it decides on its own; the legacy header is consulted
 * only when it is absent.
 *
 * Receiver example (node:http; use the RAW body bytes, never re-serialized JSON):
 *
 * ```ts
 * import { createServer } from 'node:http';
 * import { verifyWebhook } from 'blueline/verify';
 *
 * createServer((req, res) => {
 *   const chunks: Buffer[] = [];
 *   req.on('data', (c: Buffer) => chunks.push(c));
 *   req.on('end', () => {
 *     const rawBody = Buffer.concat(chunks);
 *     const result = verifyWebhook({ rawBody, headers: req.headers, secret: process.env.WEBHOOK_SECRET! });
 *     if (!result.ok) {
 *       res.writeHead(401).end(result.reason);
 *       return;
 *     }
 *     const event = JSON.parse(rawBody.toString('utf8'));
 *     // Delivery is at-least-once: dedup on event.event_id, then answer 2xx quickly.
 *     res.writeHead(204).end();
 *   });
 * }).listen(8080);
 * ```
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type WebhookVerificationFailure =
  | 'missing_signature'
  | 'malformed_signature'
  | 'timestamp_out_of_tolerance'
  | 'signature_mismatch';

export type WebhookVerificationResult =
  | { ok: true; timestamp: number }
  | { ok: false; reason: WebhookVerificationFailure };

/** Node's `req.headers` (or any plain object; names matched case-insensitively) or fetch `Headers`. */
export type WebhookHeaders =
  | Record<string, string | string[] | number | undefined>
  | { get(name: string): string | null };

interface VerifyCommon {
  /** The raw request body exactly as received. */
  rawBody: Buffer | Uint8Array | string;
  headers: WebhookHeaders;
  /** Allowed distance of the signed timestamp from now, either direction. Default 300 s. */
  toleranceSeconds?: number;
  /** Override "now" (Unix seconds), e.g. for tests. */
  nowSeconds?: number;
  /** The `service` segment of the legacy header name `x-service-signature`. */
  brand?: string;
}

export type VerifyWebhookOptions = VerifyCommon &
  (
    | { secret: string; secrets?: undefined }
    /** Several secrets, e.g. old and new while you roll your own configuration over. */
    | { secrets: readonly string[]; secret?: undefined }
  );

export const DEFAULT_TOLERANCE_SECONDS = 300;

// Bounds on untrusted input, so a hostile header can't make us do unbounded HMAC work.
const MAX_HEADER_LENGTH = 4096;
const MAX_V1_VALUES = 16;
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
const UNIX_SECONDS = /^[0-9]{1,15}$/;

interface ParsedSignature {
  /** The timestamp exactly as sent: it is part of the signed string. */
  tsText: string;
  ts: number;
  signatures: Buffer[];
}

/** Verify one delivery. Never throws on bad input from the network; throws TypeError on misuse. */
export function verifyWebhook(options: VerifyWebhookOptions): WebhookVerificationResult {
  const secrets = secretsOf(options);
  const body = bodyBytes(options.rawBody);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0) throw new TypeError('toleranceSeconds must be >= 0');
  const brand = (options.brand ?? 'service').toLowerCase();

  const primary = headerValue(options.headers, 'x-webhook-signature');
  let parsed: ParsedSignature | null;
  if (primary !== undefined) {
    parsed = primary === null ? null : parseWebhookSignature(primary);
  } else {
    const legacy = headerValue(options.headers, `x-${brand}-signature`);
    if (legacy === undefined) return { ok: false, reason: 'missing_signature' };
    parsed = legacy === null ? null : parseLegacySignature(legacy);
  }
  if (!parsed) return { ok: false, reason: 'malformed_signature' };

  // Compare every (secret, v1) pair with no early exit, so timing says nothing about which
  // secret or which value matched.
  let matched = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(`${parsed.tsText}.`).update(body).digest();
    for (const candidate of parsed.signatures) {
      // Both are 32 bytes by construction (64 hex chars checked), so timingSafeEqual can't throw.
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
    }
  }
  if (!matched) return { ok: false, reason: 'signature_mismatch' };

  // Checked after the signature so that this reason means "authentic but stale or from the
  // future" (a replay or a badly skewed clock), not "someone sent a random timestamp".
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - parsed.ts) > tolerance) return { ok: false, reason: 'timestamp_out_of_tolerance' };
  return { ok: true, timestamp: parsed.ts };
}

export class WebhookVerificationError extends Error {
  /** What a receiver should answer. */
  readonly statusCode = 401;
  constructor(readonly reason: WebhookVerificationFailure) {
    super(`webhook verification failed: ${reason}`);
    this.name = 'WebhookVerificationError';
  }
}

/** Like verifyWebhook, but throws WebhookVerificationError (statusCode 401) on failure. */
export function verifyWebhookOrThrow(options: VerifyWebhookOptions): { timestamp: number } {
  const result = verifyWebhook(options);
  if (!result.ok) throw new WebhookVerificationError(result.reason);
  return { timestamp: result.timestamp };
}

function secretsOf(options: VerifyWebhookOptions): readonly string[] {
  const secrets = options.secrets ?? (options.secret === undefined ? [] : [options.secret]);
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) {
    throw new TypeError('verifyWebhook needs `secret` or a non-empty `secrets` list of non-empty strings');
  }
  return secrets;
}

function bodyBytes(rawBody: unknown): Uint8Array | string {
  if (typeof rawBody === 'string' || rawBody instanceof Uint8Array) return rawBody;
  // The usual mistake: a JSON body parser ran first and we got an object. Re-serializing it
  // would not reproduce the signed bytes, so say so instead of failing as a mismatch.
  throw new TypeError(
    `rawBody must be the raw request body (Buffer, Uint8Array or string), got ${rawBody === null ? 'null' : typeof rawBody}; ` +
      'read the body before any JSON parser touches it',
  );
}

/**
 * undefined: header absent. null: present but unusable (repeated as an array, or oversized).
 */
function headerValue(headers: WebhookHeaders, lowerName: string): string | null | undefined {
  let value: unknown;
  if (typeof (headers as { get?: unknown }).get === 'function') {
    value = (headers as { get(name: string): string | null }).get(lowerName) ?? undefined;
  } else {
    for (const key of Object.keys(headers)) {
      if (key.toLowerCase() === lowerName) {
        value = (headers as Record<string, unknown>)[key];
        break;
      }
    }
  }
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    if (value.length !== 1) return null;
    value = value[0];
  }
  if (typeof value !== 'string') return null;
  if (value.trim() === '') return undefined;
  return value.length > MAX_HEADER_LENGTH ? null : value;
}

/** `t=<ts>,v1=<hex>[,v1=<hex>...]`; other `scheme=value` parts are ignored for forward compatibility. */
function parseWebhookSignature(header: string): ParsedSignature | null {
  let tsText: string | undefined;
  const signatures: Buffer[] = [];
  for (const rawPart of header.split(',')) {
    const part = rawPart.trim();
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    if (key === 't') {
      if (tsText !== undefined || !UNIX_SECONDS.test(value)) return null;
      tsText = value;
    } else if (key === 'v1') {
      if (!HEX_SHA256.test(value) || signatures.length >= MAX_V1_VALUES) return null;
      signatures.push(Buffer.from(value, 'hex'));
    } else if (!/^[a-z][a-z0-9]*$/.test(key)) {
      return null;
    }
  }
  if (tsText === undefined || signatures.length === 0) return null;
  return { tsText, ts: Number(tsText), signatures };
}

/** `v1,<ts>,<hex>`: exactly three fields. */
function parseLegacySignature(header: string): ParsedSignature | null {
  const parts = header.split(',').map((p) => p.trim());
  if (parts.length !== 3 || parts[0] !== 'v1') return null;
  const [, tsText, hex] = parts;
  if (!UNIX_SECONDS.test(tsText) || !HEX_SHA256.test(hex)) return null;
  return { tsText, ts: Number(tsText), signatures: [Buffer.from(hex, 'hex')] };
}
