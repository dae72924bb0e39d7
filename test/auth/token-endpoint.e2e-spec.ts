import { readStream } from '@svc/event-store';
import { createHash, randomBytes } from 'node:crypto';
import {
  authorizationParameters,
  grantIdOf,
  http,
  newPkce,
  OAuthTestBed,
  obtainTokens,
  signInAndConsent,
  startOAuthTestBed,
  tokenRequest,
} from '../support';

/** Spec 4.4 and 5.2 through the real auth app, API and PostgreSQL (RFC 6749, RFC 7636, RFC 9700). */
describe('POST /oauth/token', () => {
  let bed: OAuthTestBed;

  beforeAll(async () => {
    bed = await startOAuthTestBed();
  });
  afterAll(async () => {
    await bed.close();
  });

  /** A fresh code for the bed's client, and the verifier that goes with it. */
  const newCode = async (overrides: Record<string, string | undefined> = {}, pkce = newPkce()) => {
    const back = await signInAndConsent(bed, authorizationParameters(bed, pkce, overrides));
    const code = back.searchParams.get('code');
    if (!code) throw new Error(`no code: ${back.toString()}`);
    return { code, verifier: pkce.verifier };
  };
  const exchange = (code: string, verifier: string, overrides: Record<string, string> = {}) =>
    tokenRequest(bed, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: bed.client.redirectUri,
      client_id: bed.client.id,
      code_verifier: verifier,
      ...overrides,
    });
  const refresh = (refreshToken: string, overrides: Record<string, string> = {}) =>
    tokenRequest(bed, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: bed.client.id,
      ...overrides,
    });
  const tenantsWith = (accessToken: string) =>
    http(bed.api.baseUrl, 'GET', '/v1/tenants', { key: accessToken });
  describe('authorization_code', () => {
    it('answers exactly the five fields of spec 4.4, never cached, with a token the API accepts', async () => {
      const { code, verifier } = await newCode();
      const response = await exchange(code, verifier);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Object.keys(response.body).sort()).toEqual(
        ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type'].sort(),
      );
      expect(response.body).toMatchObject({
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'tenants:read',
      });
      expect(response.body.refresh_token).toMatch(/^svc_rt_[A-Za-z0-9_-]{43}$/);
      const tenants = await tenantsWith(response.body.access_token as string);
      expect(tenants.status).toBe(200);
      expect(tenants.body.data.map((tenant: { id: string }) => tenant.id)).toEqual([bed.tenantId]);
    });

    it('refuses a second use of a code, and revokes the tokens issued from the first', async () => {
      const { code, verifier } = await newCode();
      const first = await exchange(code, verifier);
      expect(first.status).toBe(200);
      const second = await exchange(code, verifier);
      expect(second.status).toBe(400);
      expect(second.body.error).toBe('invalid_grant');
      expect((await tenantsWith(first.body.access_token as string)).status).toBe(401);
      const refreshed = await refresh(first.body.refresh_token as string);
      expect(refreshed.body.error).toBe('invalid_grant');

      const grantId = grantIdOf(first.body.access_token as string);
      const events = await readStream(bed.api.dataSource.manager, grantId);
      expect(events.map((event) => event.type)).toEqual([
        'oauth_grant.authorized',
        'oauth_grant.tokens_issued',
        'oauth_grant.authorization_code_reused',
        'oauth_grant.revoked',
      ]);
      expect(events[3].data).toEqual({
        grant_id: grantId,
        tenant_id: bed.tenantId,
        user_id: bed.user.id,
        client_id: bed.client.id,
        reason: 'authorization_code_reused',
      });
    });

    it('lets two racing exchanges of one code succeed at most once', async () => {
      const { code, verifier } = await newCode();
      const answers = await Promise.all([exchange(code, verifier), exchange(code, verifier)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    });

    it('refuses a code older than 60 seconds', async () => {
      const { code, verifier } = await newCode();
      const [row] = await bed.api.dataSource.query<{ lifetime: number }[]>(
        `SELECT extract(epoch FROM expires_at - now()) AS lifetime
           FROM oauth_authorization_codes ORDER BY expires_at DESC LIMIT 1`,
      );
      expect(Number(row.lifetime)).toBeLessThanOrEqual(60);
      expect(Number(row.lifetime)).toBeGreaterThan(50);
      await bed.api.dataSource.query(
        `UPDATE oauth_authorization_codes SET expires_at = now() - interval '1 second'
          WHERE consumed_at IS NULL`,
      );
      const response = await exchange(code, verifier);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: 'invalid_grant',
        error_description: 'the authorization code has expired',
      });
    });

    it('refuses a wrong verifier without using up the code', async () => {
      const { code, verifier } = await newCode();
      const wrong = await exchange(code, newPkce().verifier);
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toBe('invalid_grant');
      expect((await exchange(code, verifier)).status).toBe(200);
    });

    it.each([
      ['43', 43],
      ['128', 128],
    ])('accepts a %s-character verifier', async (_name, length) => {
      const verifier = 'aZ09-._~'.repeat(16).slice(0, length);
      const { code } = await newCode({}, { verifier, challenge: s256(verifier) });
      expect((await exchange(code, verifier)).status).toBe(200);
    });

    it.each([
      ['42 characters', 'a'.repeat(42)],
      ['129 characters', 'a'.repeat(129)],
      ['a space', `${'a'.repeat(42)} `],
      ['a plus sign', `${'a'.repeat(42)}+`],
      ['a slash', `${'a'.repeat(42)}/`],
      ['non-ASCII', `${'a'.repeat(42)}é`],
    ])('refuses a verifier of %s as invalid_grant', async (_name, verifier) => {
      const { code } = await newCode({}, { verifier, challenge: s256(verifier) });
      const response = await exchange(code, verifier);
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_grant');
    });

    it('refuses a redirect_uri other than the request one', async () => {
      const { code, verifier } = await newCode();
      const response = await exchange(code, verifier, {
        redirect_uri: 'https://app.example/other',
      });
      expect(response.body.error).toBe('invalid_grant');
    });

    it("refuses another client's code", async () => {
      const { code, verifier } = await newCode();
      const other = await bed.newClient('https://other.example/cb');
      const response = await exchange(code, verifier, { client_id: other });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_grant');
      expect((await exchange(code, verifier)).status).toBe(200);
    });

    it('refuses a code that was never issued', async () => {
      const response = await exchange(randomBytes(32).toString('base64url'), newPkce().verifier);
      expect(response.body.error).toBe('invalid_grant');
    });

    it.each(['code', 'redirect_uri', 'code_verifier', 'client_id', 'grant_type'])(
      'answers invalid_request naming a missing %s',
      async (name) => {
        const response = await exchange('c', newPkce().verifier, { [name]: '' });
        expect(response.status).toBe(400);
        expect(response.body).toEqual({
          error: 'invalid_request',
          error_description: `${name} is required`,
        });
      },
    );
  });

  describe('refresh_token', () => {
    const tokens = () => obtainTokens(bed, { scope: 'tenants:read alerts:read' });

    it('returns a new refresh token with the same scope each time, and consumes the old one', async () => {
      const first = await tokens();
      const second = await refresh(first.refresh_token);
      expect(second.status).toBe(200);
      expect(second.headers.get('cache-control')).toBe('no-store');
      expect(Object.keys(second.body).sort()).toEqual(
        ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type'].sort(),
      );
      expect(second.body.scope).toBe('tenants:read alerts:read');
      expect(second.body.refresh_token).not.toBe(first.refresh_token);
      expect(second.body.access_token).not.toBe(first.access_token);
      const third = await refresh(second.body.refresh_token as string);
      expect(third.status).toBe(200);
      expect(third.body.scope).toBe('tenants:read alerts:read');
      expect((await tenantsWith(third.body.access_token as string)).status).toBe(200);
    });

    it('takes a consumed token as theft: invalid_grant, and the whole family is revoked', async () => {
      const first = await tokens();
      const second = (await refresh(first.refresh_token)).body as Record<string, string>;
      const reuse = await refresh(first.refresh_token);
      expect(reuse.status).toBe(400);
      expect(reuse.body.error).toBe('invalid_grant');
      expect((await refresh(second.refresh_token)).body.error).toBe('invalid_grant');
      expect((await tenantsWith(second.access_token)).status).toBe(401);
      expect((await tenantsWith(first.access_token)).status).toBe(401);

      const events = await readStream(bed.api.dataSource.manager, grantIdOf(first.access_token));
      expect(events.map((event) => event.type)).toEqual([
        'oauth_grant.authorized',
        'oauth_grant.tokens_issued',
        'oauth_grant.tokens_issued',
        'oauth_grant.refresh_token_reused',
        'oauth_grant.revoked',
      ]);
      expect(events[2].data).toMatchObject({ via: 'refresh_token', user_id: bed.user.id });
      expect(events[3].data.refresh_token_id).toBe(events[1].data.refresh_token_id);
    });

    it('lets only one of two concurrent refreshes with one token succeed', async () => {
      const first = await tokens();
      const answers = await Promise.all([
        refresh(first.refresh_token),
        refresh(first.refresh_token),
      ]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
      const loser = answers.find((answer) => answer.status === 400)!;
      expect(loser.body.error).toBe('invalid_grant');
    });

    it('refuses a change of scope and leaves the token usable', async () => {
      const first = await tokens();
      const widened = await refresh(first.refresh_token, { scope: 'tenants:read webhooks:manage' });
      expect(widened.status).toBe(400);
      expect(widened.body.error).toBe('invalid_scope');
      const same = await refresh(first.refresh_token, { scope: 'alerts:read tenants:read' });
      expect(same.status).toBe(200);
    });

    it("refuses another client's refresh token without consuming it", async () => {
      const first = await tokens();
      const other = await bed.newClient('https://other.example/cb');
      const response = await refresh(first.refresh_token, { client_id: other });
      expect(response.body.error).toBe('invalid_grant');
      expect((await refresh(first.refresh_token)).status).toBe(200);
    });

    it.each([
      ['an unknown token', `svc_rt_${randomBytes(32).toString('base64url')}`],
      ['a malformed token', 'svc_rt_nope'],
      ['an API key', `svc_live_${'a'.repeat(32)}`],
    ])('refuses %s', async (_name, token) => {
      const response = await refresh(token);
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_grant');
    });

    it('refuses an expired refresh token', async () => {
      const first = await tokens();
      await bed.api.dataSource.query(
        `UPDATE oauth_refresh_tokens SET expires_at = now() - interval '1 second'
          WHERE consumed_at IS NULL`,
      );
      const response = await refresh(first.refresh_token);
      expect(response.body).toEqual({
        error: 'invalid_grant',
        error_description: 'the refresh token has expired',
      });
    });

    it('stores refresh tokens and codes only as hashes', async () => {
      const first = await tokens();
      const secretPart = first.refresh_token.slice('svc_rt_'.length);
      const [{ found }] = await bed.api.dataSource.query<{ found: number }[]>(
        `SELECT count(*)::int AS found FROM oauth_refresh_tokens
          WHERE token_hash LIKE '%' || $1 || '%' OR id LIKE '%' || $1 || '%'`,
        [secretPart],
      );
      expect(found).toBe(0);
      const [{ logged }] = await bed.api.dataSource.query<{ logged: number }[]>(
        `SELECT count(*)::int AS logged FROM events WHERE data::text LIKE '%' || $1 || '%'`,
        [secretPart],
      );
      expect(logged).toBe(0);
    });
  });

  describe('errors (RFC 6749 5.2)', () => {
    it('answers an unknown grant type with unsupported_grant_type', async () => {
      const response = await tokenRequest(bed, {
        grant_type: 'client_credentials',
        client_id: bed.client.id,
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('unsupported_grant_type');
      expect(response.headers.get('cache-control')).toBe('no-store');
    });

    it('answers an unknown client with invalid_client', async () => {
      const response = await refresh(`svc_rt_${'a'.repeat(43)}`, {
        client_id: 'cli_01m7zzzzzzzzzzzzzzzzzzzzzz',
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_client');
    });

    it('answers a repeated parameter with invalid_request', async () => {
      const response = await fetch(`${bed.auth.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `grant_type=refresh_token&grant_type=refresh_token&client_id=${bed.client.id}`,
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: 'invalid_request',
        error_description: 'parameters must not be repeated: grant_type',
      });
    });

    it.each([
      ['JSON', 'application/json', '{"grant_type":"refresh_token"}'],
      ['plain text', 'text/plain', 'grant_type=refresh_token'],
    ])('answers a %s body with invalid_request', async (_name, type, body) => {
      const response = await fetch(`${bed.auth.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': type },
        body,
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe('invalid_request');
    });
  });
});

function s256(verifier: string): string {
  // Computed here, not with the product's own function, so a bug there cannot hide.
  return createHash('sha256').update(verifier, 'utf8').digest('base64url');
}
