/**
 * PKCE (RFC 7636) for the console's sign-in: a random verifier and its S256 challenge. Pure
 * apart from the randomness and digest handed in, so the tests run them under Node's WebCrypto.
 */

/** RFC 4648 section 5, without padding. */
export function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) {
    binary += String.fromCharCode(byte);
  }
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** `crypto` in the browser; Node's WebCrypto in the tests. */
export interface RandomSource {
  getRandomValues(array: Uint8Array): Uint8Array;
}

/** A random string of `bytes` random bytes in base64url: 32 bytes make a 43-character verifier. */
export function randomUrlSafeString(random: RandomSource, bytes = 32): string {
  const buffer = new Uint8Array(bytes);
  random.getRandomValues(buffer);
  return base64Url(buffer);
}

/** RFC 7636 4.1: 43 to 128 characters of the unreserved set. */
export function isCodeVerifier(value: string): boolean {
  return /^[A-Za-z0-9\-._~]{43,128}$/.test(value);
}

/** RFC 7636 4.2: BASE64URL(SHA256(ASCII(code_verifier))). */
export async function s256Challenge(verifier: string, subtle: SubtleCrypto): Promise<string> {
  const digest = await subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64Url(new Uint8Array(digest));
}
