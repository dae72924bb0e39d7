import { checkPassword, hashPassword, passwordMatches } from './password-hashing';

describe('password hashing', () => {
  it('stores an Argon2id PHC string that verifies only the right password', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$/);
    expect(stored).not.toContain('correct horse');
    expect(await passwordMatches(stored, 'correct horse battery staple')).toBe(true);
    expect(await passwordMatches(stored, 'correct horse battery stapler')).toBe(false);
  });

  it('salts: the same password never hashes the same twice', async () => {
    expect(await hashPassword('same password 123')).not.toBe(
      await hashPassword('same password 123'),
    );
  });

  it('answers false, not an error, for a malformed stored hash', async () => {
    expect(await passwordMatches('not a hash', 'anything at all')).toBe(false);
  });

  it('asks for length, not composition', () => {
    expect(checkPassword('short')).toMatch(/at least 12/);
    expect(checkPassword('all lowercase words')).toBeNull();
    expect(checkPassword('x'.repeat(1025))).toMatch(/at most 1024/);
  });
});
