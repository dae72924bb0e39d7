import { AccessTokenIssuer, loadSigningKeys } from '@svc/oauth';
import { exportJWK, generateKeyPair, JWK } from 'jose';
import { http, RunningApi, RunningApp, startApi, startAuth } from '../support';

const ISSUER = 'https://auth.svc.test';

describe('OAuth access tokens at the registration API (RFC 9068, RFC 6750)', () => {
  let auth: RunningApp;
  let api: RunningApi;
  let signingJwk: JWK;
  let tenantId: string;

  beforeAll(async () => {
    signingJwk = {
      ...(await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey)),
      kid: 'key-2026',
    };
    auth = await startAuth({
      AUTH_SIGNING_KEYS: JSON.stringify([signingJwk]),
      AUTH_ISSUER: ISSUER,
    });
    api = await startApi({
      AUTH_ISSUER: ISSUER,
      AUTH_JWKS_URL: `${auth.baseUrl}/.well-known/jwks.json`,
    });
    ({ tenantId } = await api.newTenantWithKey(['tenants:read']));
  });
  afterAll(async () => {
    await api.close();
    await auth.close();
  });

  const mint = async (scopes: string[], issuedAt = new Date(), jwk: JWK = signingJwk) =>
    new AccessTokenIssuer(await loadSigningKeys([jwk], false), ISSUER, 'svc-api').issue(
      {
        tenantId,
        userId: 'usr_01m7zzzzzzzzzzzzzzzzzzzzzz',
        clientId: 'cli_01m7zzzzzzzzzzzzzzzzzzzzzz',
        scopes: scopes as never,
      },
      issuedAt,
    );

  it('publishes the public signing keys, never the private part', async () => {
    const jwks = await http(auth.baseUrl, 'GET', '/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys).toEqual([
      {
        kty: 'EC',
        crv: 'P-256',
        x: signingJwk.x,
        y: signingJwk.y,
        kid: 'key-2026',
        alg: 'ES256',
        use: 'sig',
      },
    ]);
    expect(jwks.text).not.toContain(signingJwk.d!);
  });

  it('accepts a valid access token beside API keys, for the tenant it names', async () => {
    const response = await http(api.baseUrl, 'GET', '/v1/tenants', {
      key: await mint(['tenants:read']),
    });
    expect(response.status).toBe(200);
    expect(response.body.data[0].id).toBe(tenantId);
  });

  it('answers a token without the scope with 403 insufficient_scope', async () => {
    const response = await http(api.baseUrl, 'GET', '/v1/tenants', {
      key: await mint(['webhooks:manage']),
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toMatch(
      /error="insufficient_scope", scope="tenants:read"/,
    );
  });

  it.each([
    ['expired', () => mint(['tenants:read'], new Date(Date.now() - 3700_000))],
    [
      'tampered',
      async () => {
        const [header, payload, signature] = (await mint(['tenants:read'])).split('.');
        const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
        return [
          header,
          Buffer.from(JSON.stringify({ ...claims, tenant_id: 'ten_someoneelse' })).toString(
            'base64url',
          ),
          signature,
        ].join('.');
      },
    ],
    [
      'signed by an unknown key',
      async () =>
        mint(['tenants:read'], new Date(), {
          ...(await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey)),
          kid: 'key-2026',
        }),
    ],
  ])('answers a %s token with 401 invalid_token', async (_, token) => {
    const response = await http(api.baseUrl, 'GET', '/v1/tenants', { key: await token() });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect(response.body.type).toBe('urn:svc:problem:unauthenticated');
  });
});
