import {
  authorizationUrl,
  isExpectedIssuer,
  issuerEndpoint,
  parseConsoleClientConfig,
} from './console-client-config';

const served = {
  issuer: 'http://localhost:8081',
  client_id: 'svc-console',
  redirect_uri: 'http://localhost:8080/console/callback',
  scope: 'webhooks:manage',
};

describe("the console's OAuth client config", () => {
  it('reads config.json', () => {
    expect(parseConsoleClientConfig(served)).toEqual({
      issuer: 'http://localhost:8081',
      clientId: 'svc-console',
      redirectUri: 'http://localhost:8080/console/callback',
      scope: 'webhooks:manage',
    });
  });

  it('refuses a config without its values or with a non-http issuer', () => {
    expect(() => parseConsoleClientConfig(null)).toThrow('no issuer');
    expect(() => parseConsoleClientConfig({ ...served, client_id: '' })).toThrow('client_id');
    expect(() => parseConsoleClientConfig({ ...served, issuer: 'javascript:alert(1)' })).toThrow(
      'not an http(s) URL',
    );
  });

  it('builds the authorization request with PKCE S256', () => {
    const url = new URL(
      authorizationUrl(parseConsoleClientConfig(served), { state: 's t', codeChallenge: 'abc' }),
    );
    expect(url.origin + url.pathname).toBe('http://localhost:8081/oauth/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'svc-console',
      redirect_uri: 'http://localhost:8080/console/callback',
      scope: 'webhooks:manage',
      state: 's t',
      code_challenge: 'abc',
      code_challenge_method: 'S256',
    });
  });

  it('puts the endpoints under the issuer, with or without its slash', () => {
    expect(issuerEndpoint('https://auth.example/', 'token')).toBe(
      'https://auth.example/oauth/token',
    );
    expect(issuerEndpoint('https://auth.example/tenant', 'revoke')).toBe(
      'https://auth.example/tenant/oauth/revoke',
    );
  });

  it('checks the issuer of the callback', () => {
    const config = parseConsoleClientConfig(served);
    expect(isExpectedIssuer(config, 'http://localhost:8081')).toBe(true);
    expect(isExpectedIssuer(config, 'http://localhost:8081/')).toBe(true);
    expect(isExpectedIssuer(config, 'https://evil.example')).toBe(false);
    expect(isExpectedIssuer(config, null)).toBe(false);
  });
});
