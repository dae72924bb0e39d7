import { ApiFailure } from '../api/api-failure';
import { failureFromNetwork, failureFromResponse } from '../api/problem-message';
import { ConsoleClientConfig, issuerEndpoint } from './console-client-config';

/** A token answer of the authorization server (spec 4.4; RFC 6749 5.1). */
export interface TokenSet {
  accessToken: string;
  refreshToken: string;
  /** Seconds the access token lives from now. */
  expiresIn: number;
  scopes: string[];
}

/**
 * A form-encoded POST to the authorization server (cross-origin: it answers CORS for the
 * console's origin). No cookie goes with it (`credentials: 'omit'`): public clients identify
 * themselves by client_id, and the sign-in session cookie has no business here.
 */
async function postForm(url: string, form: Record<string, string>): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams(form),
      credentials: 'omit',
      cache: 'no-store',
      referrerPolicy: 'no-referrer',
    });
  } catch (error) {
    throw new ApiFailure(failureFromNetwork(error), null);
  }
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    throw new ApiFailure(failureFromResponse(response.status, body), response.status);
  }
  return body;
}

function tokenSetOf(body: unknown): TokenSet {
  const raw = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const { access_token, refresh_token, expires_in, scope } = raw;
  if (typeof access_token !== 'string' || typeof refresh_token !== 'string') {
    throw new ApiFailure(
      { summary: 'The sign-in server gave no tokens.', detail: null, fieldErrors: {} },
      null,
    );
  }
  return {
    accessToken: access_token,
    refreshToken: refresh_token,
    expiresIn: typeof expires_in === 'number' && expires_in > 0 ? expires_in : 3600,
    scopes: typeof scope === 'string' ? scope.split(' ').filter((s) => s !== '') : [],
  };
}

/** RFC 6749 4.1.3 with RFC 7636's verifier: the code from the callback for the first tokens. */
export async function exchangeAuthorizationCode(
  config: ConsoleClientConfig,
  code: string,
  codeVerifier: string,
): Promise<TokenSet> {
  return tokenSetOf(
    await postForm(issuerEndpoint(config.issuer, 'token'), {
      grant_type: 'authorization_code',
      code,
      redirect_uri: config.redirectUri,
      client_id: config.clientId,
      code_verifier: codeVerifier,
    }),
  );
}

/** RFC 6749 6: new tokens; the refresh token rotates (the one sent is consumed). */
export async function refreshTokens(
  config: ConsoleClientConfig,
  refreshToken: string,
): Promise<TokenSet> {
  return tokenSetOf(
    await postForm(issuerEndpoint(config.issuer, 'token'), {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: config.clientId,
    }),
  );
}

/** RFC 7009: revokes the token's whole grant (the auth server revokes every token of it). */
export async function revokeToken(config: ConsoleClientConfig, token: string): Promise<void> {
  await postForm(issuerEndpoint(config.issuer, 'revoke'), {
    token,
    client_id: config.clientId,
  });
}
