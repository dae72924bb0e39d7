import * as ipaddr from 'ipaddr.js';

/** Why an address is not global unicast: the range it lies in, and that range's name. */
export interface SpecialPurposeRange {
  /** As in the IANA registry (`169.254.0.0/16`); `2000::/3` for IPv6 outside global unicast. */
  readonly cidr: string;
  readonly name: string;
}

type Table = readonly (readonly [ipaddr.IPv4 | ipaddr.IPv6, number, SpecialPurposeRange])[];

function table(entries: readonly (readonly [string, string])[]): Table {
  return entries.map(([cidr, name]) => {
    const [range, bits] = ipaddr.parseCIDR(cidr);
    return [range, bits, { cidr, name }] as const;
  });
}

function firstMatch(address: ipaddr.IPv4 | ipaddr.IPv6, ranges: Table): SpecialPurposeRange | null {
  const found = ranges.find(([range, bits]) => address.match(range, bits));
  return found ? found[2] : null;
}

/**
 * The IANA IPv4 Special-Purpose Address Registry, every entry, with multicast (224.0.0.0/4) and
 * the rest of 240.0.0.0/4 beside it. More specific ranges come first. Entries the registry calls
 * globally reachable (AS112, AMT, the PCP and TURN anycast addresses inside 192.0.0.0/24) are
 * refused too: no webhook receiver lives there.
 */
const IPV4_SPECIAL_PURPOSE = table([
  ['0.0.0.0/8', '"this network" (RFC 791)'],
  ['10.0.0.0/8', 'private-use (RFC 1918)'],
  ['100.64.0.0/10', 'shared address space, carrier-grade NAT (RFC 6598)'],
  ['127.0.0.0/8', 'loopback (RFC 1122)'],
  ['169.254.0.0/16', 'link-local, cloud metadata included (RFC 3927)'],
  ['172.16.0.0/12', 'private-use (RFC 1918)'],
  ['192.0.0.0/24', 'IETF protocol assignments (RFC 6890)'],
  ['192.0.2.0/24', 'documentation, TEST-NET-1 (RFC 5737)'],
  ['192.31.196.0/24', 'AS112-v4 (RFC 7535)'],
  ['192.52.193.0/24', 'AMT (RFC 7450)'],
  ['192.88.99.0/24', 'deprecated 6to4 relay anycast (RFC 7526)'],
  ['192.168.0.0/16', 'private-use (RFC 1918)'],
  ['192.175.48.0/24', 'direct delegation AS112 service (RFC 7534)'],
  ['198.18.0.0/15', 'benchmarking (RFC 2544)'],
  ['198.51.100.0/24', 'documentation, TEST-NET-2 (RFC 5737)'],
  ['203.0.113.0/24', 'documentation, TEST-NET-3 (RFC 5737)'],
  ['224.0.0.0/4', 'multicast (RFC 5771)'],
  ['255.255.255.255/32', 'limited broadcast (RFC 919)'],
  ['240.0.0.0/4', 'reserved (RFC 1112)'],
]);

/** Global unicast (RFC 4291 2.4, OWASP's IPv6 allow-list): everything else is refused. */
const [GLOBAL_UNICAST, GLOBAL_UNICAST_BITS] = ipaddr.parseCIDR('2000::/3');

/** Outside 2000::/3, named where a registry names them; the rest is "outside global unicast". */
const IPV6_OUTSIDE_GLOBAL_UNICAST = table([
  ['::/128', 'unspecified (RFC 4291)'],
  ['::1/128', 'loopback (RFC 4291)'],
  ['::/96', 'IPv4-compatible, deprecated (RFC 4291)'],
  ['64:ff9b:1::/48', 'local-use IPv4/IPv6 translation (RFC 8215)'],
  ['100::/64', 'discard-only (RFC 6666)'],
  ['100:0:0:1::/64', 'dummy IPv6 prefix (RFC 9780)'],
  ['5f00::/16', 'segment routing SIDs (RFC 9602)'],
  ['fc00::/7', 'unique-local (RFC 4193)'],
  ['fe80::/10', 'link-local (RFC 4291)'],
  ['fec0::/10', 'deprecated site-local (RFC 3879)'],
  ['ff00::/8', 'multicast (RFC 4291)'],
]);
const OUTSIDE_GLOBAL_UNICAST: SpecialPurposeRange = {
  cidr: '2000::/3',
  name: 'outside global unicast',
};

/**
 * The IANA IPv6 Special-Purpose Address Registry's entries inside 2000::/3 (6to4 aside). The whole
 * of 2001::/23 is refused, its globally reachable anycast, AMT, AS112, ORCHIDv2 and drone entries
 * too: it is IANA's block for IETF protocols, and no network is numbered from it.
 */
const IPV6_SPECIAL_PURPOSE = table([
  ['2001::/32', 'Teredo (RFC 4380)'],
  ['2001::/23', 'IETF protocol assignments (RFC 2928)'],
  ['2001:db8::/32', 'documentation (RFC 3849)'],
  ['2620:4f:8000::/48', 'direct delegation AS112 service (RFC 7534)'],
  ['3fff::/20', 'documentation (RFC 9637)'],
]);

const [IPV4_MAPPED, IPV4_MAPPED_BITS] = ipaddr.parseCIDR('::ffff:0:0/96');
const [NAT64, NAT64_BITS] = ipaddr.parseCIDR('64:ff9b::/96');
const [SIX_TO_FOUR, SIX_TO_FOUR_BITS] = ipaddr.parseCIDR('2002::/16');

function ipv4(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** An IPv6 address that reaches the IPv4 address it carries is judged as that address. */
function judgedAsCarried(carried: ipaddr.IPv4, carrier: string): SpecialPurposeRange | null {
  const found = firstMatch(carried, IPV4_SPECIAL_PURPOSE);
  return found && { cidr: found.cidr, name: `${found.name}, carried by ${carrier}` };
}

/**
 * The product's address rule (ADR 0039): null when `address` is global unicast a webhook may be
 * sent to, else the special-purpose range it lies in. IPv4: anything outside the IANA IPv4
 * special-purpose registry and multicast. IPv6: only 2000::/3, less the registry's entries in it;
 * an address that carries an IPv4 address to reach it (IPv4-mapped ::ffff:0:0/96, NAT64
 * 64:ff9b::/96, 6to4 2002::/16) is judged as the IPv4 address it carries. A pure function; the
 * allow-list of WEBHOOK_ALLOWED_PRIVATE_CIDRS is applied by the caller (`isPermittedAddress`).
 */
export function specialPurposeRange(
  address: ipaddr.IPv4 | ipaddr.IPv6,
): SpecialPurposeRange | null {
  if (address.kind() === 'ipv4') {
    return firstMatch(address, IPV4_SPECIAL_PURPOSE);
  }
  const v6 = address as ipaddr.IPv6;
  const parts = v6.parts;
  if (v6.match(IPV4_MAPPED, IPV4_MAPPED_BITS)) {
    return judgedAsCarried(ipv4(parts[6], parts[7]), 'IPv4-mapped ::ffff:0:0/96');
  }
  if (v6.match(NAT64, NAT64_BITS)) {
    return judgedAsCarried(ipv4(parts[6], parts[7]), 'NAT64 64:ff9b::/96');
  }
  if (!v6.match(GLOBAL_UNICAST, GLOBAL_UNICAST_BITS)) {
    return firstMatch(v6, IPV6_OUTSIDE_GLOBAL_UNICAST) ?? OUTSIDE_GLOBAL_UNICAST;
  }
  if (v6.match(SIX_TO_FOUR, SIX_TO_FOUR_BITS)) {
    return judgedAsCarried(ipv4(parts[1], parts[2]), '6to4 2002::/16');
  }
  return firstMatch(v6, IPV6_SPECIAL_PURPOSE);
}
