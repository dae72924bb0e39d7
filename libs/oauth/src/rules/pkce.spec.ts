import { isCodeVerifier, isS256Challenge, s256Challenge, verifierMatches } from './pkce';

// RFC 7636 Appendix B.
const RFC_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const RFC_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('PKCE S256 (RFC 7636)', () => {
  it('computes the challenge of the RFC example', () => {
    expect(s256Challenge(RFC_VERIFIER)).toBe(RFC_CHALLENGE);
    expect(verifierMatches(RFC_VERIFIER, RFC_CHALLENGE)).toBe(true);
  });

  it('accepts verifiers of 43 and of 128 characters from the whole unreserved set', () => {
    const shortest = 'a'.repeat(40) + '-._';
    const longest = 'A1~'.repeat(42) + 'zz';
    expect(shortest).toHaveLength(43);
    expect(longest).toHaveLength(128);
    expect(verifierMatches(shortest, s256Challenge(shortest))).toBe(true);
    expect(verifierMatches(longest, s256Challenge(longest))).toBe(true);
  });

  it.each([
    ['42 characters', 'a'.repeat(42)],
    ['129 characters', 'a'.repeat(129)],
    ['a space', `${'a'.repeat(42)} `],
    ['a plus sign', `${'a'.repeat(42)}+`],
    ['a slash', `${'a'.repeat(42)}/`],
    ['a non-ASCII letter', `${'a'.repeat(42)}é`],
  ])('refuses a verifier with %s, even against its own challenge', (_, verifier) => {
    expect(isCodeVerifier(verifier)).toBe(false);
    expect(verifierMatches(verifier, s256Challenge(verifier))).toBe(false);
  });

  it('refuses a wrong verifier and malformed challenges', () => {
    expect(verifierMatches(`${RFC_VERIFIER.slice(0, -1)}l`, RFC_CHALLENGE)).toBe(false);
    expect(verifierMatches(RFC_VERIFIER, RFC_VERIFIER)).toBe(false);
    expect(isS256Challenge(`${RFC_CHALLENGE}=`)).toBe(false);
    expect(isS256Challenge(RFC_CHALLENGE.slice(1))).toBe(false);
  });
});
