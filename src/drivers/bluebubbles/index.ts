/**
 * The BlueBubbles line driver: a Mac running BlueBubbles Server as a phone line.
 * See docs/bluebubbles.md for connecting one.
 */
export { bluebubblesDriver, type BlueBubblesLineDriver, type BlueBubblesDriverOptions } from './driver.js';
export { INFO_TTL_MS } from './server-state.js';
export { handleBlueBubblesWebhook, isTrimmed, orderParts, type BlueBubblesWebhookDeps, type WebhookOutcome } from './inbound.js';
export { registerWebhook, verifyWebhookToken, webhookTokenFor, webhookUrlFor, type RegisteredWebhook } from './webhook.js';
export { configProblems, DEFAULT_TIMEOUT_MS, type BlueBubblesConfig } from './config.js';
export { BB_WEBHOOK_EVENTS } from './api-types.js';
