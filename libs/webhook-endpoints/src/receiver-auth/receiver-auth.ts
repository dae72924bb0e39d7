/**
 * How a receiver wants to be authenticated, beyond the signature every delivery carries (ADR 0048).
 * One `type` per endpoint. Three shapes of the same value:
 * - `ReceiverAuth`: as the client gives it and as the engine uses it (plaintext secrets); never
 *   recorded, never logged;
 * - `SealedReceiverAuth`: as the event log and the projection keep it: what is not secret in the
 *   clear, every secret part sealed together in `secret_ciphertext` (SecretCipher, bound to the
 *   endpoint id: see `receiverAuthCipherContext`);
 * - `ReceiverAuthView`: what answers and the audit trail show: the type and what is not secret.
 */
export const RECEIVER_AUTH_TYPES = [
  'headers',
  'basic',
  'oauth2_client_credentials',
  'mtls',
] as const;
export type ReceiverAuthType = (typeof RECEIVER_AUTH_TYPES)[number];

export interface HeadersAuth {
  type: 'headers';
  /** Names as the client wrote them (sent so); at most 10, unique regardless of case. */
  headers: Record<string, string>;
}
export interface BasicAuth {
  type: 'basic';
  username: string;
  password: string;
}
export interface OAuthClientCredentialsAuth {
  type: 'oauth2_client_credentials';
  token_url: string;
  client_id: string;
  client_secret: string;
  scope?: string;
  audience?: string;
}
export interface MutualTlsAuth {
  type: 'mtls';
  /** PEM: the client certificate, optionally followed by its intermediates. */
  certificate: string;
  /** PEM (PKCS#8 or the key type's own form), unencrypted. */
  private_key: string;
}
export type ReceiverAuth = HeadersAuth | BasicAuth | OAuthClientCredentialsAuth | MutualTlsAuth;

/** The part of each type that authenticates: sealed as one JSON document. */
export type ReceiverAuthSecrets =
  | { headers: Record<string, string> }
  | { password: string }
  | { client_secret: string }
  | { private_key: string };

/** What the client certificate says, read when it was given (shown in answers). */
export interface ClientCertificateFacts {
  subject: string;
  issuer: string;
  /** ISO 8601. */
  not_after: string;
  /** SHA-256 of the DER certificate, colon-separated hex as OpenSSL prints it. */
  fingerprint_sha256: string;
}

export type ReceiverAuthView =
  | { type: 'headers'; header_names: string[] }
  | { type: 'basic'; username: string }
  | {
      type: 'oauth2_client_credentials';
      token_url: string;
      client_id: string;
      scope: string | null;
      audience: string | null;
    }
  | ({ type: 'mtls' } & ClientCertificateFacts);

/** The log's and projection's form: the view's fields, the certificate itself, the sealed secret. */
export type SealedReceiverAuth = ReceiverAuthView & {
  /** mtls only: the certificate PEM (not secret, needed to connect). */
  certificate?: string;
  secret_ciphertext: string;
};

/** SecretCipher's context for an endpoint's auth secrets: a ciphertext moved elsewhere won't open. */
export function receiverAuthCipherContext(endpointId: string): string {
  return `${endpointId}/auth`;
}
