import * as ipaddr from 'ipaddr.js';
import { specialPurposeRange } from './address-ranges';

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
 * An address a webhook may be sent to, the one rule of registration and of connect time (ADR 0006,
 * ADR 0039): global unicast (`specialPurposeRange` finds no range), or in the allow-list. Loopback,
 * private, link-local (cloud metadata included), CGNAT, multicast, documentation, IPv4-compatible
 * and every other special-purpose or non-global range is refused. IPv4-mapped IPv6 is judged, and
 * matched against the allow-list, as the IPv4 address it carries.
 */
export function isPermittedAddress(address: string, allowList: PrivateNetworkAllowList): boolean {
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return specialPurposeRange(parsed) === null || allowList.allows(parsed);
}

/** ASCII letters only: the parser lower-cases scheme and host, and nothing else it changes is a letter. */
function asciiLowerCase(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/**
 * Whether `raw` is already the WHATWG serialisation of the URL it parses to, except for the two
 * differences that cannot change where a request goes: the letter case of scheme and host (the
 * parser lower-cases them), and an empty path written as `/`. Anything else the parser would
 * change (surrounding spaces, tabs or newlines it strips, `\` read as `/`, a missing `//`, dot
 * segments, characters it percent-encodes, IPv4 shorthands, a default port, a non-ASCII host)
 * means that what was typed is not what would be used, and is refused.
 */
function isCanonicalForm(raw: string, url: URL): boolean {
  const typed = asciiLowerCase(raw);
  const href = asciiLowerCase(url.href);
  if (typed === href) {
    return true;
  }
  return url.pathname === '/' && url.search === '' && `${typed}/` === href;
}

/**
 * The registration-time check of an endpoint URL (ADR 0006): an absolute https URL of at most
 * 2048 characters, without user information or fragment, whose host, when it is an address
 * literal or localhost, is permitted; written in canonical form (see `isCanonicalForm`), without
 * port 0 and without a trailing dot on the host. Host names are checked again at connect time.
 * Returns what is wrong, or null. Store `canonicalEndpointUrl(raw)` when it passes.
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
  if (url.hash !== '' || raw.includes('#')) {
    return 'must not contain a fragment (#...)';
  }
  if (url.port === '0') {
    return 'must not use port 0';
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host)) {
    if (!isPermittedAddress(host, allowList)) {
      return 'must not point to a private, loopback, link-local or reserved address';
    }
  } else {
    // `localhost.` is the fully qualified form of `localhost`: loopback all the same.
    const name = host.endsWith('.') ? host.slice(0, -1) : host;
    if (
      (name === 'localhost' || name.endsWith('.localhost')) &&
      !isPermittedAddress('127.0.0.1', allowList)
    ) {
      return 'must not point to localhost';
    }
    if (host.endsWith('.')) {
      return 'must not end the host name with a trailing dot';
    }
  }
  if (!isCanonicalForm(raw, url)) {
    return `must be written in canonical form, exactly as it is sent to; this one would be sent to ${url.href}`;
  }
  return null;
}

/** The URL to store, show and deliver to: the WHATWG serialisation of one that passed the check. */
export function canonicalEndpointUrl(raw: string): string {
  return new URL(raw).href;
}
