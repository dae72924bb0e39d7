import * as ipaddr from 'ipaddr.js';
import { specialPurposeRange } from './address-ranges';
import { checkEndpointUrl, isPermittedAddress, PrivateNetworkAllowList } from './endpoint-url';

const none = new PrivateNetworkAllowList([]);
const loopback = new PrivateNetworkAllowList(['127.0.0.0/8', '::1/128']);

/** [an address inside, the range of the IANA special-purpose registries (or 2000::/3) it is in] */
const IPV4_REFUSED: [string, string][] = [
  ['0.0.0.0', '0.0.0.0/8'],
  ['0.255.255.255', '0.0.0.0/8'],
  ['10.0.0.0', '10.0.0.0/8'],
  ['10.255.255.255', '10.0.0.0/8'],
  ['100.64.0.0', '100.64.0.0/10'],
  ['100.127.255.255', '100.64.0.0/10'],
  ['127.0.0.1', '127.0.0.0/8'],
  ['127.255.255.254', '127.0.0.0/8'],
  ['169.254.0.1', '169.254.0.0/16'],
  ['169.254.169.254', '169.254.0.0/16'],
  ['172.16.0.1', '172.16.0.0/12'],
  ['172.31.255.255', '172.16.0.0/12'],
  ['192.0.0.1', '192.0.0.0/24'],
  ['192.0.0.9', '192.0.0.0/24'],
  ['192.0.0.171', '192.0.0.0/24'],
  ['192.0.2.1', '192.0.2.0/24'],
  ['192.31.196.1', '192.31.196.0/24'],
  ['192.52.193.1', '192.52.193.0/24'],
  ['192.88.99.1', '192.88.99.0/24'],
  ['192.168.0.1', '192.168.0.0/16'],
  ['192.168.255.255', '192.168.0.0/16'],
  ['192.175.48.1', '192.175.48.0/24'],
  ['198.18.0.1', '198.18.0.0/15'],
  ['198.19.255.255', '198.18.0.0/15'],
  ['198.51.100.7', '198.51.100.0/24'],
  ['203.0.113.7', '203.0.113.0/24'],
  ['224.0.0.1', '224.0.0.0/4'],
  ['239.255.255.255', '224.0.0.0/4'],
  ['240.0.0.1', '240.0.0.0/4'],
  ['255.255.255.254', '240.0.0.0/4'],
  ['255.255.255.255', '255.255.255.255/32'],
];

/** Global unicast, just outside the ranges above where one borders another. */
const IPV4_PERMITTED = [
  '1.1.1.1',
  '8.8.8.8',
  '93.184.216.34',
  '1.0.0.0',
  '9.255.255.255',
  '11.0.0.0',
  '100.63.255.255',
  '100.128.0.0',
  '126.255.255.255',
  '128.0.0.0',
  '169.253.255.255',
  '169.255.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.0.1.0',
  '192.0.3.0',
  '192.88.98.255',
  '192.88.100.0',
  '192.167.255.255',
  '192.169.0.0',
  '198.17.255.255',
  '198.20.0.0',
  '198.51.99.255',
  '198.51.101.0',
  '203.0.112.255',
  '203.0.114.0',
  '223.255.255.255',
];

const IPV6_REFUSED: [string, string][] = [
  // the three addresses of issue 30, finding 3: IPv4-compatible (::/96, deprecated), not in 2000::/3
  ['::a9fe:a9fe', '::/96'],
  ['::a00:1', '::/96'],
  ['::7f00:1', '::/96'],
  ['::808:808', '::/96'],
  ['::', '::/128'],
  ['::1', '::1/128'],
  ['::2', '::/96'],
  ['::ffff:0:0:1', '2000::/3'],
  ['64:ff9b::a9fe:a9fe', '169.254.0.0/16'],
  ['64:ff9b::7f00:1', '127.0.0.0/8'],
  ['64:ff9b::a00:1', '10.0.0.0/8'],
  ['64:ff9b::1:a00:1', '2000::/3'],
  ['64:ff9b:1::1', '64:ff9b:1::/48'],
  ['100::1', '100::/64'],
  ['100:0:0:1::1', '100:0:0:1::/64'],
  ['1000::1', '2000::/3'],
  ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '2000::/3'],
  ['2001::1', '2001::/32'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::/32'],
  ['2001:1::1', '2001::/23'],
  ['2001:1::2', '2001::/23'],
  ['2001:2::1', '2001::/23'],
  ['2001:3::1', '2001::/23'],
  ['2001:4:112::1', '2001::/23'],
  ['2001:10::1', '2001::/23'],
  ['2001:20::1', '2001::/23'],
  ['2001:30::1', '2001::/23'],
  ['2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', '2001::/23'],
  ['2001:db8::1', '2001:db8::/32'],
  ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db8::/32'],
  ['2002:a00:1::1', '10.0.0.0/8'],
  ['2002:7f00:1::', '127.0.0.0/8'],
  ['2002:a9fe:a9fe::1', '169.254.0.0/16'],
  ['2002:c0a8:101::1', '192.168.0.0/16'],
  ['2002::1', '0.0.0.0/8'],
  ['2620:4f:8000::1', '2620:4f:8000::/48'],
  ['3fff::1', '3fff::/20'],
  ['3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', '3fff::/20'],
  ['5f00::1', '5f00::/16'],
  ['5f00:ffff::1', '5f00::/16'],
  ['4000::1', '2000::/3'],
  ['5eff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '2000::/3'],
  ['5f01::1', '2000::/3'],
  ['e000::1', '2000::/3'],
  ['fc00::1', 'fc00::/7'],
  ['fd00::1', 'fc00::/7'],
  ['fe80::1', 'fe80::/10'],
  ['febf::1', 'fe80::/10'],
  ['fec0::1', 'fec0::/10'],
  ['ff02::1', 'ff00::/8'],
  ['ff0e::1', 'ff00::/8'],
  // IPv4-mapped: the IPv4 address it carries
  ['::ffff:10.0.0.1', '10.0.0.0/8'],
  ['::ffff:169.254.169.254', '169.254.0.0/16'],
  ['::ffff:127.0.0.1', '127.0.0.0/8'],
  ['::ffff:0.0.0.0', '0.0.0.0/8'],
  ['::ffff:203.0.113.1', '203.0.113.0/24'],
];

const IPV6_PERMITTED = [
  '2606:4700::1111',
  '2001:4860:4860::8888',
  '2a00:1450:4001:80b::200e',
  '2000::1',
  '2001:200::1',
  '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff',
  '2001:db9::1',
  '2003::1',
  '2620:4f:7fff:ffff:ffff:ffff:ffff:ffff',
  '2620:4f:8001::1',
  '3ffe::1',
  '3fff:1000::1',
  '3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
  // 6to4, NAT64 (well-known prefix) and IPv4-mapped carrying a global IPv4 address
  '2002:808:808::1',
  '64:ff9b::808:808',
  '64:ff9b::8.8.4.4',
  '::ffff:8.8.8.8',
];

describe('the address rule (ADR 0039): global unicast only, at registration and connect time', () => {
  it.each(IPV4_REFUSED)('refuses %s (in %s)', (address) => {
    expect(isPermittedAddress(address, none)).toBe(false);
  });

  it.each(IPV4_PERMITTED)('permits the global unicast %s', (address) => {
    expect(isPermittedAddress(address, none)).toBe(true);
  });

  it.each(IPV6_REFUSED)('refuses %s (judged by %s)', (address) => {
    expect(isPermittedAddress(address, none)).toBe(false);
  });

  it.each(IPV6_PERMITTED)('permits the global unicast %s', (address) => {
    expect(isPermittedAddress(address, none)).toBe(true);
  });

  it.each([...IPV4_REFUSED, ...IPV6_REFUSED])('names the range of %s: %s', (address, cidr) => {
    expect(specialPurposeRange(ipaddr.parse(address))).toEqual({
      cidr,
      name: expect.any(String),
    });
  });

  it.each([...IPV4_PERMITTED, ...IPV6_PERMITTED])('names no range for %s', (address) => {
    expect(specialPurposeRange(ipaddr.parse(address))).toBeNull();
  });

  it('says what carried an IPv4 address, and what the carried address is', () => {
    expect(specialPurposeRange(ipaddr.parse('2002:a9fe:a9fe::1'))?.name).toMatch(
      /^link-local.*, carried by 6to4 2002::\/16$/,
    );
    expect(specialPurposeRange(ipaddr.parse('64:ff9b::7f00:1'))?.name).toMatch(
      /^loopback.*, carried by NAT64 64:ff9b::\/96$/,
    );
    expect(specialPurposeRange(ipaddr.parse('::a9fe:a9fe'))?.name).toMatch(/IPv4-compatible/);
    expect(specialPurposeRange(ipaddr.parse('4000::1'))?.name).toBe('outside global unicast');
  });

  it.each([
    'https://[::a9fe:a9fe]/latest/meta-data/',
    'https://[::a00:1]/',
    'https://[::7f00:1]/',
    'https://[::169.254.169.254]/latest/meta-data/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[2002:a9fe:a9fe::]/',
    'https://[2001:db8::1]/',
    'https://[100::1]/',
    'https://[4000::1]/',
  ])('refuses to register %s', (url) => {
    expect(checkEndpointUrl(url, none)).toMatch(/must not point to/);
    expect(checkEndpointUrl(url, loopback)).toMatch(/must not point to/);
  });

  it('admits only what the allow-list names, in the form it names it', () => {
    // The test stacks' loopback allow-list does not reach loopback in another form.
    expect(isPermittedAddress('127.0.0.1', loopback)).toBe(true);
    expect(isPermittedAddress('::1', loopback)).toBe(true);
    expect(isPermittedAddress('::ffff:127.0.0.1', loopback)).toBe(true);
    expect(isPermittedAddress('::7f00:1', loopback)).toBe(false);
    expect(isPermittedAddress('64:ff9b::7f00:1', loopback)).toBe(false);
    expect(isPermittedAddress('2002:7f00:1::', loopback)).toBe(false);
    // A private setup may name any range, IPv6 special-purpose ones included.
    const privateSetup = new PrivateNetworkAllowList(['fd00::/8', '2001:db8::/32', '10.0.0.0/8']);
    expect(isPermittedAddress('fd00::1', privateSetup)).toBe(true);
    expect(isPermittedAddress('2001:db8::1', privateSetup)).toBe(true);
    expect(isPermittedAddress('10.1.2.3', privateSetup)).toBe(true);
    expect(isPermittedAddress('::ffff:10.1.2.3', privateSetup)).toBe(true);
    expect(isPermittedAddress('fe80::1', privateSetup)).toBe(false);
    expect(isPermittedAddress('::a00:1', privateSetup)).toBe(false);
  });
});
