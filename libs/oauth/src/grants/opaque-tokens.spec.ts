import {
  generateOpaqueSecret,
  generateRefreshToken,
  hashOpaqueToken,
  isOpaqueSecret,
  isRefreshToken,
} from './opaque-tokens';

describe('opaque tokens', () => {
  it('makes refresh tokens of svc_rt_ and 43 base64url characters, each different', () => {
    const tokens = new Set(Array.from({ length: 100 }, generateRefreshToken));
    expect(tokens.size).toBe(100);
    for (const token of tokens) {
      expect(token).toMatch(/^svc_rt_[A-Za-z0-9_-]{43}$/);
      expect(isRefreshToken(token)).toBe(true);
    }
  });

  it.each(['svc_rt_short', `svc_live_${'a'.repeat(32)}`, `svc_rt_${'a'.repeat(42)}!`, ''])(
    'does not take %j for a refresh token',
    (value) => {
      expect(isRefreshToken(value)).toBe(false);
    },
  );

  it('makes 256-bit secrets for codes and sessions', () => {
    const secret = generateOpaqueSecret();
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    expect(isOpaqueSecret(secret)).toBe(true);
    expect(isOpaqueSecret(`${secret}x`)).toBe(false);
  });

  it('stores a SHA-256 hash, never the value', () => {
    const token = generateRefreshToken();
    const hash = hashOpaqueToken(token);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(token.slice(7));
    expect(hashOpaqueToken(token)).toBe(hash);
  });
});
