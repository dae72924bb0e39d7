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
    const host = options.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !isPermittedAddress(host, allowList)) {
      callback(new BlockedAddressError(host, [host]), null);
      return;
    }
    connect(options, callback);
  };
}
