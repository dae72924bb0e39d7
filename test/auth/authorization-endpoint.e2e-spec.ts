import {
  authorizationParameters,
  authorizePath,
  FormBrowser,
  hiddenInputs,
  OAuthTestBed,
  signInAndConsent,
  startOAuthTestBed,
  tokenRequest,
  newPkce,
} from '../support';

/** Spec 4.3 through the real auth app: the request checks, sign-in, consent and redirects. */
describe('GET /oauth/authorize, sign-in and consent', () => {
  let bed: OAuthTestBed;

  beforeAll(async () => {
    bed = await startOAuthTestBed();
  });
  afterAll(async () => {
    await bed.close();
  });

  const browser = () => new FormBrowser(bed.auth.baseUrl);
  const signInPage = async (b: FormBrowser, overrides: Record<string, string | undefined> = {}) => {
    const page = await b.get(authorizePath(authorizationParameters(bed, undefined, overrides)));
    expect(page.status).toBe(200);
    return page;
  };

  describe('requests that must not be redirected', () => {
    it.each([
      ['no client_id', { client_id: undefined }],
      ['an unknown client_id', { client_id: 'cli_01m7zzzzzzzzzzzzzzzzzzzzzz' }],
      ['a malformed client_id', { client_id: '<script>' }],
      ['no redirect_uri', { redirect_uri: undefined }],
      ['an unregistered redirect_uri', { redirect_uri: 'https://evil.example/callback' }],
      ['a redirect_uri that only starts alike', { redirect_uri: 'https://app.example/callback/x' }],
      ['a redirect_uri with added query', { redirect_uri: 'https://app.example/callback?a=1' }],
    ])('shows an error page for %s', async (_name, overrides) => {
      const page = await browser().get(
        authorizePath(authorizationParameters(bed, undefined, overrides)),
      );
      expect(page.status).toBe(400);
      expect(page.headers.get('location')).toBeNull();
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.text).toContain('This sign-in link is not valid');
      expect(page.text).not.toContain('<script>');
    });
  });

  describe('requests answered with an error redirect (RFC 6749 4.1.2.1)', () => {
    it.each([
      ['response_type token', { response_type: 'token' }, 'unsupported_response_type'],
      ['no response_type', { response_type: undefined }, 'invalid_request'],
      ['the plain PKCE method', { code_challenge_method: 'plain' }, 'invalid_request'],
      ['no PKCE method', { code_challenge_method: undefined }, 'invalid_request'],
      ['no code_challenge', { code_challenge: undefined }, 'invalid_request'],
      ['a malformed code_challenge', { code_challenge: 'short' }, 'invalid_request'],
      ['no scope', { scope: undefined }, 'invalid_scope'],
      ['an unknown scope', { scope: 'tenants:read everything' }, 'invalid_scope'],
    ])('redirects %s with %s, state and iss', async (_name, overrides, error) => {
      const parameters = authorizationParameters(bed, undefined, overrides);
      const answer = await browser().get(authorizePath(parameters));
      expect(answer.status).toBe(302);
      const back = new URL(answer.headers.get('location')!);
      expect(`${back.origin}${back.pathname}`).toBe(bed.client.redirectUri);
      expect(back.searchParams.get('error')).toBe(error);
      expect(back.searchParams.get('error_description')).toBeTruthy();
      expect(back.searchParams.get('state')).toBe(parameters.state);
      expect(back.searchParams.get('iss')).toBe(bed.issuer);
      expect(back.searchParams.get('code')).toBeNull();
    });

    it('redirects a repeated parameter with invalid_request', async () => {
      const path = `${authorizePath(authorizationParameters(bed))}&scope=alerts:read`;
      const answer = await browser().get(path);
      expect(answer.status).toBe(302);
      expect(new URL(answer.headers.get('location')!).searchParams.get('error')).toBe(
        'invalid_request',
      );
    });
  });

  describe('sign-in page', () => {
    it('has labelled inputs for password managers, CSRF protection and safe headers', async () => {
      const page = await signInPage(browser());
      expect(page.text).toMatch(/<label for="email">Email<\/label>/);
      expect(page.text).toMatch(/<input id="email"[^>]*autocomplete="username"/);
      expect(page.text).toMatch(/<label for="password">Password<\/label>/);
      expect(page.text).toMatch(/<input id="password"[^>]*autocomplete="current-password"/);
      expect(hiddenInputs(page.text).csrf_token).toBeTruthy();
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      const csrfCookie = page.headers.getSetCookie().find((c) => c.startsWith('__Host-svc_csrf='));
      expect(csrfCookie).toMatch(/; Path=\/; HttpOnly; Secure; SameSite=Lax/);
    });

    it('starts a session in a secure cookie and returns to the request', async () => {
      const b = browser();
      const page = await signInPage(b);
      const answer = await b.post('login', {
        ...hiddenInputs(page.text),
        email: bed.user.email,
        password: bed.user.password,
      });
      expect(answer.status).toBe(303);
      expect(answer.headers.get('location')).toMatch(/^authorize\?response_type=code&/);
      const session = answer.headers
        .getSetCookie()
        .find((c) => c.startsWith('__Host-svc_session='));
      expect(session).toMatch(/; Path=\/; HttpOnly; Secure; SameSite=Lax/);
      const [{ stored }] = await bed.api.dataSource.query<{ stored: number }[]>(
        `SELECT count(*)::int AS stored FROM auth_sessions WHERE id_hash = $1`,
        [b.cookies.get('__Host-svc_session')],
      );
      expect(stored).toBe(0);
    });

    it('says the same for a wrong password and an unknown email', async () => {
      const b = browser();
      const page = await signInPage(b);
      const fields = hiddenInputs(page.text);
      const wrongPassword = await b.post('login', {
        ...fields,
        email: bed.user.email,
        password: 'not the password at all',
      });
      const unknownEmail = await b.post('login', {
        ...fields,
        email: 'nobody@example.com',
        password: 'not the password at all',
      });
      for (const answer of [wrongPassword, unknownEmail]) {
        expect(answer.status).toBe(401);
        expect(answer.text).toContain('The email or password is incorrect.');
      }
      expect(b.cookies.has('__Host-svc_session')).toBe(false);
    });

    it('refuses a form without its CSRF token, or posted from another origin', async () => {
      const b = browser();
      const fields = hiddenInputs((await signInPage(b)).text);
      const credentials = { email: bed.user.email, password: bed.user.password };
      const noToken = await b.post('login', { ...fields, csrf_token: '', ...credentials });
      expect(noToken.status).toBe(403);
      const forged = await b.post('login', { ...fields, csrf_token: 'forged', ...credentials });
      expect(forged.status).toBe(403);
      const crossSite = await b.post(
        'login',
        { ...fields, ...credentials },
        { origin: 'https://evil.example' },
      );
      expect(crossSite.status).toBe(403);
      const otherBrowser = new FormBrowser(bed.auth.baseUrl);
      const stolenToken = await otherBrowser.post('login', { ...fields, ...credentials });
      expect(stolenToken.status).toBe(403);
      expect(b.cookies.has('__Host-svc_session')).toBe(false);
    });

    it('throttles an account after five failures, even for the right password', async () => {
      const user = await bed.newUser(['tenants:read']);
      const b = browser();
      const fields = hiddenInputs((await signInPage(b)).text);
      for (let i = 0; i < 5; i += 1) {
        const failed = await b.post('login', {
          ...fields,
          email: user.email,
          password: `nope-${i}`,
        });
        expect(failed.status).toBe(401);
      }
      const throttled = await b.post('login', {
        ...fields,
        email: user.email.toUpperCase(),
        password: user.password,
      });
      expect(throttled.status).toBe(429);
      expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(800);
      expect(throttled.text).toContain('Too many failed sign-ins');
      expect(b.cookies.has('__Host-svc_session')).toBe(false);

      await bed.api.dataSource.query(
        `UPDATE login_throttle SET window_started_at = now() - interval '16 minutes'`,
      );
      const later = await b.post('login', {
        ...fields,
        email: user.email,
        password: user.password,
      });
      expect(later.status).toBe(303);
    });
  });

  describe('native apps on a loopback redirect URI (RFC 8252)', () => {
    it('matches a loopback redirect URI with any port, and exchanges the code with that URI', async () => {
      const clientId = await bed.newClient('http://127.0.0.1:8765/cb?app=1');
      const pkce = newPkce();
      const presented = 'http://127.0.0.1:51234/cb?app=1';
      const back = await signInAndConsent(
        bed,
        authorizationParameters(bed, pkce, { client_id: clientId, redirect_uri: presented }),
      );
      expect(`${back.origin}${back.pathname}`).toBe('http://127.0.0.1:51234/cb');
      expect(back.searchParams.get('app')).toBe('1');
      const code = back.searchParams.get('code')!;
      expect(code).toBeTruthy();
      const tokens = await tokenRequest(bed, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: presented,
        client_id: clientId,
        code_verifier: pkce.verifier,
      });
      expect(tokens.status).toBe(200);
    });

    it('matches [::1] with any port too', async () => {
      const clientId = await bed.newClient('http://[::1]/callback');
      const page = await browser().get(
        authorizePath(
          authorizationParameters(bed, undefined, {
            client_id: clientId,
            redirect_uri: 'http://[::1]:4711/callback',
          }),
        ),
      );
      expect(page.status).toBe(200);
      expect(page.text).toContain('autocomplete="current-password"');
    });

    it.each([
      ['another path', 'http://127.0.0.1:9000/other'],
      ['another query', 'http://127.0.0.1:9000/cb?app=2'],
      ['https', 'https://127.0.0.1:9000/cb?app=1'],
      ['the other loopback address', 'http://[::1]:9000/cb?app=1'],
      ['localhost', 'http://localhost:8765/cb?app=1'],
    ])('still shows an error page for %s', async (_name, redirectUri) => {
      const clientId = await bed.newClient('http://127.0.0.1:8765/cb?app=1');
      const page = await browser().get(
        authorizePath(
          authorizationParameters(bed, undefined, {
            client_id: clientId,
            redirect_uri: redirectUri,
          }),
        ),
      );
      expect(page.status).toBe(400);
      expect(page.headers.get('location')).toBeNull();
    });

    it('keeps the port exact for https redirect URIs', async () => {
      const clientId = await bed.newClient('https://app.example:8443/callback');
      const page = await browser().get(
        authorizePath(
          authorizationParameters(bed, undefined, {
            client_id: clientId,
            redirect_uri: 'https://app.example:9443/callback',
          }),
        ),
      );
      expect(page.status).toBe(400);
    });

    it('refuses to register localhost, naming the loopback IP literal to use (RFC 8252 8.3)', async () => {
      await expect(bed.newClient('http://localhost:8765/cb')).rejects.toThrow(
        /localhost.*http:\/\/127\.0\.0\.1/,
      );
    });
  });

  describe('consent page', () => {
    /** Signs in with a fresh browser; the consent page it is shown, and that browser. */
    const consentPageFor = async (parameters: Record<string, string | undefined>) => {
      const b = browser();
      const signIn = await b.post('login', {
        ...hiddenInputs((await b.get(authorizePath(parameters))).text),
        email: bed.user.email,
        password: bed.user.password,
      });
      return { b, consent: await b.get(signIn.headers.get('location')!) };
    };

    it('lists the scopes in words with Allow and Deny, and returns a code with state and iss', async () => {
      const parameters = authorizationParameters(bed, undefined, {
        scope: 'tenants:read alerts:read',
      });
      const { b, consent } = await consentPageFor(parameters);
      expect(consent.status).toBe(200);
      expect(consent.text).toContain('Read tenant profiles and configuration.');
      expect(consent.text).toContain('Read security alerts and threat events.');
      expect(consent.text).toContain('>Allow</button>');
      expect(consent.text).toContain('>Deny</button>');
      const allowed = await b.post('authorize', {
        ...hiddenInputs(consent.text),
        decision: 'allow',
      });
      expect(allowed.status).toBe(303);
      const back = new URL(allowed.headers.get('location')!);
      expect(`${back.origin}${back.pathname}`).toBe(bed.client.redirectUri);
      expect(back.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(back.searchParams.get('state')).toBe(parameters.state);
      expect(back.searchParams.get('iss')).toBe(bed.issuer);
    });

    it('answers Deny with access_denied', async () => {
      const parameters = authorizationParameters(bed);
      const back = await signInAndConsent(bed, parameters, { decision: 'deny' });
      expect(back.searchParams.get('error')).toBe('access_denied');
      expect(back.searchParams.get('state')).toBe(parameters.state);
      expect(back.searchParams.get('iss')).toBe(bed.issuer);
      expect(back.searchParams.get('code')).toBeNull();
    });

    it('grants only the requested scopes the user is allowed', async () => {
      const parameters = authorizationParameters(bed, undefined, {
        scope: 'sentinel:respond alerts:read',
      });
      const { b, consent } = await consentPageFor(parameters);
      expect(consent.text).toContain('which your account cannot grant');
      const back = await signInAndConsent(bed, parameters, { browser: b });
      const [grant] = await bed.api.dataSource.query<{ scopes: string[] }[]>(
        `SELECT scopes FROM oauth_grants ORDER BY created_at DESC LIMIT 1`,
      );
      expect(back.searchParams.get('code')).toBeTruthy();
      expect(grant.scopes).toEqual(['alerts:read']);
    });

    it('answers access_denied when the user may grant none of the scopes', async () => {
      const back = await signInAndConsent(
        bed,
        authorizationParameters(bed, undefined, { scope: 'sentinel:respond' }),
      );
      expect(back.searchParams.get('error')).toBe('access_denied');
    });

    it('refuses a consent posted without the CSRF token, and one whose session is gone', async () => {
      const parameters = authorizationParameters(bed);
      const { b, consent } = await consentPageFor(parameters);
      const fields = hiddenInputs(consent.text);
      expect(
        (await b.post('authorize', { ...fields, csrf_token: 'x', decision: 'allow' })).status,
      ).toBe(403);
      b.cookies.delete('__Host-svc_session');
      const expired = await b.post('authorize', { ...fields, decision: 'allow' });
      expect(expired.status).toBe(401);
      expect(expired.text).toContain('Your sign-in has ended');
    });

    it('checks the request again when the consent is posted', async () => {
      const parameters = authorizationParameters(bed);
      const { b, consent } = await consentPageFor(parameters);
      const fields = hiddenInputs(consent.text);
      const tampered = await b.post('authorize', {
        ...fields,
        redirect_uri: 'https://evil.example/callback',
        decision: 'allow',
      });
      expect(tampered.status).toBe(400);
      expect(tampered.headers.get('location')).toBeNull();
    });
  });
});
