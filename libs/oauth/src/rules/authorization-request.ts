import { isScope, Scope } from '@svc/contracts';
import {
  errorDescription,
  repeatedParametersDescription,
  unknownScopesDescription,
} from './error-description';
import { isS256Challenge } from './pkce';
import { isRegisteredRedirectUri } from './redirect-uri';

/** Query parameters as a form or query-string parser gives them: repeated names become arrays. */
export type RawParameters = Record<string, string | string[] | undefined>;

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  /** Known scope names, as requested, without repeats. */
  scopes: Scope[];
  codeChallenge: string;
  state?: string;
}

/** RFC 6749 4.1.2.1 error codes this server sends back to the client. */
export type AuthorizationErrorCode =
  | 'invalid_request'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'server_error';

export type AuthorizationRequestCheck =
  /** The client or redirect URI cannot be trusted: tell the user, never redirect (RFC 6749 4.1.2.1). */
  | { outcome: 'error_page'; description: string }
  | {
      outcome: 'redirect_error';
      redirectUri: string;
      state?: string;
      error: AuthorizationErrorCode;
      description: string;
    }
  | { outcome: 'valid'; request: AuthorizationRequest };

/**
 * The longest `state`, URL-encoded, taken back to the client. RFC 6749 sets none, but a Location
 * past the common 16 KiB header limit of browsers' proxies and HTTP clients never reaches the
 * user; 2,048 leaves room for the redirect URI and the error, and for any state clients use.
 */
export const MAX_ENCODED_STATE_LENGTH = 2048;

const single = (value: string | string[] | undefined): string | undefined =>
  typeof value === 'string' ? value : undefined;

/**
 * Checks an authorization request (spec 4.3; RFC 6749 4.1.1, RFC 7636 4.3, RFC 9700 2.1.1)
 * against the client it names (null when no such client exists): response_type code, an S256
 * PKCE challenge, known scopes (within the client's own, when it has a limit), exact redirect
 * URI, no repeated parameter.
 */
export function checkAuthorizationRequest(
  query: RawParameters,
  client: {
    id: string;
    redirectUris: readonly string[];
    /** The most this client may request (a first-party client, ADR 0042); any when absent. */
    allowedScopes?: readonly Scope[];
  } | null,
): AuthorizationRequestCheck {
  const clientId = single(query.client_id);
  if (!clientId) {
    return { outcome: 'error_page', description: 'The request names no client (client_id).' };
  }
  if (!client || client.id !== clientId) {
    return { outcome: 'error_page', description: 'The application (client_id) is not known.' };
  }
  const redirectUri = single(query.redirect_uri);
  if (!redirectUri) {
    return {
      outcome: 'error_page',
      description: 'The request has no single redirect_uri; it is required and must be exact.',
    };
  }
  if (!isRegisteredRedirectUri(client.redirectUris, redirectUri)) {
    return {
      outcome: 'error_page',
      description: 'The redirect_uri is not registered for this application.',
    };
  }
  const state = single(query.state);
  if (state !== undefined && encodedLength(state) > MAX_ENCODED_STATE_LENGTH) {
    return {
      outcome: 'error_page',
      description: `The request's state is longer than ${MAX_ENCODED_STATE_LENGTH} characters URL-encoded, too long to send back to the application.`,
    };
  }
  const refuse = (error: AuthorizationErrorCode, description: string) =>
    ({
      outcome: 'redirect_error',
      redirectUri,
      ...(state !== undefined ? { state } : {}),
      error,
      description,
    }) as const;

  const repeated = Object.keys(query).filter((name) => Array.isArray(query[name]));
  if (repeated.length > 0) {
    return refuse('invalid_request', repeatedParametersDescription(repeated));
  }
  const responseType = single(query.response_type);
  if (!responseType) {
    return refuse('invalid_request', 'response_type is required');
  }
  if (responseType !== 'code') {
    return refuse('unsupported_response_type', 'the only response_type is code');
  }
  const codeChallenge = single(query.code_challenge);
  if (!codeChallenge) {
    return refuse('invalid_request', 'code_challenge is required (PKCE with S256)');
  }
  const method = single(query.code_challenge_method);
  if (method !== 'S256') {
    return refuse(
      'invalid_request',
      method === undefined
        ? 'code_challenge_method is required and must be S256'
        : 'code_challenge_method must be S256; plain is not supported',
    );
  }
  if (!isS256Challenge(codeChallenge)) {
    return refuse(
      'invalid_request',
      'code_challenge must be the base64url SHA-256 of the verifier (43 characters)',
    );
  }
  const names = [...new Set((single(query.scope) ?? '').split(' ').filter((n) => n.length > 0))];
  if (names.length === 0) {
    return refuse('invalid_scope', 'scope is required: the space-separated scopes wanted');
  }
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0) {
    return refuse('invalid_scope', unknownScopesDescription(unknown.length, names.length));
  }
  const allowed = client.allowedScopes;
  if (allowed && names.some((name) => !allowed.includes(name as Scope))) {
    return refuse('invalid_scope', `this client may request only ${allowed.join(' ')}`);
  }
  return {
    outcome: 'valid',
    request: {
      clientId,
      redirectUri,
      scopes: names as Scope[],
      codeChallenge,
      ...(state !== undefined ? { state } : {}),
    },
  };
}

/** As the redirect's query carries it (lone surrogates become U+FFFD there, as here). */
function encodedLength(value: string): number {
  return new URLSearchParams({ v: value }).toString().length - 'v='.length;
}

/**
 * The redirect back to the client (RFC 6749 4.1.2 and 4.1.2.1), keeping any query the
 * registered URI has, with `iss` (RFC 9207) and `state` when the request had one. An
 * `error_description` goes through `errorDescription`, so it keeps to RFC 6749's characters.
 */
export function authorizationResponseUrl(
  redirectUri: string,
  issuer: string,
  parameters: Record<string, string | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined) {
      url.searchParams.set(name, name === 'error_description' ? errorDescription(value) : value);
    }
  }
  url.searchParams.set('iss', issuer);
  return url.toString();
}
