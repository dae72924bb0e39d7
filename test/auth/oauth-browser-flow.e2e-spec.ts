import * as oauth from 'oauth4webapi';
import { createServer, Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { freePort, http, launchChromium, OAuthTestBed, startOAuthTestBed } from '../support';

/**
 * The whole of spec 5.2 as an application lives it: oauth4webapi plays the application, a real
 * headless Chromium (Debian's) plays the user, against the real auth app, API and PostgreSQL.
 */
describe('OAuth 2.0 authorization code flow with PKCE, in a browser', () => {
  let bed: OAuthTestBed;
  let browser: Browser;
  let callbackServer: Server;
  let redirectUri: string;

  beforeAll(async () => {
    const callbackPort = await freePort();
    redirectUri = `http://127.0.0.1:${callbackPort}/callback`;
    callbackServer = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('signed in');
    });
    await new Promise<void>((resolve) => callbackServer.listen(callbackPort, '127.0.0.1', resolve));
    bed = await startOAuthTestBed({ redirectUri });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await bed?.close();
    await new Promise((resolve) => callbackServer?.close(resolve));
  });

  const insecureLoopback = { [oauth.allowInsecureRequests]: true };

  it('discovers the server, signs in, consents, calls the API, refreshes and detects reuse', async () => {
    // Discovery (RFC 8414).
    const issuer = new URL(bed.issuer);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecureLoopback }),
    );
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    const client: oauth.Client = { client_id: bed.client.id };
    const clientAuth = oauth.None();

    // Authorization URL with PKCE.
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorizationUrl = new URL(as.authorization_endpoint!);
    authorizationUrl.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope: 'tenants:read alerts:read',
      code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
    }).toString();

    // The user signs in and consents in a real browser.
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(authorizationUrl.toString());
    await page.getByLabel('Email').fill(bed.user.email);
    await page.getByLabel('Password').fill(bed.user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    expect(await page.textContent('main')).toContain('Read tenant profiles and configuration.');
    const cookies = await context.cookies(bed.issuer);
    expect(cookies.find((cookie) => cookie.name === '__Host-svc_session')).toMatchObject({
      httpOnly: true,
      secure: true,
      sameSite: 'Lax',
    });
    await Promise.all([
      page.waitForURL((url) => url.toString().startsWith(redirectUri)),
      page.getByRole('button', { name: 'Allow' }).click(),
    ]);
    const callback = new URL(page.url());
    await context.close();

    // The application checks the response (state, RFC 9207 iss) and exchanges the code.
    const parameters = oauth.validateAuthResponse(as, client, callback, state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuth,
        parameters,
        redirectUri,
        codeVerifier,
        insecureLoopback,
      ),
    );
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe('tenants:read alerts:read');
    expect(tokens.refresh_token).toMatch(/^svc_rt_/);

    // The API accepts the access token.
    const tenants = await http(bed.api.baseUrl, 'GET', '/v1/tenants', {
      key: tokens.access_token,
    });
    expect(tenants.status).toBe(200);
    expect(tenants.body.data[0].id).toBe(bed.tenantId);

    const refreshWith = async (refreshToken: string) =>
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(
          as,
          client,
          clientAuth,
          refreshToken,
          insecureLoopback,
        ),
      );

    // Refresh: a new refresh token, the same scope.
    const refreshed = await refreshWith(tokens.refresh_token!);
    expect(refreshed.refresh_token).toMatch(/^svc_rt_/);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.scope).toBe(tokens.scope);
    expect(
      (await http(bed.api.baseUrl, 'GET', '/v1/tenants', { key: refreshed.access_token })).status,
    ).toBe(200);

    // Reuse of the consumed refresh token: refused, and the family is revoked.
    const reuse = refreshWith(tokens.refresh_token!);
    await expect(reuse).rejects.toMatchObject({ error: 'invalid_grant' });
    const afterReuse = refreshWith(refreshed.refresh_token!);
    await expect(afterReuse).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(
      (await http(bed.api.baseUrl, 'GET', '/v1/tenants', { key: refreshed.access_token })).status,
    ).toBe(401);
  });
});
