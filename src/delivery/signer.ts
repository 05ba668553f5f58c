/**
 * The one place that signs webhook deliveries (spec "Events → Delivery headers").
 *
 * Both signature headers are hex HMAC-SHA256 keyed with the subscription secret over
 * `<ts>.<raw body>`, the same construction the API uses for `x-service-signature` request
 * signing with the account secret. That construction lives in src/crypto/hmac.ts and is
 * re-exported here so that there is exactly one implementation of it in the service.
 *
 * Every attempt and every replay calls this afresh with a new timestamp over the SAME stored
 * raw bytes (DESIGN §5 "Raw body"): never re-serialize the envelope before signing.
 */
import { hmacHex } from '../crypto/hmac.js';

export { hmacHex };

export interface SignDeliveryInput {
  /** Exactly the bytes that will be sent as the request body. */
  rawBody: Buffer | string;
  /**
   * Every currently valid secret of the subscription, NEWEST FIRST. During a rotation overlap
   * there are several; outside one, exactly one.
   */
  secrets: readonly string[];
  /** Unix seconds of this attempt. */
  timestampSeconds: number;
}

export interface DeliverySignature {
  timestamp: number;
  /** `t=<ts>,v1=<hex>[,v1=<hex>...]`: one `v1=` per valid secret, newest first. */
  webhookSignature: string;
  /**
   * `v1,<ts>,<hex>` signed with the NEWEST secret only.
   *
   * Decision: the legacy header keeps the spec's exact three-field format and does not repeat
   * signatures. Legacy receivers typically split on "," and expect three fields, so appending
   * more would break them. Consequence: a receiver that still verifies the legacy header with
   * the OLD secret fails during a rotation overlap; receivers that want a seamless rotation
   * verify `X-Webhook-Signature`, which carries every valid secret's signature.
   */
  legacySignature: string;
}

export function signDelivery(input: SignDeliveryInput): DeliverySignature {
  const ts = input.timestampSeconds;
  if (!Number.isSafeInteger(ts) || ts < 0) {
    throw new TypeError(`timestampSeconds must be a non-negative integer (Unix seconds), got ${ts}`);
  }
  // The same secret listed twice (e.g. a rotation to an identical value) would only repeat a v1=.
  const secrets = [...new Set(input.secrets)];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) {
    throw new TypeError('signDelivery needs at least one non-empty subscription secret');
  }
  const hexes = secrets.map((secret) => hmacHex(secret, ts, input.rawBody));
  return {
    timestamp: ts,
    webhookSignature: [`t=${ts}`, ...hexes.map((h) => `v1=${h}`)].join(','),
    legacySignature: `v1,${ts},${hexes[0]}`,
  };
}

export interface DeliveryHeadersInput extends SignDeliveryInput {
  eventType: string;
  eventId: string;
  subscriptionId: string;
  /** Configurable header branding (`x-<brand>-...`); the spec's default is `service`. */
  brand?: string;
}

// Same rule as config.ts applies to BLUELINE_HEADER_BRAND: it becomes part of a header name.
const BRAND_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * Every header of the spec's delivery table, for one attempt. Deliberately never includes the
 * tenant header (`x-<brand>-tenant`): the spec says receivers never get it. content-length is
 * left to the HTTP client, which knows the final byte count.
 */
export function deliveryHeaders(input: DeliveryHeadersInput): Record<string, string> {
  const brand = (input.brand ?? 'service').toLowerCase();
  if (!BRAND_RE.test(brand)) throw new TypeError(`invalid header brand ${JSON.stringify(input.brand)}`);
  const sig = signDelivery(input);
  const ts = String(sig.timestamp);
  return {
    'X-Webhook-Event': input.eventType,
    'X-Webhook-Event-Id': input.eventId,
    'X-Webhook-Timestamp': ts,
    'X-Webhook-Subscription-Id': input.subscriptionId,
    'X-Webhook-Signature': sig.webhookSignature,
    'content-type': 'application/json',
    [`x-${brand}-event`]: input.eventType,
    [`x-${brand}-event-id`]: input.eventId,
    [`x-${brand}-timestamp`]: ts,
    [`x-${brand}-signature`]: sig.legacySignature,
  };
}
