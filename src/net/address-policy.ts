/**
 * Which IP addresses outbound fetches may connect to (DESIGN §5 "Outbound URL fetches").
 *
 * Pure functions over address strings, so the policy is table-testable. The guard that applies
 * it at connect time is guarded-lookup.ts; this file only answers "is this address allowed?".
 *
 * Stance:
 * - IPv4: a deny list of the IANA special-purpose ranges that are not globally reachable.
 * - IPv6: an ALLOW list of global unicast (2000::/3) minus its special ranges; everything outside
 *   it (loopback, unspecified, ULA, link-local, site-local, multicast, discard, ...) is refused.
 *   Forms that embed an IPv4 address (IPv4-mapped, SIIT-translated, NAT64 64:ff9b::/96, 6to4
 *   2002::/16) are judged by the embedded IPv4 address, because that is where the packets end up.
 * - Anything that does not parse as an address is refused (fail closed).
 */
import { isIP } from 'node:net';

/** [first address, prefix length, reason] */
type V4Rule = readonly [string, number, string];

// Order matters only for the reason reported: the more specific rule comes first.
const V4_RULES: readonly V4Rule[] = [
  ['255.255.255.255', 32, 'broadcast'],
  ['0.0.0.0', 8, 'unspecified ("this network", 0.0.0.0/8)'],
  ['10.0.0.0', 8, 'private (10.0.0.0/8)'],
  ['100.64.0.0', 10, 'carrier-grade NAT (100.64.0.0/10)'],
  ['127.0.0.0', 8, 'loopback (127.0.0.0/8)'],
  ['169.254.0.0', 16, 'link-local (169.254.0.0/16)'],
  ['172.16.0.0', 12, 'private (172.16.0.0/12)'],
  ['192.0.0.0', 24, 'IETF protocol assignments (192.0.0.0/24)'],
  ['192.0.2.0', 24, 'documentation (192.0.2.0/24)'],
  ['192.88.99.0', 24, 'deprecated 6to4 relay anycast (192.88.99.0/24)'],
  ['192.168.0.0', 16, 'private (192.168.0.0/16)'],
  ['198.18.0.0', 15, 'benchmarking (198.18.0.0/15)'],
  ['198.51.100.0', 24, 'documentation (198.51.100.0/24)'],
  ['203.0.113.0', 24, 'documentation (203.0.113.0/24)'],
  ['224.0.0.0', 4, 'multicast (224.0.0.0/4)'],
  ['240.0.0.0', 4, 'reserved (240.0.0.0/4)'],
];

const V4_TABLE = V4_RULES.map(([base, prefix, reason]) => {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return { net: (parseIPv4(base)! & mask) >>> 0, mask, reason };
});

/** Dotted-quad to an unsigned 32-bit number; null unless strictly canonical (no leading zeros). */
export function parseIPv4(text: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return null;
  let n = 0;
  for (let i = 1; i <= 4; i++) {
    const part = m[i];
    // "010" could mean octal to some parsers: ambiguous, so not an address we accept.
    if (part.length > 1 && part.startsWith('0')) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    n = n * 256 + octet;
  }
  return n;
}

/** Textual IPv6 (zone id allowed, ignored) to 16 bytes; null if not a valid IPv6 address. */
export function parseIPv6(text: string): Uint8Array | null {
  let s = text;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (isIP(s) !== 6) return null;
  // Rewrite an embedded dotted IPv4 tail (::ffff:1.2.3.4) as two hex groups.
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIPv4(tail);
    if (v4 === null) return null;
    s = `${s.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] === '' ? [] : halves[0].split(':');
  const rest = halves.length === 2 ? (halves[1] === '' ? [] : halves[1].split(':')) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(groups[i])) return null;
    const word = parseInt(groups[i], 16);
    bytes[2 * i] = word >> 8;
    bytes[2 * i + 1] = word & 0xff;
  }
  return bytes;
}

function v4Reason(n: number): string | null {
  for (const rule of V4_TABLE) {
    if (((n & rule.mask) >>> 0) === rule.net) return rule.reason;
  }
  return null;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}

function embeddedV4(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset] << 24) | (bytes[offset + 1] << 16) | (bytes[offset + 2] << 8) | bytes[offset + 3]) >>> 0;
}

function v4Text(n: number): string {
  return [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff].join('.');
}

function v6Reason(b: Uint8Array): string | null {
  const ZERO80 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  // Forms that carry an IPv4 destination: judge the IPv4 address.
  const embedded: Array<[readonly number[], number, string]> = [
    [[...ZERO80, 0xff, 0xff], 12, 'IPv4-mapped'], // ::ffff:0:0/96
    [[0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0], 12, 'IPv4-translated'], // ::ffff:0:0:0/96 (SIIT)
    [[0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 12, 'NAT64'], // 64:ff9b::/96
    [[0x20, 0x02], 2, '6to4'], // 2002::/16, IPv4 in bits 16..47
  ];
  for (const [prefix, offset, form] of embedded) {
    if (startsWith(b, prefix)) {
      const v4 = embeddedV4(b, offset);
      const reason = v4Reason(v4);
      return reason === null ? null : `${form} form of ${v4Text(v4)}: ${reason}`;
    }
  }
  if (b.every((x) => x === 0)) return 'unspecified (::)';
  if (b.slice(0, 15).every((x) => x === 0) && b[15] === 1) return 'loopback (::1)';
  if ((b[0] & 0xfe) === 0xfc) return 'unique local (fc00::/7)';
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0x80) return 'link-local (fe80::/10)';
  if (b[0] === 0xff) return 'multicast (ff00::/8)';
  // Everything else outside global unicast: ::/96 IPv4-compatible, 100::/64 discard,
  // 64:ff9b:1::/48 local-use NAT64, fec0::/10 site-local, 5f00::/16 SRv6, unassigned space.
  if ((b[0] & 0xe0) !== 0x20) return 'not global unicast (outside 2000::/3)';
  // 2001::/23 IETF protocol assignments: Teredo, benchmarking (2001:2::/48), ORCHID, ...
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] < 0x02) return 'IETF protocol assignments (2001::/23)';
  if (startsWith(b, [0x20, 0x01, 0x0d, 0xb8])) return 'documentation (2001:db8::/32)';
  if (b[0] === 0x3f && b[1] === 0xff && (b[2] & 0xf0) === 0) return 'documentation (3fff::/20)';
  return null;
}

/** Why `ip` may not be connected to, or null when it is a public address. */
export function forbiddenAddressReason(ip: string): string | null {
  const v4 = parseIPv4(ip);
  if (v4 !== null) return v4Reason(v4);
  const v6 = parseIPv6(ip);
  if (v6 !== null) return v6Reason(v6);
  return 'not an IP address';
}

/** True unless `ip` is a public (globally routable unicast) address. */
export function isForbiddenAddress(ip: string): boolean {
  return forbiddenAddressReason(ip) !== null;
}
