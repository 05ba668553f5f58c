/**
 * Webhook signature verification for receivers (`blueline/verify`). The implementation is the
 * SDK's (`@blueline/sdk/webhooks`, sdk/src/webhooks.ts): this file keeps the service's earlier
 * options-object form working on top of it, so there is one verifier.
 *
 * New receivers: `import { verifyWebhook } from '@blueline/sdk/webhooks'` and call
 * `verifyWebhook(rawBody, req.headers, secret)`, which returns the envelope or throws
 * `WebhookVerificationError` (statusCode 401).
 */
import {
  checkWebhookSignature,
  DEFAULT_TOLERANCE_SECONDS,
  WebhookVerificationError,
  type WebhookHeaders,
  type WebhookSignatureCheck,
} from '@blueline/sdk/webhooks';

export { DEFAULT_TOLERANCE_SECONDS, WebhookVerificationError, type WebhookHeaders };

export type WebhookVerificationResult = WebhookSignatureCheck;
export type WebhookVerificationFailure = Extract<WebhookSignatureCheck, { ok: false }>['reason'];

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
  ({ secret: string; secrets?: undefined } | { secrets: readonly string[]; secret?: undefined });

/** Verify one delivery. Never throws on bad input from the network; throws TypeError on misuse. */
export function verifyWebhook(options: VerifyWebhookOptions): WebhookVerificationResult {
  const { rawBody, headers, secret, secrets, ...rest } = options;
  return checkWebhookSignature(rawBody, headers, secrets ?? (secret === undefined ? [] : secret), rest);
}

/** Like verifyWebhook, but throws WebhookVerificationError (statusCode 401) on failure. */
export function verifyWebhookOrThrow(options: VerifyWebhookOptions): { timestamp: number } {
  const result = verifyWebhook(options);
  if (!result.ok) throw new WebhookVerificationError(result.reason);
  return { timestamp: result.timestamp };
}
