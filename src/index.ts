/**
 * The package's public exports for integrators: the webhook verification
 * helper (works standalone, node:crypto only).
 */
export { verifyWebhook, verifyWebhookOrThrow, WebhookVerificationError, DEFAULT_TOLERANCE_SECONDS } from './delivery/verify.js';
export type { VerifyWebhookOptions, WebhookVerificationResult, WebhookVerificationFailure } from './delivery/verify.js';
