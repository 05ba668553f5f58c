/**
 * Checks on a URL that need no network: scheme, credentials and literal-IP hosts. Shared by
 * subscription-time validation (webhook-url.ts) and every guarded request, including each
 * redirect hop, so both apply the same policy.
 */
import { isIP } from 'node:net';
import { defaultAddressGuard, type AddressGuard } from './guarded-lookup.js';
import { ALLOW_PRIVATE_HINT, NetError } from './net-error.js';

export interface TargetPolicy {
  allowPrivateNetworks: boolean;
  requireHttps: boolean;
  guard?: AddressGuard;
}

/** URL.hostname keeps the brackets of an IPv6 literal; sockets and the policy want them off. */
export function bareHost(url: URL): string {
  const h = url.hostname;
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

export function parseAbsoluteUrl(text: string): URL | NetError {
  try {
    return new URL(text);
  } catch {
    return new NetError('invalid_url', 'not an absolute URL');
  }
}

/** The first problem with `url` under `policy`, or null. */
export function targetProblem(url: URL, policy: TargetPolicy): NetError | null {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return new NetError('invalid_url', `unsupported scheme ${url.protocol.replace(/:$/, '')}: only http(s)`);
  }
  if (url.username !== '' || url.password !== '') {
    return new NetError('invalid_url', 'URLs must not carry credentials (user:password@)');
  }
  const host = bareHost(url);
  if (host === '') return new NetError('invalid_url', 'URL has no host');
  if (!policy.allowPrivateNetworks && isIP(host) !== 0) {
    // The WHATWG parser has already canonicalized 2130706433, 0x7f.1, 127.1 to 127.0.0.1.
    const reason = (policy.guard ?? defaultAddressGuard).reason(host);
    if (reason !== null) return new NetError('forbidden_address', `${host} is ${reason}; ${ALLOW_PRIVATE_HINT}`);
  }
  if (policy.requireHttps && url.protocol !== 'https:') {
    return new NetError('insecure_url', `${url.host} must be reached over https`);
  }
  return null;
}
