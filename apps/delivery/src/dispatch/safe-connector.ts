import { isPermittedAddress, PrivateNetworkAllowList } from '@svc/webhook-endpoints';
import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { SecureContext } from 'node:tls';
import { buildConnector } from 'undici';

/**
 * The address a webhook would reach is not public and not in the allow-list. Its message is what
 * the tenant sees in the attempt log: "blocked address", never how our resolvers see the name
 * (internal DNS). The host and addresses are for the engine's own log only.
 */
export class BlockedAddressError extends Error {
  override readonly name = 'BlockedAddressError';
  constructor(
    readonly host: string,
    readonly addresses: string[],
  ) {
    super('blocked address');
  }

  /** For operators (the engine's log): which name resolved to which refused addresses. */
  get detail(): string {
    return `${this.host} resolves only to addresses deliveries may not reach (${this.addresses.join(', ')})`;
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A DNS lookup that hands the socket only permitted addresses. The check happens on the very
 * address the socket then connects to, so a name that resolved to a public address at
 * registration and to a private one now (DNS rebinding) is still refused.
 */
export function safeLookup(allowList: PrivateNetworkAllowList) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number },
    callback: LookupCallback,
  ): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, []);
        return;
      }
      const permitted = addresses.filter((entry) => isPermittedAddress(entry.address, allowList));
      if (permitted.length === 0) {
        callback(
          new BlockedAddressError(
            hostname,
            addresses.map((entry) => entry.address),
          ),
          [],
        );
      } else if (options.all) {
        callback(null, permitted);
      } else {
        callback(null, permitted[0].address, permitted[0].family);
      }
    });
  };
}

/** `[::1]` as `::1`: undici hands IPv6 literals in brackets, as URLs write them. */
export function bareHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '');
}

/** The check a lookup never sees: a host that is an address literal connects without resolving. */
function blockedLiteral(
  host: string,
  allowList: PrivateNetworkAllowList,
): BlockedAddressError | null {
  return isIP(host) && !isPermittedAddress(host, allowList)
    ? new BlockedAddressError(host, [host])
    : null;
}

/** A checked address: where a connection to the host may go. */
export interface CheckedAddress {
  address: string;
  /** 4 or 6. */
  family: number;
}

/**
 * The one address a connection to `hostname` may go to under the SSRF rules: an address literal
 * if it is permitted, else the first permitted address it resolves to (see safeLookup); a
 * `BlockedAddressError` when there is none. For connections that do not resolve through the
 * socket (the egress proxy's CONNECT names the address itself).
 */
export function resolveChecked(
  hostname: string,
  allowList: PrivateNetworkAllowList,
  callback: (error: Error | null, checked: CheckedAddress | null) => void,
): void {
  const host = bareHost(hostname);
  const family = isIP(host);
  if (family) {
    const blocked = blockedLiteral(host, allowList);
    callback(blocked, blocked ? null : { address: host, family });
    return;
  }
  safeLookup(allowList)(host, { all: false }, (error, address, resolvedFamily) => {
    if (error) {
      callback(error, null);
    } else {
      callback(null, {
        address: address as string,
        family: resolvedFamily ?? isIP(address as string),
      });
    }
  });
}

/**
 * undici's connector with the lookup above, plus the check a lookup never sees: hosts that are
 * address literals connect without resolving.
 */
export function safeConnector(
  allowList: PrivateNetworkAllowList,
  tls: { ca?: string[]; secureContext?: SecureContext },
): buildConnector.connector {
  const connect = buildConnector({
    ...tls,
    lookup: safeLookup(allowList),
  } as buildConnector.BuildOptions);
  return (options, callback) => {
    const blocked = blockedLiteral(bareHost(options.hostname), allowList);
    if (blocked) {
      callback(blocked, null);
      return;
    }
    connect(options, callback);
  };
}
