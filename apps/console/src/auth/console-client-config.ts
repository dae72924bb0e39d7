/**
 * The console as an OAuth client (ADR 0042), as the API tells it at GET /console/config.json:
 * the authorization server's issuer, the client id, the exact redirect URI and the scope.
 */
export interface ConsoleClientConfig {
  issuer: string;
  clientId: string;
  redirectUri: string;
  scope: string;
}

const text = (value: unknown, name: string): string => {
  if (typeof value !== 'string' || value.length === 0) {
    throw new Error(`config.json has no ${name}`);
  }
  return value;
};

/** The config from the document's JSON, checked: the issuer and redirect URI are URLs. */
export function parseConsoleClientConfig(json: unknown): ConsoleClientConfig {
  const raw = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const issuer = text(raw.issuer, 'issuer');
  const redirectUri = text(raw.redirect_uri, 'redirect_uri');
  for (const [name, value] of [
    ['issuer', issuer],
    ['redirect_uri', redirectUri],
  ]) {
    if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
      throw new Error(`config.json's ${name} is not an http(s) URL`);
    }
  }
  return {
    issuer,
    clientId: text(raw.client_id, 'client_id'),
    redirectUri,
    scope: text(raw.scope, 'scope'),
  };
}

/** An endpoint of the authorization server, under its issuer (`<issuer>/oauth/token`). */
export function issuerEndpoint(issuer: string, path: 'authorize' | 'token' | 'revoke'): string {
  return `${issuer.replace(/\/+$/, '')}/oauth/${path}`;
}

/** The authorization request (RFC 6749 4.1.1 with RFC 7636's S256 challenge) as a URL. */
export function authorizationUrl(
  config: ConsoleClientConfig,
  request: { state: string; codeChallenge: string },
): string {
  const url = new URL(issuerEndpoint(config.issuer, 'authorize'));
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: config.redirectUri,
    scope: config.scope,
    state: request.state,
    code_challenge: request.codeChallenge,
    code_challenge_method: 'S256',
  }).toString();
  return url.toString();
}

/** Whether the callback's `iss` names our issuer (RFC 9207: it must, against mix-up attacks). */
export function isExpectedIssuer(config: ConsoleClientConfig, issuer: string | null): boolean {
  const trim = (value: string) => value.replace(/\/+$/, '');
  return issuer !== null && trim(issuer) === trim(config.issuer);
}
