/**
 * Webhook verification for receivers, and signing for their tests (`@blueline/sdk/webhooks`;
 * the service's `blueline/verify` is this module). Imports nothing but node:crypto, so the
 * built file can also be copied into a receiver on its own.
 *
 * Both delivery header forms are accepted (spec: Events → Delivery headers):
 *   X-Webhook-Signature: t=<ts>,v1=<hex>[,v1=<hex>...]   (one v1= per valid secret during rotation)
 *   x-service-signature: v1,<ts>,<hex>                   (legacy; `service` is the `brand` option)
 * When `X-Webhook-Signature` is present it decides on its own; the legacy header is consulted
 * only when it is absent. Every (secret, v1) pair is compared in constant time, with no early
 * exit, and the timestamp must be within `toleranceSeconds` of now in either direction.
 *
 * ```ts
 * import { verifyWebhook, WebhookVerificationError } from '@blueline/sdk/webhooks';
 * // rawBody: the request's bytes exactly as received, before any JSON parser
 * try {
 *   const event = verifyWebhook(rawBody, req.headers, process.env.WEBHOOK_SECRET!);
 *   // dedup on event.event_id (delivery is at least once), then answer 2xx quickly
 * } catch (err) {
 *   if (err instanceof WebhookVerificationError) return res.writeHead(401).end();
 *   throw err;
 * }
 * ```
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './webhook-types.js';

export type { MessageReceivedEvent, MessageDeliveredEvent, MessageReadEvent, MessageFailedEvent, WebhookEvent, WebhookHandle, InboundPart, WebhookDeliveryHeaders } from './webhook-types.js';

const VERIFICATION_BRAND = Symbol.for('@blueline/sdk:WebhookVerificationError');

export type WebhookVerificationFailure =
  | 'missing_signature'
  | 'malformed_signature'
  | 'timestamp_out_of_tolerance'
  | 'signature_mismatch'
  | 'invalid_body';

export type WebhookSignatureCheck = { ok: true; timestamp: number } | { ok: false; reason: Exclude<WebhookVerificationFailure, 'invalid_body'> };

/** Node's `req.headers` (or any plain object; names matched case-insensitively) or fetch `Headers`. */
export type WebhookHeaders = Record<string, string | string[] | number | undefined> | { get(name: string): string | null };

export type RawBody = Uint8Array | string;

export interface VerifyOptions {
  /** Allowed distance of the signed timestamp from now, either direction. Default 300 s. */
  toleranceSeconds?: number;
  /** "Now" in Unix seconds (tests). */
  nowSeconds?: number;
  /** The `service` segment of the legacy header `x-service-signature`. */
  brand?: string;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

export class WebhookVerificationError extends Error {
  /** What a receiver should answer. */
  readonly statusCode = 401;
  constructor(readonly reason: WebhookVerificationFailure) {
    super(`webhook verification failed: ${reason}`);
    this.name = 'WebhookVerificationError';
    Object.defineProperty(this, VERIFICATION_BRAND, { value: true });
  }

  /** `instanceof` also holds for the error of the other build (ES module / CommonJS) when both are loaded (see brand.ts). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return Function.prototype[Symbol.hasInstance].call(this, value) || (this === WebhookVerificationError && typeof value === 'object' && value !== null && VERIFICATION_BRAND in value);
  }
}

/**
 * Verifies one delivery and returns its envelope (narrow on `event_type`). `secret` may be a list (e.g. new and old while
 * you roll your configuration over). Throws `WebhookVerificationError` (statusCode 401) when the
 * delivery is not authentic or not fresh, `TypeError` on misuse (a parsed body, no secret).
 */
export function verifyWebhook<E = WebhookEvent>(
  rawBody: RawBody,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): E {
  const check = checkWebhookSignature(rawBody, headers, secret, options);
  if (!check.ok) throw new WebhookVerificationError(check.reason);
  try {
    return JSON.parse(typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody)) as E;
  } catch {
    throw new WebhookVerificationError('invalid_body');
  }
}

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

/** The signature check alone, as a result instead of an exception. Never throws on network input. */
export function checkWebhookSignature(
  rawBody: RawBody,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): WebhookSignatureCheck {
  const secrets = secretsOf(secret);
  const body = bodyBytes(rawBody);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0) throw new TypeError('toleranceSeconds must be >= 0');
  const brand = (options.brand ?? 'service').toLowerCase();

  const primary = headerValue(headers, 'x-webhook-signature');
  let parsed: ParsedSignature | null;
  if (primary !== undefined) {
    parsed = primary === null ? null : parseWebhookSignature(primary);
  } else {
    const legacy = headerValue(headers, `x-${brand}-signature`);
    if (legacy === undefined) return { ok: false, reason: 'missing_signature' };
    parsed = legacy === null ? null : parseLegacySignature(legacy);
  }
  if (!parsed) return { ok: false, reason: 'malformed_signature' };

  let matched = false;
  for (const s of secrets) {
    const expected = createHmac('sha256', s).update(`${parsed.tsText}.`).update(body).digest();
    for (const candidate of parsed.signatures) {
      // Both are 32 bytes by construction (64 hex chars checked), so timingSafeEqual can't throw.
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
    }
  }
  if (!matched) return { ok: false, reason: 'signature_mismatch' };

  // Checked after the signature so that this reason means "authentic but stale or from the
  // future" (a replay or a skewed clock), not "someone sent a random timestamp".
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - parsed.ts) > tolerance) return { ok: false, reason: 'timestamp_out_of_tolerance' };
  return { ok: true, timestamp: parsed.ts };
}

export interface SignTestWebhookOptions {
  /** Default: now. */
  timestampSeconds?: number;
  eventType?: string;
  eventId?: string;
  subscriptionId?: string;
  brand?: string;
}

/**
 * A delivery as the service would send it, for receivers' own tests: the exact body and every
 * header of the spec's table, signed with `secret` (a list signs with each, newest first).
 */
export function signTestWebhook(
  payload: object | string,
  secret: string | readonly string[],
  options: SignTestWebhookOptions = {},
): { body: string; headers: Record<string, string> } {
  const secrets = [...new Set(secretsOf(secret))];
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const ts = options.timestampSeconds ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(ts) || ts < 0) throw new TypeError('timestampSeconds must be a non-negative integer');
  const parsed = typeof payload === 'string' ? undefined : (payload as { event_type?: unknown; event_id?: unknown });
  const eventType = options.eventType ?? (typeof parsed?.event_type === 'string' ? parsed.event_type : 'message.received');
  const eventId = options.eventId ?? (typeof parsed?.event_id === 'string' ? parsed.event_id : 'test:msg:1');
  const brand = (options.brand ?? 'service').toLowerCase();
  const hexes = secrets.map((s) => createHmac('sha256', s).update(`${ts}.`).update(body).digest('hex'));
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-webhook-event': eventType,
      'x-webhook-event-id': eventId,
      'x-webhook-timestamp': String(ts),
      'x-webhook-subscription-id': options.subscriptionId ?? 'sub_test',
      'x-webhook-signature': [`t=${ts}`, ...hexes.map((h) => `v1=${h}`)].join(','),
      [`x-${brand}-event`]: eventType,
      [`x-${brand}-event-id`]: eventId,
      [`x-${brand}-timestamp`]: String(ts),
      [`x-${brand}-signature`]: `v1,${ts},${hexes[0]}`,
    },
  };
}

function secretsOf(secret: string | readonly string[]): readonly string[] {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (!Array.isArray(secrets) || secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) {
    throw new TypeError('a webhook secret (or a non-empty list of non-empty secrets) is required');
  }
  return secrets;
}

function bodyBytes(rawBody: unknown): RawBody {
  if (typeof rawBody === 'string' || rawBody instanceof Uint8Array) return rawBody;
  // The usual mistake: a JSON body parser ran first and we got an object. Re-serializing it
  // would not reproduce the signed bytes, so say so instead of failing as a mismatch.
  throw new TypeError(
    `rawBody must be the raw request body (Buffer, Uint8Array or string), got ${rawBody === null ? 'null' : typeof rawBody}; ` +
      'read the body before any JSON parser touches it',
  );
}

/** undefined: header absent. null: present but unusable (repeated, or oversized). */
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
  const [, tsText, hex] = parts as [string, string, string];
  if (!UNIX_SECONDS.test(tsText) || !HEX_SHA256.test(hex)) return null;
  return { tsText, ts: Number(tsText), signatures: [Buffer.from(hex, 'hex')] };
}
