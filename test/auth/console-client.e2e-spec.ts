import { OAuthClient } from '@svc/oauth';
import {
  authorizePath,
  FormBrowser,
  hiddenInputs,
  newPkce,
  OAuthTestBed,
  signInAndConsent,
  startAuth,
  startOAuthTestBed,
  TestUser,
} from '../support';

const CONSOLE_ORIGIN = 'http://localhost:8080';
const CONSOLE_REDIRECT_URI = `${CONSOLE_ORIGIN}/console/callback`;

/**
 * The tenant console as a first-party public client (ADR 0042): registered by the auth app at
 * start, signed in with PKCE like any client, limited to webhooks:manage, and allowed to call
 * the token and revocation endpoints from its own origin (CORS), that origin only.
 */
describe('the console as a client of the authorization server', () => {
  let bed: OAuthTestBed;
  let user: TestUser;

  beforeAll(async () => {
    // CONSOLE_URL is the default, http://localhost:8080/console/; the issuer is 127.0.0.1:<port>.
    bed = await startOAuthTestBed();
    user = await bed.newUser(['webhooks:manage', 'tenants:read']);
  });
  afterAll(() => bed?.close());

  const consoleClient = () =>
    bed.api.dataSource.getRepository(OAuthClient).findOneByOrFail({ id: 'svc-console' });

  const consoleRequest = (pkce = newPkce(), scope = 'webhooks:manage') => ({
    response_type: 'code',
    client_id: 'svc-console',
    redirect_uri: CONSOLE_REDIRECT_URI,
    scope,
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
    state: 'console-state',
  });

  const postForm = (path: string, fields: Record<string, string>, origin?: string) =>
    fetch(`${bed.auth.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(origin ? { origin } : {}),
      },
      body: new URLSearchParams(fields).toString(),
    });

  const preflight = (path: string, origin: string) =>
    fetch(`${bed.auth.baseUrl}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });

  it('is registered at start: svc-console, redirect <CONSOLE_URL>callback exactly', async () => {
    expect(await consoleClient()).toMatchObject({
      name: 'svc webhooks console',
      redirectUris: [CONSOLE_REDIRECT_URI],
    });
  });

  it('signs a user in with PKCE and gets webhooks:manage tokens from its own origin', async () => {
    const pkce = newPkce();
    const back = await signInAndConsent(bed, consoleRequest(pkce), { user });
    expect(`${back.origin}${back.pathname}`).toBe(CONSOLE_REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe('console-state');
    expect(back.searchParams.get('iss')).toBe(bed.issuer);

    const exchange = await postForm(
      '/oauth/token',
      {
        grant_type: 'authorization_code',
        code: back.searchParams.get('code')!,
        redirect_uri: CONSOLE_REDIRECT_URI,
        client_id: 'svc-console',
        code_verifier: pkce.verifier,
      },
      CONSOLE_ORIGIN,
    );
    expect(exchange.status).toBe(200);
    expect(exchange.headers.get('access-control-allow-origin')).toBe(CONSOLE_ORIGIN);
    expect(exchange.headers.get('access-control-allow-credentials')).toBeNull();
    const tokens = (await exchange.json()) as Record<string, string>;
    expect(tokens.scope).toBe('webhooks:manage');

    const refreshed = await postForm(
      '/oauth/token',
      {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: 'svc-console',
      },
      CONSOLE_ORIGIN,
    );
    expect(refreshed.status).toBe(200);
    expect(refreshed.headers.get('access-control-allow-origin')).toBe(CONSOLE_ORIGIN);
    const rotated = (await refreshed.json()) as Record<string, string>;
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);

    const revoked = await postForm(
      '/oauth/revoke',
      { token: rotated.refresh_token, client_id: 'svc-console' },
      CONSOLE_ORIGIN,
    );
    expect(revoked.status).toBe(200);
    expect(revoked.headers.get('access-control-allow-origin')).toBe(CONSOLE_ORIGIN);
  });

  it('asks no consent for the console, the product itself; any other client still asks', async () => {
    const browser = new FormBrowser(bed.auth.baseUrl);
    const signIn = await browser.get(authorizePath(consoleRequest()));
    expect(signIn.text).toContain('autocomplete="current-password"');
    const signedIn = await browser.post('login', {
      ...hiddenInputs(signIn.text),
      email: user.email,
      password: user.password,
    });
    expect(signedIn.status).toBe(303);
    const back = await browser.get(signedIn.headers.get('location')!);
    expect(back.status).toBe(302);
    const location = new URL(back.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(CONSOLE_REDIRECT_URI);
    expect(location.searchParams.get('code')).toMatch(/.+/);
    expect(location.searchParams.get('state')).toBe('console-state');

    // The same signed-in browser, for a registered third-party client: the consent page.
    const thirdParty = await browser.get(
      authorizePath({
        ...consoleRequest(),
        client_id: bed.client.id,
        redirect_uri: bed.client.redirectUri,
        scope: 'tenants:read',
      }),
    );
    expect(thirdParty.status).toBe(200);
    expect(thirdParty.text).toContain('Allow');
  });

  it('may not ask for more than webhooks:manage', async () => {
    const browser = new FormBrowser(bed.auth.baseUrl);
    const page = await browser.get(
      authorizePath(consoleRequest(newPkce(), 'webhooks:manage tenants:read')),
    );
    expect(page.status).toBe(302);
    const back = new URL(page.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(CONSOLE_REDIRECT_URI);
    expect(back.searchParams.get('error')).toBe('invalid_scope');
    expect(back.searchParams.get('state')).toBe('console-state');
  });

  it('answers the preflights of its origin, and only of its origin', async () => {
    for (const path of ['/oauth/token', '/oauth/revoke']) {
      const allowed = await preflight(path, CONSOLE_ORIGIN);
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(CONSOLE_ORIGIN);
      expect(allowed.headers.get('access-control-allow-methods')).toBe('POST');
      expect(allowed.headers.get('access-control-allow-headers')).toBe('content-type');
      expect(Number(allowed.headers.get('access-control-max-age'))).toBeGreaterThan(0);
      expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();
      expect(allowed.headers.get('vary')).toBe('Origin');

      const other = await preflight(path, 'https://evil.example');
      expect(other.status).toBe(204);
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      expect(other.headers.get('access-control-allow-methods')).toBeNull();
    }
  });

  it("lets the console read the token endpoint's errors, and no other origin", async () => {
    const refused = await postForm(
      '/oauth/token',
      { grant_type: 'refresh_token', refresh_token: 'nope', client_id: 'svc-console' },
      CONSOLE_ORIGIN,
    );
    expect(refused.status).toBe(400);
    expect(refused.headers.get('access-control-allow-origin')).toBe(CONSOLE_ORIGIN);

    const elsewhere = await postForm(
      '/oauth/token',
      { grant_type: 'refresh_token', refresh_token: 'nope', client_id: 'svc-console' },
      'http://localhost:9999',
    );
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('sends no CORS headers on the other routes', async () => {
    const metadata = await fetch(`${bed.auth.baseUrl}/.well-known/oauth-authorization-server`, {
      headers: { origin: CONSOLE_ORIGIN },
    });
    expect(metadata.headers.get('access-control-allow-origin')).toBeNull();
    const signIn = await new FormBrowser(bed.auth.baseUrl).get(authorizePath(consoleRequest()), {
      origin: CONSOLE_ORIGIN,
    });
    expect(signIn.status).toBe(200);
    expect(signIn.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('the console client across configurations and replicas', () => {
  let bed: OAuthTestBed;
  beforeAll(async () => {
    bed = await startOAuthTestBed();
  });
  afterAll(() => bed?.close());

  const redirectUris = async () =>
    (await bed.api.dataSource.getRepository(OAuthClient).findOneByOrFail({ id: 'svc-console' }))
      .redirectUris;

  it('follows CONSOLE_URL, replicas starting at once agreeing', async () => {
    const url = 'https://console.example.com/';
    const options = { databaseUrl: bed.api.config.database.url };
    const replicas = await Promise.all(
      [1, 2, 3].map(() => startAuth({ CONSOLE_URL: url }, options)),
    );
    try {
      expect(await redirectUris()).toEqual(['https://console.example.com/callback']);
      const preflight = await fetch(`${replicas[0].baseUrl}/oauth/token`, {
        method: 'OPTIONS',
        headers: { origin: 'https://console.example.com', 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBe(
        'https://console.example.com',
      );
    } finally {
      await Promise.all(replicas.map((replica) => replica.close()));
    }
  });

  it('refuses to start with a CONSOLE_URL that cannot be a redirect URI', async () => {
    await expect(
      startAuth(
        { CONSOLE_URL: 'http://console.example.com/' },
        { databaseUrl: bed.api.config.database.url },
      ),
    ).rejects.toThrow(/CONSOLE_URL cannot be the console's sign-in address: .*https/);
    expect(await redirectUris()).not.toContain('http://console.example.com/callback');
  });

  it('answers no CORS when the console and the issuer share an origin', async () => {
    const sameOrigin = await startAuth(
      { CONSOLE_URL: 'http://localhost:8081/console/', AUTH_ISSUER: 'http://localhost:8081' },
      { databaseUrl: bed.api.config.database.url },
    );
    try {
      const preflight = await fetch(`${sameOrigin.baseUrl}/oauth/token`, {
        method: 'OPTIONS',
        headers: { origin: 'http://localhost:8081', 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await sameOrigin.close();
    }
  });
});
