import {
  authorizationParameters,
  authorizePath,
  FormBrowser,
  OAuthTestBed,
  startOAuthTestBed,
  tokenRequest,
} from '../support';

/** RFC 6749 4.1.2.1 and 5.2: the characters an error_description may hold. */
const RFC_6749_DESCRIPTION = /^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/;

/**
 * Issue 30, findings 4 and 5 (ADR 0040): no endpoint reflects attacker-chosen text in
 * error_description, and every description keeps to RFC 6749's character set.
 */
describe('OAuth error_description', () => {
  let bed: OAuthTestBed;

  beforeAll(async () => {
    bed = await startOAuthTestBed();
  });
  afterAll(async () => {
    await bed.close();
  });

  const expectNoneOf = (description: string | null | undefined, attacker: string[]) => {
    expect(typeof description).toBe('string');
    expect(description).toMatch(RFC_6749_DESCRIPTION);
    for (const text of attacker) {
      expect(description).not.toContain(text);
    }
  };

  const postForm = async (path: string, body: string) => {
    const response = await fetch(`${bed.auth.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  describe('GET /oauth/authorize', () => {
    it('redirects unknown scopes without naming them', async () => {
      const parameters = authorizationParameters(bed, undefined, {
        scope: `tenants:read a"b c\\d été ${'z'.repeat(60)}`,
      });
      const answer = await new FormBrowser(bed.auth.baseUrl).get(authorizePath(parameters));
      expect(answer.status).toBe(302);
      const back = new URL(answer.headers.get('location')!);
      expect(`${back.origin}${back.pathname}`).toBe(bed.client.redirectUri);
      expect(back.searchParams.get('error')).toBe('invalid_scope');
      expect(back.searchParams.get('state')).toBe(parameters.state);
      const description = back.searchParams.get('error_description');
      expectNoneOf(description, ['"', '\\', 'é', 'a"b', 'c\\d', 'été', 'zzz', '…']);
      expect(description).toMatch(/4 of the 5/);
    });

    it('keeps to the character set for a scope of letters the client could have meant', async () => {
      const parameters = authorizationParameters(bed, undefined, {
        scope: 'tenants:read attacker:phishing-text',
      });
      const answer = await new FormBrowser(bed.auth.baseUrl).get(authorizePath(parameters));
      const back = new URL(answer.headers.get('location')!);
      expect(back.searchParams.get('error')).toBe('invalid_scope');
      expectNoneOf(back.searchParams.get('error_description'), ['attacker', 'phishing']);
    });
  });

  describe('POST /oauth/token', () => {
    it('answers a repeated parameter of any name without naming it', async () => {
      const name = encodeURIComponent('x"\\é');
      const response = await postForm(
        '/oauth/token',
        `grant_type=refresh_token&client_id=${bed.client.id}&${name}=1&${name}=2`,
      );
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_request');
      expectNoneOf(response.body.error_description as string, ['"', '\\', 'é', 'x"']);
    });

    it('still names a repeated protocol parameter, and only that', async () => {
      const response = await postForm(
        '/oauth/token',
        `grant_type=refresh_token&grant_type=refresh_token&client_id=${bed.client.id}&evil=1&evil=2`,
      );
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: 'invalid_request',
        error_description: 'parameters must not be repeated: grant_type and 1 other',
      });
    });

    it('describes a malformed code_verifier within the character set', async () => {
      const response = await tokenRequest(bed, {
        grant_type: 'authorization_code',
        code: 'whatever',
        redirect_uri: bed.client.redirectUri,
        client_id: bed.client.id,
        code_verifier: 'short',
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_grant');
      expectNoneOf(response.body.error_description as string, ['short']);
    });
  });

  describe('POST /oauth/revoke', () => {
    it('answers a repeated parameter of any name without naming it', async () => {
      const name = encodeURIComponent('x"\\é');
      const response = await postForm(
        '/oauth/revoke',
        `token=abc&client_id=${bed.client.id}&${name}=1&${name}=2`,
      );
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_request');
      expectNoneOf(response.body.error_description as string, ['"', '\\', 'é', 'x"']);
    });
  });
});
