import { createHash } from 'node:crypto';
import * as ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** When the peer's address is unknown (it never is on a real socket). */
const UNKNOWN = 'unknown';

/**
 * The address a sign-in comes from. `X-Forwarded-For` is read only when the connection comes
 * from a trusted proxy (`AUTH_TRUSTED_PROXIES`), and then by the rightmost-untrusted rule: walking
 * the list from the right, each entry was written by the trusted hop after it, so the first
 * entry that is not itself a trusted proxy is the client. Entries further left were written by
 * the client and could be anything.
 */
export class ClientAddresses {
  private readonly trusted: [Address, number][];

  constructor(trustedProxies: readonly string[]) {
    this.trusted = trustedProxies.map((cidr) => ipaddr.parseCIDR(cidr));
  }

  of(peer: string | undefined, forwardedFor: string | string[] | undefined): string {
    let current = peer === undefined ? null : parseAddress(peer);
    if (!current) {
      return UNKNOWN;
    }
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? ''))
      .split(',')
      .map((hop) => hop.trim())
      .filter((hop) => hop.length > 0);
    while (this.isTrusted(current) && hops.length > 0) {
      const previous = parseAddress(hops.pop()!);
      if (!previous) {
        // Not written by a trusted hop: the last address vouched for is the client's.
        break;
      }
      current = previous;
    }
    return current.toString();
  }

  private isTrusted(address: Address): boolean {
    return this.trusted.some(
      ([range, bits]) => range.kind() === address.kind() && address.match(range, bits),
    );
  }
}

/** An IP address with or without a port (`1.2.3.4:5`, `[::1]:5`); IPv4-mapped IPv6 as IPv4. */
function parseAddress(raw: string): Address | null {
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(raw);
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(raw);
  const candidate = bracketed?.[1] ?? withPort?.[1] ?? raw;
  return ipaddr.isValid(candidate) ? ipaddr.process(candidate) : null;
}

/**
 * The throttle key of a client address: IPv4 addresses whole, IPv6 by their /64, the smallest
 * block a single subscriber is usually given (one attacker holds all of it).
 */
export function addressThrottleKey(address: string): string {
  if (!ipaddr.isValid(address)) {
    return `address:${UNKNOWN}`;
  }
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') {
    return `address:${parsed.toString()}`;
  }
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `address:${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}

/** Longer than any email a user can have (users are created with at most 320 characters). */
const MAX_EMAIL_LENGTH = 320;

/** A NUL (PostgreSQL text cannot hold it) or a lone UTF-16 surrogate (not encodable as UTF-8). */
const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The email as users are stored (trimmed, lowercased); null when no user can have it. */
export function normalisedEmail(email: string): string | null {
  const normalised = email.trim().toLowerCase();
  return normalised.length > MAX_EMAIL_LENGTH || UNSTORABLE.test(normalised) ? null : normalised;
}

/**
 * The throttle key of an account: the email typed, whether or not such a user exists, so the
 * throttle says nothing about which accounts exist. An email no user can have (NUL, lone
 * surrogate, overlong) is keyed by its SHA-256, so its failures are counted too.
 */
export function accountThrottleKey(email: string): string {
  const normalised = normalisedEmail(email);
  if (normalised !== null) {
    return `account:${normalised}`;
  }
  const digest = createHash('sha256')
    .update(Buffer.from(email.trim().toLowerCase(), 'utf16le'))
    .digest('hex');
  return `account:sha256:${digest}`;
}
