import { webcrypto } from 'node:crypto';
import { base64Url, isCodeVerifier, randomUrlSafeString, s256Challenge } from './pkce';

const subtle = webcrypto.subtle as unknown as SubtleCrypto;

describe('PKCE', () => {
  it('computes the S256 challenge of RFC 7636 appendix B', async () => {
    await expect(
      s256Challenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', subtle),
    ).resolves.toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('makes verifiers of 43 unreserved characters, different every time', () => {
    const first = randomUrlSafeString(webcrypto);
    const second = randomUrlSafeString(webcrypto);
    expect(first).toHaveLength(43);
    expect(isCodeVerifier(first)).toBe(true);
    expect(second).not.toBe(first);
  });

  it('writes base64url without padding', () => {
    expect(base64Url(new Uint8Array([0xfb, 0xff]))).toBe('-_8');
    expect(base64Url(new Uint8Array([]))).toBe('');
  });

  it('knows a verifier from something else', () => {
    expect(isCodeVerifier('a'.repeat(42))).toBe(false);
    expect(isCodeVerifier('a'.repeat(129))).toBe(false);
    expect(isCodeVerifier(`${'a'.repeat(42)}+`)).toBe(false);
  });
});
