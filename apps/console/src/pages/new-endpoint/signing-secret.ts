import type { RandomSource } from '../../auth/pkce';

/**
 * A new endpoint's signing secret, made in the browser with crypto.getRandomValues: the Standard
 * Webhooks form the service itself generates at rotation, `whsec_` + base64 of 32 random bytes
 * (a receiver's library keys its HMAC with the decoded bytes).
 */
export function generateSigningSecret(random: RandomSource): string {
  const bytes = new Uint8Array(32);
  random.getRandomValues(bytes);
  let binary = '';
  for (const byte of bytes) {
    binary += String.fromCharCode(byte);
  }
  return `whsec_${btoa(binary)}`;
}
