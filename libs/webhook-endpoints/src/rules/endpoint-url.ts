import * as ipaddr from 'ipaddr.js';

export const ENDPOINT_URL_MAX_LENGTH = 2048;

/** CIDR ranges that may be targeted although they are not public (for tests and private setups). */
export class PrivateNetworkAllowList {
  private readonly ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][];

  constructor(cidrs: readonly string[]) {
    this.ranges = cidrs.map((cidr) => ipaddr.parseCIDR(cidr));
  }

  allows(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    return this.ranges.some(
      ([range, bits]) => range.kind() === address.kind() && address.match(range, bits),
    );
  }
}

/**
 * An address a webhook may be sent to: public unicast, or explicitly allowed. Loopback, private,
 * link-local (cloud metadata included), CGNAT, multicast and reserved ranges are refused.
 */
export function isPermittedAddress(address: string, allowList: PrivateNetworkAllowList): boolean {
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() === 'unicast' || allowList.allows(parsed);
}

/**
 * The registration-time check of an endpoint URL, as DESIGN.md decides it: an absolute https URL
 * of at most 2048 characters, without user information or fragment, whose host, when it is an
 * address literal or localhost, is permitted. Host names are checked again at connect time.
 * Returns what is wrong, or null.
 */
export function checkEndpointUrl(raw: string, allowList: PrivateNetworkAllowList): string | null {
  if (raw.length > ENDPOINT_URL_MAX_LENGTH) {
    return `must be at most ${ENDPOINT_URL_MAX_LENGTH} characters`;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL such as https://hooks.example.com/svc';
  }
  if (url.protocol !== 'https:') {
    return 'must use the https scheme';
  }
  if (url.username !== '' || url.password !== '') {
    return 'must not contain user information (user:password@)';
  }
  if (url.hash !== '') {
    return 'must not contain a fragment (#...)';
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host)) {
    return isPermittedAddress(host, allowList)
      ? null
      : 'must not point to a private, loopback, link-local or reserved address';
  }
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return isPermittedAddress('127.0.0.1', allowList) ? null : 'must not point to localhost';
  }
  return null;
}
