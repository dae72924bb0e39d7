import { randomBytes } from 'node:crypto';
import { SecretCipher, SecretDecryptionError } from './secret-cipher';

const newKey = () => randomBytes(32).toString('base64');

describe('SecretCipher', () => {
  it('round-trips a secret and never stores the plaintext', () => {
    const cipher = new SecretCipher([newKey()]);
    const sealed = cipher.encrypt('whsec-very-secret-value', 'wh_1');
    expect(sealed).not.toContain('whsec');
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(cipher.decrypt(sealed, 'wh_1')).toBe('whsec-very-secret-value');
  });

  it('uses a fresh IV each time', () => {
    const cipher = new SecretCipher([newKey()]);
    expect(cipher.encrypt('same', 'c')).not.toBe(cipher.encrypt('same', 'c'));
  });

  it('refuses a ciphertext moved to another context', () => {
    const cipher = new SecretCipher([newKey()]);
    const sealed = cipher.encrypt('secret', 'wh_1');
    expect(() => cipher.decrypt(sealed, 'wh_2')).toThrow(SecretDecryptionError);
  });

  it('refuses a tampered ciphertext', () => {
    const cipher = new SecretCipher([newKey()]);
    const parts = cipher.encrypt('secret', 'c').split('.');
    const body = Buffer.from(parts[3], 'base64url');
    body[0] ^= 1;
    parts[3] = body.toString('base64url');
    expect(() => cipher.decrypt(parts.join('.'), 'c')).toThrow(SecretDecryptionError);
  });

  it('decrypts with a previous key after rotation and encrypts with the new one', () => {
    const oldKey = newKey();
    const sealedBefore = new SecretCipher([oldKey]).encrypt('secret', 'c');
    const rotated = new SecretCipher([newKey(), oldKey]);
    expect(rotated.decrypt(sealedBefore, 'c')).toBe('secret');
    expect(rotated.encrypt('secret', 'c').split('.')[1]).not.toBe(sealedBefore.split('.')[1]);
  });

  it('names a missing key instead of failing obscurely', () => {
    const sealed = new SecretCipher([newKey()]).encrypt('secret', 'c');
    expect(() => new SecretCipher([newKey()]).decrypt(sealed, 'c')).toThrow(/no configured key/);
  });
});
