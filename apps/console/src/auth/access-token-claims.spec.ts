import { accessTokenClaims } from './access-token-claims';

const segment = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = (payload: object) => `${segment({ alg: 'ES256' })}.${segment(payload)}.signature`;

describe('access token claims', () => {
  it('reads tenant, scopes and expiry', () => {
    expect(
      accessTokenClaims(jwt({ tenant_id: 'ten_1', scope: 'webhooks:manage tenants:read', exp: 9 })),
    ).toEqual({ tenantId: 'ten_1', scopes: ['webhooks:manage', 'tenants:read'], expiresAt: 9 });
  });

  it('reads non-ASCII text', () => {
    expect(accessTokenClaims(jwt({ tenant_id: 'tén' })).tenantId).toBe('tén');
  });

  it('gives nothing for what is not a JWT', () => {
    const empty = { tenantId: null, scopes: [], expiresAt: null };
    expect(accessTokenClaims('svc_live_abc')).toEqual(empty);
    expect(accessTokenClaims('a.%%%.c')).toEqual(empty);
    expect(accessTokenClaims(`a.${segment([1])}.c`)).toEqual(empty);
  });
});
