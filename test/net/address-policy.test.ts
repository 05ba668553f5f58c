import { describe, expect, it } from 'vitest';
import { forbiddenAddressReason, isForbiddenAddress, parseIPv6 } from '../../src/net/address-policy.js';

const FORBIDDEN_V4: Array<[string, RegExp]> = [
  ['0.0.0.0', /unspecified/],
  ['0.1.2.3', /0\.0\.0\.0\/8/],
  ['10.0.0.1', /private/],
  ['10.255.255.255', /private/],
  ['100.64.0.1', /carrier-grade NAT/],
  ['100.127.255.255', /carrier-grade NAT/],
  ['127.0.0.1', /loopback/],
  ['127.255.255.254', /loopback/],
  ['169.254.169.254', /link-local/], // cloud metadata endpoint
  ['172.16.0.1', /private/],
  ['172.31.255.255', /private/],
  ['192.0.0.170', /IETF protocol/],
  ['192.0.2.5', /documentation/],
  ['192.88.99.1', /6to4 relay/],
  ['192.168.1.1', /private/],
  ['198.18.0.1', /benchmarking/],
  ['198.19.255.255', /benchmarking/],
  ['198.51.100.7', /documentation/],
  ['203.0.113.9', /documentation/],
  ['224.0.0.1', /multicast/],
  ['239.255.255.250', /multicast/],
  ['240.0.0.1', /reserved/],
  ['255.255.255.255', /broadcast/],
];

const FORBIDDEN_V6: Array<[string, RegExp]> = [
  ['::', /unspecified/],
  ['::1', /loopback/],
  ['0:0:0:0:0:0:0:1', /loopback/],
  ['fc00::1', /unique local/],
  ['fd12:3456:789a::1', /unique local/],
  ['fe80::1', /link-local/],
  ['fe80::1%eth0', /link-local/],
  ['febf:ffff::1', /link-local/],
  ['ff02::1', /multicast/],
  ['fec0::1', /not global unicast/], // deprecated site-local
  ['100::1', /not global unicast/], // discard-only
  ['::127.0.0.1', /not global unicast/], // deprecated IPv4-compatible
  ['::7f00:1', /not global unicast/],
  ['64:ff9b:1::a00:1', /not global unicast/], // local-use NAT64
  ['2001::1', /2001::\/23/], // Teredo
  ['2001:2::1', /2001::\/23/], // benchmarking
  ['2001:db8::1', /documentation/],
  ['3fff::1', /documentation/],
  // IPv4 embedded in IPv6: judged by the IPv4 address.
  ['::ffff:127.0.0.1', /IPv4-mapped form of 127\.0\.0\.1: loopback/],
  ['::ffff:7f00:1', /IPv4-mapped form of 127\.0\.0\.1: loopback/],
  ['::FFFF:7F00:0001', /IPv4-mapped form of 127\.0\.0\.1/],
  ['0:0:0:0:0:ffff:a00:1', /IPv4-mapped form of 10\.0\.0\.1: private/],
  ['::ffff:169.254.169.254', /IPv4-mapped form of 169\.254\.169\.254: link-local/],
  ['::ffff:0.0.0.0', /unspecified/],
  ['::ffff:0:7f00:1', /IPv4-translated form of 127\.0\.0\.1/],
  ['64:ff9b::7f00:1', /NAT64 form of 127\.0\.0\.1/],
  ['64:ff9b::10.0.0.1', /NAT64 form of 10\.0\.0\.1/],
  ['2002:7f00:1::1', /6to4 form of 127\.0\.0\.1/],
  ['2002:c0a8:101::', /6to4 form of 192\.168\.1\.1/],
];

const NOT_ADDRESSES = ['', 'localhost', 'example.com', '1.2.3', '256.1.1.1', '01.2.3.4', '1.2.3.4.5', '::ffff:999.0.0.1', ':::1', '[::1]', '12345::'];

const PUBLIC = [
  '1.1.1.1',
  '8.8.8.8',
  '100.63.255.255', // just below CGNAT
  '100.128.0.0', // just above CGNAT
  '172.15.255.255',
  '172.32.0.0',
  '192.0.1.1',
  '198.17.255.255',
  '198.20.0.0',
  '223.255.255.255',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '64:ff9b::808:808', // NAT64 to a public IPv4 is how IPv6-only networks reach it
  '2002:808:808::1',
];

describe('isForbiddenAddress', () => {
  it.each(FORBIDDEN_V4)('refuses IPv4 %s', (ip, reason) => {
    expect(isForbiddenAddress(ip)).toBe(true);
    expect(forbiddenAddressReason(ip)).toMatch(reason);
  });

  it.each(FORBIDDEN_V6)('refuses IPv6 %s', (ip, reason) => {
    expect(isForbiddenAddress(ip)).toBe(true);
    expect(forbiddenAddressReason(ip)).toMatch(reason);
  });

  it.each(NOT_ADDRESSES)('fails closed on %j, which is not an address', (text) => {
    expect(isForbiddenAddress(text)).toBe(true);
    expect(forbiddenAddressReason(text)).toBe('not an IP address');
  });

  it.each(PUBLIC)('allows public %s', (ip) => {
    expect(forbiddenAddressReason(ip)).toBeNull();
    expect(isForbiddenAddress(ip)).toBe(false);
  });

  it('parses IPv6 into the right bytes, including :: and dotted tails', () => {
    expect(Buffer.from(parseIPv6('::ffff:127.0.0.1')!).toString('hex')).toBe('00000000000000000000ffff7f000001');
    expect(Buffer.from(parseIPv6('2001:db8::8:800:200c:417a')!).toString('hex')).toBe('20010db80000000000080800200c417a');
    expect(Buffer.from(parseIPv6('1::')!).toString('hex')).toBe('00010000000000000000000000000000');
    expect(parseIPv6('1:2:3:4:5:6:7::')).not.toBeNull();
    expect(parseIPv6('1:2:3:4:5:6:7:8:9')).toBeNull();
  });
});
