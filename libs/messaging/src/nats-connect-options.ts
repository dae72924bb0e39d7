import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import {
  checkServerIdentity as checkNamed,
  type ConnectionOptions as TlsConnectOptions,
  type PeerCertificate,
} from 'node:tls';
import {
  credsAuthenticator,
  nkeyAuthenticator,
  type Authenticator,
  type ConnectionOptions,
  type TlsOptions,
} from '@nats-io/nats-core';
import type { NatsSettings } from '@svc/config';

/**
 * The @nats-io connect options for the configured NATS: servers, client name, authentication
 * (credentials file, NKey seed file, user and password, or token) and TLS (the CA to trust, a
 * client certificate). Every NATS connection of the service is made with these: the apps'
 * (NatsConnectionManager) and `svc events publish`. Files are read here, once, so that a missing
 * or unreadable file fails at start-up with its variable's name rather than on each reconnect.
 * A server named by IP address is checked against that address (checkServerAddress).
 */
export function natsConnectOptions(
  settings: NatsSettings,
  name: string,
  extra: Omit<ConnectionOptions, 'servers' | 'name'> = {},
): ConnectionOptions {
  const authenticator = authenticatorFor(settings);
  return {
    servers: settings.servers,
    name,
    ...(authenticator ? { authenticator } : {}),
    ...(settings.user !== undefined ? { user: settings.user, pass: settings.password } : {}),
    ...(settings.token !== undefined ? { token: settings.token } : {}),
    ...(settings.tls ? { tls: tlsOptionsFor(settings.tls) } : {}),
    ...extra,
  };
}

/** Where the connection authenticates, for logs: never a secret. */
export function natsAuthDescription(settings: NatsSettings): string {
  const how = settings.credsFile
    ? `credentials file ${settings.credsFile}`
    : settings.nkeySeedFile
      ? `NKey seed file ${settings.nkeySeedFile}`
      : settings.user
        ? `user ${settings.user}`
        : settings.token
          ? 'token'
          : 'no authentication';
  return `${how}${settings.tls ? ', TLS' : ''}`;
}

function authenticatorFor(settings: NatsSettings): Authenticator | undefined {
  if (settings.credsFile) {
    return credsAuthenticator(
      new TextEncoder().encode(readSetting('NATS_CREDS_FILE', settings.credsFile)),
    );
  }
  if (settings.nkeySeedFile) {
    const seed = readSetting('NATS_NKEY_SEED_FILE', settings.nkeySeedFile).trim();
    return nkeyAuthenticator(new TextEncoder().encode(seed));
  }
  return undefined;
}

/**
 * The CA to trust and the client certificate, and the check of the server's identity. The
 * library's TlsOptions type names only its own fields; the Node transport hands every field on
 * to `tls.connect`.
 */
function tlsOptionsFor(
  tls: NonNullable<NatsSettings['tls']>,
): TlsOptions & Pick<TlsConnectOptions, 'checkServerIdentity'> {
  return {
    checkServerIdentity: checkServerAddress,
    ...(tls.caFile ? { ca: readSetting('NATS_TLS_CA_FILE', tls.caFile) } : {}),
    ...(tls.certFile ? { cert: readSetting('NATS_TLS_CERT_FILE', tls.certFile) } : {}),
    ...(tls.keyFile ? { key: readSetting('NATS_TLS_KEY_FILE', tls.keyFile) } : {}),
  };
}

/** The options Node's TLS client calls checkServerIdentity on, as far as it is read here. */
interface TlsConnectionOptions {
  servername?: string;
  host?: string;
  socket?: Socket;
}

/**
 * The server's certificate checked against the address the connection went to when the URL names
 * the server by IP (`tls://10.0.4.7:4222`), and against the name otherwise, as Node would.
 *
 * The library gap: @nats-io/transport-node (3.4) upgrades its TCP socket with
 * `tls.connect({ socket, servername })`, servername being the server's host name and empty for
 * an IP (RFC 6066 keeps IP addresses out of SNI), with no `host`; Node then checks the
 * certificate against the socket's host name, which a socket connected to an IP does not keep,
 * so against its last fallback, `localhost`: a certificate with the IP in its subjectAltName was
 * refused, and one made out to `localhost` accepted from any address. Node calls this function as
 * a method of the connection's options (`options.checkServerIdentity(hostname, cert)`), which
 * hold the socket; without them (another caller), it is Node's own check.
 */
function checkServerAddress(
  this: TlsConnectionOptions | undefined,
  hostname: string,
  cert: PeerCertificate,
): Error | undefined {
  const address = this?.socket?.remoteAddress;
  if (!this?.servername && !this?.host && address) {
    return checkNamed(address, cert);
  }
  return checkNamed(hostname, cert);
}

function readSetting(variable: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`${variable}: cannot read ${file} (${(error as Error).message})`, {
      cause: error,
    });
  }
}
