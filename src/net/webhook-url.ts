/**
 * Subscription-time check of a webhook URL. It catches what can be known without the network;
 * the connect-time guard (guarded-lookup.ts) still applies at every delivery, because a name
 * that resolves to a public address today may resolve to a private one tomorrow.
 */
import { isIP } from 'node:net';
import { ALLOW_PRIVATE_HINT, NetError } from './net-error.js';
import { bareHost, parseAbsoluteUrl, targetProblem } from './target-policy.js';
import { defaultAddressGuard, type AddressGuard } from './guarded-lookup.js';

export type WebhookUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

const MAX_URL_LENGTH = 2048;

/**
 * Rules: an absolute http(s) URL of at most 2048 characters; https unless private networks are
 * allowed; no user:password@; and (unless private networks are allowed) neither a literal
 * non-public IP nor a `localhost` name (RFC 6761 names that always mean this machine).
 * `https://dev-inbox` passes like any other https URL: the caller gives it its meaning.
 */
export function validateWebhookUrl(url: string, options: { allowPrivateNetworks: boolean }): WebhookUrlCheck {
  if (typeof url !== 'string' || url.trim() === '') return { ok: false, reason: 'url is required' };
  if (url.length > MAX_URL_LENGTH) return { ok: false, reason: `url is longer than ${MAX_URL_LENGTH} characters` };
  const parsed = parseAbsoluteUrl(url.trim());
  if (parsed instanceof NetError) return { ok: false, reason: 'url must be an absolute http(s) URL' };
  const problem = targetProblem(parsed, {
    allowPrivateNetworks: options.allowPrivateNetworks,
    requireHttps: !options.allowPrivateNetworks,
  });
  if (problem) return { ok: false, reason: reasonFor(problem) };
  const host = bareHost(parsed).toLowerCase().replace(/\.$/, '');
  if (!options.allowPrivateNetworks && (host === 'localhost' || host.endsWith('.localhost'))) {
    return { ok: false, reason: `url host must be publicly reachable, not localhost; ${ALLOW_PRIVATE_HINT}` };
  }
  return { ok: true, url: parsed.href };
}

function reasonFor(problem: NetError): string {
  switch (problem.kind) {
    case 'insecure_url':
      return 'url must use https';
    case 'forbidden_address':
      return `url host must be a public address: ${problem.message}`;
    default:
      return `url is invalid: ${problem.message}`;
  }
}

/** How long creation waits for DNS before leaving the question to the connect-time guard. */
const RESOLVE_TIMEOUT_MS = 5_000;

/**
 * The creation-time look at a host name: a name whose addresses include a non-public one is
 * refused now, naming the address class, rather than accepted and failed at every delivery.
 * A name that does not resolve (or not in time) passes: delivery reports it, and the
 * connect-time guard decides again at every delivery either way (DNS answers change).
 * Call after validateWebhookUrl accepted the URL.
 */
export async function resolveWebhookHost(url: string, options: { allowPrivateNetworks: boolean; guard?: AddressGuard; timeoutMs?: number }): Promise<WebhookUrlCheck> {
  const parsed = parseAbsoluteUrl(url.trim());
  if (parsed instanceof NetError) return { ok: false, reason: 'url must be an absolute http(s) URL' };
  const host = bareHost(parsed);
  // Literal addresses were judged by validateWebhookUrl; nothing to resolve.
  if (options.allowPrivateNetworks || isIP(host) !== 0) return { ok: true, url: parsed.href };
  const guard = options.guard ?? defaultAddressGuard;
  const refusal = await new Promise<NetError | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), options.timeoutMs ?? RESOLVE_TIMEOUT_MS);
    guard.lookup(host, { all: true }, (err) => {
      clearTimeout(timer);
      resolve(err instanceof NetError && err.kind === 'forbidden_address' ? err : undefined);
    });
  });
  return refusal ? { ok: false, reason: reasonFor(refusal) } : { ok: true, url: parsed.href };
}
