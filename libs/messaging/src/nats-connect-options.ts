import { readFileSync } from 'node:fs';
import {
  credsAuthenticator,
  nkeyAuthenticator,
  type Authenticator,
  type ConnectionOptions,
} from '@nats-io/nats-core';
import type { NatsSettings } from '@svc/config';

/**
 * The @nats-io connect options for the configured NATS: servers, client name, authentication
 * (credentials file, NKey seed file, user and password, or token) and TLS (the CA to trust, a
 * client certificate). Every NATS connection of the service is made with these: the apps'
 * (NatsConnectionManager) and `svc events publish`. Files are read here, once, so that a missing
 * or unreadable file fails at start-up with its variable's name rather than on each reconnect.
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
    ...(settings.tls
      ? {
          tls: {
            ...(settings.tls.caFile
              ? { ca: readSetting('NATS_TLS_CA_FILE', settings.tls.caFile) }
              : {}),
            ...(settings.tls.certFile
              ? { cert: readSetting('NATS_TLS_CERT_FILE', settings.tls.certFile) }
              : {}),
            ...(settings.tls.keyFile
              ? { key: readSetting('NATS_TLS_KEY_FILE', settings.tls.keyFile) }
              : {}),
          },
        }
      : {}),
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

function readSetting(variable: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`${variable}: cannot read ${file} (${(error as Error).message})`, {
      cause: error,
    });
  }
}
