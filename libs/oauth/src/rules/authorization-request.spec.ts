import { s256Challenge } from './pkce';
import {
  authorizationResponseUrl,
  checkAuthorizationRequest,
  MAX_ENCODED_STATE_LENGTH,
} from './authorization-request';

const client = { id: 'cli_app', redirectUris: ['https://app.example/callback'] };
const challenge = s256Challenge('v'.repeat(43));
const valid = {
  response_type: 'code',
  client_id: 'cli_app',
  redirect_uri: 'https://app.example/callback',
  scope: 'tenants:read alerts:read',
  code_challenge: challenge,
  code_challenge_method: 'S256',
  state: 'xyz',
};

describe('authorization request (spec 4.3, RFC 6749 4.1.1, RFC 7636)', () => {
  it('accepts a complete request', () => {
    expect(checkAuthorizationRequest(valid, client)).toEqual({
      outcome: 'valid',
      request: {
        clientId: 'cli_app',
        redirectUri: 'https://app.example/callback',
        scopes: ['tenants:read', 'alerts:read'],
        codeChallenge: challenge,
        state: 'xyz',
      },
    });
  });

  it('does without state', () => {
    const check = checkAuthorizationRequest({ ...valid, state: undefined }, client);
    expect(check.outcome).toBe('valid');
    expect(check.outcome === 'valid' && 'state' in check.request).toBe(false);
  });

  it.each([
    ['no client_id', { client_id: undefined }, null],
    ['an unknown client', { client_id: 'cli_other' }, null],
    ['a client id that is not the one looked up', { client_id: 'cli_other' }, client],
    ['no redirect_uri', { redirect_uri: undefined }, client],
    ['a repeated redirect_uri', { redirect_uri: [valid.redirect_uri, valid.redirect_uri] }, client],
    ['a redirect_uri with another path', { redirect_uri: 'https://app.example/other' }, client],
    [
      'a redirect_uri with a trailing slash',
      { redirect_uri: 'https://app.example/callback/' },
      client,
    ],
    [
      'a redirect_uri with extra query',
      { redirect_uri: 'https://app.example/callback?x=1' },
      client,
    ],
    ['a redirect_uri on another host', { redirect_uri: 'https://evil.example/callback' }, client],
  ])('shows an error page, never a redirect, for %s', (_name, change, lookedUp) => {
    const check = checkAuthorizationRequest({ ...valid, ...change }, lookedUp);
    expect(check.outcome).toBe('error_page');
  });

  it.each([
    ['no response_type', { response_type: undefined }, 'invalid_request'],
    ['response_type token', { response_type: 'token' }, 'unsupported_response_type'],
    ['no code_challenge', { code_challenge: undefined }, 'invalid_request'],
    ['no code_challenge_method', { code_challenge_method: undefined }, 'invalid_request'],
    ['the plain method', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['a lowercase s256', { code_challenge_method: 's256' }, 'invalid_request'],
    ['a short challenge', { code_challenge: 'abc' }, 'invalid_request'],
    [
      'a challenge with padding',
      { code_challenge: `${challenge.slice(0, 42)}=` },
      'invalid_request',
    ],
    ['no scope', { scope: undefined }, 'invalid_scope'],
    ['an empty scope', { scope: '  ' }, 'invalid_scope'],
    ['an unknown scope', { scope: 'tenants:read root' }, 'invalid_scope'],
    ['a repeated parameter', { scope: ['tenants:read', 'alerts:read'] }, 'invalid_request'],
  ])('redirects with an error for %s, echoing state', (_name, change, error) => {
    const check = checkAuthorizationRequest({ ...valid, ...change }, client);
    expect(check).toMatchObject({
      outcome: 'redirect_error',
      redirectUri: valid.redirect_uri,
      state: 'xyz',
      error,
    });
  });

  it('counts the unknown scopes without naming them (ADR 0040)', () => {
    const check = checkAuthorizationRequest({ ...valid, scope: 'a:b tenants:read c' }, client);
    expect(check.outcome === 'redirect_error' && check.description).toBe(
      '2 of the 3 requested scopes are unknown; scopes_supported in /.well-known/oauth-authorization-server lists the known ones',
    );
  });

  it('echoes no part of an unknown scope, however long or odd', () => {
    const scope = `${'x'.repeat(5000)} a"b c\\d été tenants:read`;
    const check = checkAuthorizationRequest({ ...valid, scope }, client);
    const description = check.outcome === 'redirect_error' ? check.description : '';
    expect(description).toMatch(/^4 of the 5 requested scopes are unknown;/);
    expect(description).not.toMatch(/xxx|a"b|c\\d|été|…/);
  });

  it('names a repeated authorization parameter but not a made-up one', () => {
    const check = checkAuthorizationRequest(
      { ...valid, scope: ['tenants:read', 'alerts:read'], 'x"\\é': ['1', '2'] },
      client,
    );
    expect(check.outcome === 'redirect_error' && check.description).toBe(
      'parameters must not be repeated: scope and 1 other',
    );
  });

  it('shows an error page, not a redirect, for a state too long to send back', () => {
    const outcome = (state: string) =>
      checkAuthorizationRequest({ ...valid, state }, client).outcome;
    expect(outcome('s'.repeat(MAX_ENCODED_STATE_LENGTH))).toBe('valid');
    expect(outcome('s'.repeat(MAX_ENCODED_STATE_LENGTH + 1))).toBe('error_page');
    // each of these is nine characters percent-encoded
    expect(outcome('€'.repeat(MAX_ENCODED_STATE_LENGTH / 9))).toBe('valid');
    expect(outcome('€'.repeat(MAX_ENCODED_STATE_LENGTH / 9 + 1))).toBe('error_page');
  });

  it('drops repeats of a scope', () => {
    const check = checkAuthorizationRequest({ ...valid, scope: 'alerts:read alerts:read' }, client);
    expect(check.outcome === 'valid' && check.request.scopes).toEqual(['alerts:read']);
  });

  it("keeps a client with a scope limit within it (the console's webhooks:manage)", () => {
    const limited = { ...client, allowedScopes: ['webhooks:manage'] as const };
    expect(checkAuthorizationRequest({ ...valid, scope: 'webhooks:manage' }, limited).outcome).toBe(
      'valid',
    );
    expect(
      checkAuthorizationRequest({ ...valid, scope: 'webhooks:manage tenants:read' }, limited),
    ).toMatchObject({
      outcome: 'redirect_error',
      error: 'invalid_scope',
      description: 'this client may request only webhooks:manage',
      state: 'xyz',
    });
  });
});

describe('authorization response URL (RFC 6749 4.1.2, RFC 9207)', () => {
  it('adds the parameters and iss, keeping the registered query', () => {
    const url = new URL(
      authorizationResponseUrl('https://app.example/cb?tenant=a', 'https://auth.example', {
        code: 'c0de',
        state: 's t&ate',
      }),
    );
    expect(url.origin + url.pathname).toBe('https://app.example/cb');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      tenant: 'a',
      code: 'c0de',
      state: 's t&ate',
      iss: 'https://auth.example',
    });
  });

  it('keeps error_description to the characters of RFC 6749 4.1.2.1', () => {
    const url = new URL(
      authorizationResponseUrl('https://app.example/cb', 'https://auth.example', {
        error: 'invalid_request',
        error_description: 'a"b\\c é\n',
        state: 'a"b',
      }),
    );
    expect(url.searchParams.get('error_description')).toBe('a?b?c ??');
    expect(url.searchParams.get('state')).toBe('a"b');
  });

  it('leaves out parameters without a value', () => {
    const url = authorizationResponseUrl('https://app.example/cb', 'https://auth.example', {
      error: 'access_denied',
      state: undefined,
    });
    expect(url).toBe('https://app.example/cb?error=access_denied&iss=https%3A%2F%2Fauth.example');
  });
});
