import { clientCertificateFacts } from './client-certificate';
import {
  OAuthClientCredentialsAuth,
  ReceiverAuth,
  ReceiverAuthSecrets,
  ReceiverAuthView,
  SealedReceiverAuth,
} from './receiver-auth';

/**
 * The form the event log and the projection keep (ADR 0048): what is not secret in the clear, the
 * secret parts (header values, password, client secret, private key) as one JSON document sealed
 * by `seal` (SecretCipher under `receiverAuthCipherContext(endpointId)`). An mtls auth also keeps
 * its certificate PEM as given and the facts of its first certificate. Takes a checked auth.
 */
export function sealReceiverAuth(
  auth: ReceiverAuth,
  seal: (plaintext: string) => string,
): SealedReceiverAuth {
  const sealed = (secrets: ReceiverAuthSecrets): string => seal(JSON.stringify(secrets));
  switch (auth.type) {
    case 'headers':
      return {
        type: 'headers',
        header_names: Object.keys(auth.headers),
        secret_ciphertext: sealed({ headers: auth.headers }),
      };
    case 'basic':
      return {
        type: 'basic',
        username: auth.username,
        secret_ciphertext: sealed({ password: auth.password }),
      };
    case 'oauth2_client_credentials':
      return {
        type: 'oauth2_client_credentials',
        token_url: auth.token_url,
        client_id: auth.client_id,
        scope: auth.scope ?? null,
        audience: auth.audience ?? null,
        secret_ciphertext: sealed({ client_secret: auth.client_secret }),
      };
    case 'mtls':
      return {
        type: 'mtls',
        ...clientCertificateFacts(auth.certificate),
        certificate: auth.certificate,
        secret_ciphertext: sealed({ private_key: auth.private_key }),
      };
  }
}

/** The secrets' document, or an error naming what is missing (never their content). */
function openSecrets(sealed: SealedReceiverAuth, open: (ciphertext: string) => string): unknown {
  const secrets: unknown = JSON.parse(open(sealed.secret_ciphertext));
  if (typeof secrets !== 'object' || secrets === null || Array.isArray(secrets)) {
    throw new Error(`openReceiverAuth: the ${sealed.type} auth's secrets are not an object`);
  }
  return secrets;
}

function secretString(secrets: unknown, name: string, type: string): string {
  const value =
    typeof secrets === 'object' && secrets !== null && Object.hasOwn(secrets, name)
      ? (secrets as Record<string, unknown>)[name]
      : undefined;
  if (typeof value !== 'string') {
    throw new Error(`openReceiverAuth: the ${type} auth's sealed ${name} is missing`);
  }
  return value;
}

function secretHeaders(secrets: unknown): Record<string, string> {
  const headers =
    typeof secrets === 'object' && secrets !== null && Object.hasOwn(secrets, 'headers')
      ? (secrets as Record<string, unknown>).headers
      : undefined;
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    throw new Error("openReceiverAuth: the headers auth's sealed headers are missing");
  }
  const entries = Object.entries(headers);
  if (entries.some(([, value]) => typeof value !== 'string')) {
    throw new Error("openReceiverAuth: the headers auth's sealed header values are not strings");
  }
  return Object.fromEntries(entries);
}

/**
 * The auth as the engine uses it, from its sealed form: `sealReceiverAuth`'s inverse, `open`
 * being SecretCipher's opening under the same context. Throws when the opened document does not
 * have the secrets of the sealed type.
 */
export function openReceiverAuth(
  sealed: SealedReceiverAuth,
  open: (ciphertext: string) => string,
): ReceiverAuth {
  const secrets = openSecrets(sealed, open);
  switch (sealed.type) {
    case 'headers':
      return { type: 'headers', headers: secretHeaders(secrets) };
    case 'basic':
      return {
        type: 'basic',
        username: sealed.username,
        password: secretString(secrets, 'password', sealed.type),
      };
    case 'oauth2_client_credentials': {
      const auth: OAuthClientCredentialsAuth = {
        type: 'oauth2_client_credentials',
        token_url: sealed.token_url,
        client_id: sealed.client_id,
        client_secret: secretString(secrets, 'client_secret', sealed.type),
      };
      if (sealed.scope !== null) auth.scope = sealed.scope;
      if (sealed.audience !== null) auth.audience = sealed.audience;
      return auth;
    }
    case 'mtls':
      if (sealed.certificate === undefined) {
        throw new Error("openReceiverAuth: the mtls auth's certificate is missing");
      }
      return {
        type: 'mtls',
        certificate: sealed.certificate,
        private_key: secretString(secrets, 'private_key', sealed.type),
      };
  }
}

/**
 * What answers and the audit trail show (ADR 0048): a fresh object of exactly the view's fields,
 * without the certificate PEM or the sealed secrets.
 */
export function receiverAuthView(sealed: SealedReceiverAuth): ReceiverAuthView {
  switch (sealed.type) {
    case 'headers':
      return { type: 'headers', header_names: [...sealed.header_names] };
    case 'basic':
      return { type: 'basic', username: sealed.username };
    case 'oauth2_client_credentials':
      return {
        type: 'oauth2_client_credentials',
        token_url: sealed.token_url,
        client_id: sealed.client_id,
        scope: sealed.scope,
        audience: sealed.audience,
      };
    case 'mtls':
      return {
        type: 'mtls',
        subject: sealed.subject,
        issuer: sealed.issuer,
        not_after: sealed.not_after,
        fingerprint_sha256: sealed.fingerprint_sha256,
      };
  }
}
