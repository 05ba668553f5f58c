/** Outbound HTTP with SSRF protection: see guarded-request.ts and DESIGN §5. */
export { forbiddenAddressReason, isForbiddenAddress, parseIPv4, parseIPv6 } from './address-policy.js';
export { createAddressGuard, defaultAddressGuard, type AddressGuard, type BaseLookup } from './guarded-lookup.js';
export {
  fetchBytes,
  postJson,
  type FetchBytesOptions,
  type PostJsonOptions,
  type PostJsonResult,
  type TrustRoots,
} from './guarded-request.js';
export { NetError, type NetErrorKind } from './net-error.js';
export { resolveWebhookHost, validateWebhookUrl, type WebhookUrlCheck } from './webhook-url.js';
export { parseAbsoluteUrl } from './target-policy.js';
