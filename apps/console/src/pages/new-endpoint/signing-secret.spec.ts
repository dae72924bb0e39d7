import { webcrypto } from 'node:crypto';
import { generateSigningSecret } from './signing-secret';

describe('a new signing secret', () => {
  it('is whsec_ and the base64 of 32 random bytes, within the API rules', () => {
    const secret = generateSigningSecret(webcrypto);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(secret.length).toBeGreaterThanOrEqual(16);
    expect(secret.length).toBeLessThanOrEqual(256);
  });

  it('differs every time', () => {
    expect(generateSigningSecret(webcrypto)).not.toBe(generateSigningSecret(webcrypto));
  });
});
