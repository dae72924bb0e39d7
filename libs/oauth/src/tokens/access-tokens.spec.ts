import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  SignJWT,
  UnsecuredJWT,
} from 'jose';
import { AccessTokenVerifier, looksLikeJwt } from '@svc/identity';
import { AccessTokenIssuer } from './access-tokens';
import { loadSigningKeys } from './signing-keys';

const ISSUER = 'https://auth.example.com';
const AUDIENCE = 'svc-api';
const grant = {
  tenantId: 'ten_1',
  userId: 'usr_1',
  clientId: 'cli_1',
  scopes: ['tenants:read', 'webhooks:manage'] as const,
};

async function setup() {
  const keys = await loadSigningKeys(undefined, false);
  const jwks = createLocalJWKSet({ keys: keys.map((key) => key.publicJwk) });
  return {
    keys,
    issuer: new AccessTokenIssuer(keys, ISSUER, AUDIENCE),
    verifier: new AccessTokenVerifier(jwks, ISSUER, AUDIENCE),
  };
}

describe('RFC 9068 access tokens', () => {
  it('issues a signed at+jwt for one hour that verifies to the grant', async () => {
    const { issuer, verifier, keys } = await setup();
    const token = await issuer.issue(grant);
    expect(looksLikeJwt(token)).toBe(true);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: keys[0].kid });
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({
      iss: ISSUER,
      aud: AUDIENCE,
      sub: 'usr_1',
      client_id: 'cli_1',
      tenant_id: 'ten_1',
      scope: 'tenants:read webhooks:manage',
    });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(claims.jti).toMatch(/^tok_/);
    expect(await verifier.verify(token)).toMatchObject({
      ...grant,
      scopes: ['tenants:read', 'webhooks:manage'],
      tokenId: claims.jti,
    });
  });

  it('refuses an expired token', async () => {
    const { issuer, verifier } = await setup();
    const token = await issuer.issue(grant, new Date(Date.now() - 3601_000));
    expect(await verifier.verify(token)).toBeNull();
  });

  it('refuses a tampered payload and a signature by another key', async () => {
    const { issuer, verifier } = await setup();
    const [header, , signature] = (await issuer.issue(grant)).split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...decodeJwt(await issuer.issue(grant)), scope: 'sentinel:respond' }),
    ).toString('base64url');
    expect(await verifier.verify(`${header}.${forged}.${signature}`)).toBeNull();
    const other = await setup();
    expect(await verifier.verify(await other.issuer.issue(grant))).toBeNull();
  });

  it('refuses the wrong issuer, audience or type, and unsigned tokens', async () => {
    const { keys, verifier } = await setup();
    expect(
      await verifier.verify(
        await new AccessTokenIssuer(keys, 'https://evil.example', AUDIENCE).issue(grant),
      ),
    ).toBeNull();
    expect(
      await verifier.verify(await new AccessTokenIssuer(keys, ISSUER, 'another-api').issue(grant)),
    ).toBeNull();
    const idTokenShaped = await new SignJWT({
      client_id: 'cli_1',
      scope: 'tenants:read',
      tenant_id: 'ten_1',
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: keys[0].kid })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('usr_1')
      .setJti('tok_x')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(keys[0].privateKey);
    expect(await verifier.verify(idTokenShaped)).toBeNull();
    const unsigned = new UnsecuredJWT({
      client_id: 'cli_1',
      scope: 'tenants:read',
      tenant_id: 'ten_1',
    })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('usr_1')
      .setJti('tok_y')
      .setIssuedAt()
      .setExpirationTime('1h')
      .encode();
    expect(await verifier.verify(unsigned)).toBeNull();
  });

  it('keeps tokens of a previous key valid after rotation, signing with the new one', async () => {
    const newJwk = await exportJWK(
      (await generateKeyPair('ES256', { extractable: true })).privateKey,
    );
    const oldJwk = await exportJWK(
      (await generateKeyPair('ES256', { extractable: true })).privateKey,
    );
    const old = await loadSigningKeys([{ ...oldJwk }], false);
    const rotated = await loadSigningKeys([{ ...newJwk }, { ...oldJwk }], false);
    const jwks = createLocalJWKSet({ keys: rotated.map((key) => key.publicJwk) });
    const verifier = new AccessTokenVerifier(jwks, ISSUER, AUDIENCE);
    expect(
      await verifier.verify(await new AccessTokenIssuer(old, ISSUER, AUDIENCE).issue(grant)),
    ).not.toBeNull();
    const fresh = await new AccessTokenIssuer(rotated, ISSUER, AUDIENCE).issue(grant);
    expect(decodeProtectedHeader(fresh).kid).toBe(rotated[0].kid);
    expect(rotated.every((key) => !('d' in key.publicJwk))).toBe(true);
  });

  it('demands configured keys in production', async () => {
    await expect(loadSigningKeys(undefined, true)).rejects.toThrow(
      /AUTH_SIGNING_KEYS: is required/,
    );
    await expect(loadSigningKeys([{ kty: 'RSA' }], false)).rejects.toThrow(/EC P-256/);
  });

  it('tells JWTs from API keys', () => {
    expect(looksLikeJwt('svc_live_abcdefghijklmnopqrstuvwxyz012345')).toBe(false);
    expect(looksLikeJwt('a.b.c')).toBe(true);
  });
});
