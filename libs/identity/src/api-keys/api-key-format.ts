import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const API_KEY_RANDOM_LENGTH = 32;

export type ApiKeyEnvironment = 'live' | 'test';

const API_KEY_PATTERN = /^svc_(live|test)_([0-9A-Za-z]{32})$/;

/**
 * Any string that looks like one of our credentials, wherever it appears: API keys, refresh
 * tokens, portal links and portal sessions (`svc_pl_`, `svc_ps_`, ADR 0042).
 */
export const CREDENTIAL_PATTERN =
  /svc_(live|test)_[0-9A-Za-z]{32}|svc_(rt|pl|ps)_[0-9A-Za-z_-]{16,}/;

/** `svc_live_` or `svc_test_` plus 32 base62 characters from the CSPRNG (about 190 bits). */
export function generateApiKey(environment: ApiKeyEnvironment): string {
  let random = '';
  for (let i = 0; i < API_KEY_RANDOM_LENGTH; i += 1) {
    random += ALPHABET[randomInt(ALPHABET.length)];
  }
  return `svc_${environment}_${random}`;
}

export function parseApiKey(value: string): { environment: ApiKeyEnvironment } | null {
  const match = API_KEY_PATTERN.exec(value);
  return match ? { environment: match[1] as ApiKeyEnvironment } : null;
}

/**
 * Keys carry 190 bits of randomness, so a fast unsalted digest is enough to make the stored
 * form useless to a reader of the database, and it lets the key be found by an index.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The last four characters, enough for a person to tell keys apart in a listing. */
export function apiKeyHint(key: string): string {
  return key.slice(-4);
}
