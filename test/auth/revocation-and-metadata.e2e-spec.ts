import { readStream } from '@svc/event-store';
import { purgeExpiredAuthState } from '@svc/oauth';
import {
  grantIdOf,
  http,
  obtainTokens,
  OAuthTestBed,
  startOAuthTestBed,
  tokenRequest,
} from '../support';

describe('authorization server metadata (RFC 8414) and revocation (RFC 7009)', () => {
  let bed: OAuthTestBed;

  beforeAll(async () => {
    bed = await startOAuthTestBed();
  });
  afterAll(async () => {
    await bed.close();
  });

  const issueTokens = () => obtainTokens(bed);
  const revoke = (fields: Record<string, string>) =>
    fetch(`${bed.auth.baseUrl}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  it('publishes its metadata under the issuer', async () => {
    const response = await http(bed.auth.baseUrl, 'GET', '/.well-known/oauth-authorization-server');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      issuer: bed.issuer,
      authorization_endpoint: `${bed.issuer}/oauth/authorize`,
      token_endpoint: `${bed.issuer}/oauth/token`,
      revocation_endpoint: `${bed.issuer}/oauth/revoke`,
      jwks_uri: `${bed.issuer}/.well-known/jwks.json`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(response.body.scopes_supported).toContain('webhooks:manage');
  });

  it('revokes the whole grant given its refresh token, and records it', async () => {
    const tokens = await issueTokens();
    const response = await revoke({ token: tokens.refresh_token, client_id: bed.client.id });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const refreshed = await tokenRequest(bed, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: bed.client.id,
    });
    expect(refreshed.body.error).toBe('invalid_grant');
    expect(
      (await http(bed.api.baseUrl, 'GET', '/v1/tenants', { key: tokens.access_token })).status,
    ).toBe(401);
    const events = await readStream(bed.api.dataSource.manager, grantIdOf(tokens.access_token));
    expect(events.at(-1)).toMatchObject({
      type: 'oauth_grant.revoked',
      data: { reason: 'revoked_by_client', client_id: bed.client.id, user_id: bed.user.id },
    });
  });

  it('revokes the grant given an access token', async () => {
    const tokens = await issueTokens();
    expect((await revoke({ token: tokens.access_token, client_id: bed.client.id })).status).toBe(
      200,
    );
    expect(
      (await http(bed.api.baseUrl, 'GET', '/v1/tenants', { key: tokens.access_token })).status,
    ).toBe(401);
  });

  it("answers 200 for unknown tokens and another client's, revoking nothing", async () => {
    const tokens = await issueTokens();
    const other = await bed.newClient('https://other.example/cb');
    for (const token of ['nonsense', `svc_rt_${'a'.repeat(43)}`, tokens.refresh_token]) {
      expect((await revoke({ token, client_id: other })).status).toBe(200);
    }
    const refreshed = await tokenRequest(bed, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: bed.client.id,
    });
    expect(refreshed.status).toBe(200);
  });

  it('counts sign-ins, consents, token requests and revocations on /metrics', async () => {
    await issueTokens();
    const metrics = (await http(bed.auth.managementUrl, 'GET', '/metrics')).text;
    const value = (series: string) =>
      Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(metrics)?.[1]);
    expect(value('svc_auth_sign_ins_total{outcome="succeeded",app="auth"}')).toBeGreaterThan(0);
    expect(
      value('svc_auth_consent_decisions_total{decision="allowed",app="auth"}'),
    ).toBeGreaterThan(0);
    expect(
      value(
        'svc_auth_token_requests_total{grant_type="authorization_code",outcome="issued",app="auth"}',
      ),
    ).toBeGreaterThan(0);
    expect(
      value('svc_auth_grants_revoked_total{reason="revoked_by_client",app="auth"}'),
    ).toBeGreaterThan(0);
    expect(value('svc_auth_sign_ins_total{outcome="throttled",app="auth"}')).toBe(0);
  });

  it('purges codes, refresh tokens, sessions and throttle rows nobody can use any more', async () => {
    const tokens = await issueTokens();
    const db = bed.api.dataSource;
    await db.query(`UPDATE oauth_authorization_codes SET expires_at = now() - interval '2 days'`);
    await db.query(`UPDATE auth_sessions SET expires_at = now() - interval '1 second'`);
    const [fresh] = await db.query<{ id: string }[]>(
      `SELECT id FROM oauth_refresh_tokens ORDER BY issued_at DESC LIMIT 1`,
    );
    expect(await purgeExpiredAuthState(db)).toBeGreaterThan(0);
    const count = async (table: string) =>
      (await db.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${table}`))[0].n;
    expect(await count('oauth_authorization_codes')).toBe(0);
    expect(await count('auth_sessions')).toBe(0);
    const [kept] = await db.query<{ id: string }[]>(
      `SELECT id FROM oauth_refresh_tokens WHERE id = $1`,
      [fresh.id],
    );
    expect(kept).toBeDefined();
    expect(
      (
        await tokenRequest(bed, {
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token,
          client_id: bed.client.id,
        })
      ).status,
    ).toBe(200);
  });

  it.each([
    ['no token', { client_id: 'x' }, 'invalid_request'],
    ['no client_id', { token: 'x' }, 'invalid_request'],
    [
      'an unknown client',
      { token: 'x', client_id: 'cli_01m7zzzzzzzzzzzzzzzzzzzzzz' },
      'invalid_client',
    ],
  ])('refuses a request with %s', async (_name, fields, error) => {
    const response = await revoke(fields);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe(error);
  });
});
