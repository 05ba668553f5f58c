/**
 * The SSRF guard at connect time: a `lookup` for http(s).request that resolves the name and
 * refuses when ANY resolved address is non-public.
 *
 * Checking the address the socket actually connects to (rather than validating the URL once
 * and resolving again later) is what defeats DNS rebinding: there is no second resolution to
 * race. Node skips `lookup` for literal IP hosts, so target-policy.ts checks those with the
 * same guard's `reason`.
 *
 * All addresses are checked, not only the first: with Happy Eyeballs (autoSelectFamily, on by
 * default in Node 20) net may try any of them, and a name that mixes public and private
 * answers is suspicious anyway.
 */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { forbiddenAddressReason } from './address-policy.js';
import { ALLOW_PRIVATE_HINT, NetError } from './net-error.js';

/** The resolver underneath the guard. */
export type BaseLookup = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

export interface AddressGuard {
  /** Why an address is refused, or null when allowed. */
  reason(ip: string): string | null;
  /** A lookup for http(s).request that applies `reason` to every resolved address. */
  lookup: LookupFunction;
}

const systemLookup: BaseLookup = (hostname, options, callback) => dns.lookup(hostname, options, callback);

/**
 * Both parts are replaceable so tests can script DNS answers and treat the loopback test
 * server as "public"; production uses defaultAddressGuard.
 */
export function createAddressGuard(
  options: { baseLookup?: BaseLookup; reason?: (ip: string) => string | null } = {},
): AddressGuard {
  const baseLookup = options.baseLookup ?? systemLookup;
  const reason = options.reason ?? forbiddenAddressReason;
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    baseLookup(hostname, { ...lookupOptions, all: true }, (err, addresses) => {
      if (err) {
        callback(err, '', 0);
        return;
      }
      if (!addresses || addresses.length === 0) {
        const e: NodeJS.ErrnoException = new Error(`${hostname} did not resolve to any address`);
        e.code = 'ENOTFOUND';
        callback(e, '', 0);
        return;
      }
      for (const { address } of addresses) {
        const why = reason(address);
        if (why !== null) {
          callback(new NetError('forbidden_address', `${hostname} resolves to ${address}: ${why}; ${ALLOW_PRIVATE_HINT}`), '', 0);
          return;
        }
      }
      // net asks for a list with Happy Eyeballs and for one address otherwise.
      if (lookupOptions.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  };
  return { reason, lookup };
}

/** The real policy (address-policy.ts) over the system resolver. */
export const defaultAddressGuard: AddressGuard = createAddressGuard();
