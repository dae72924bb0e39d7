import { createHash, randomBytes } from 'node:crypto';

export const REFRESH_TOKEN_PREFIX = 'svc_rt_';
const REFRESH_TOKEN = /^svc_rt_[A-Za-z0-9_-]{43}$/;
const OPAQUE_SECRET = /^[A-Za-z0-9_-]{43}$/;

/** 256 bits from the CSPRNG, base64url: authorization codes and session ids. */
export function generateOpaqueSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function isOpaqueSecret(value: string): boolean {
  return OPAQUE_SECRET.test(value);
}

/** `svc_rt_` plus 256 bits from the CSPRNG, base64url (43 characters). */
export function generateRefreshToken(): string {
  return REFRESH_TOKEN_PREFIX + generateOpaqueSecret();
}

export function isRefreshToken(value: string): boolean {
  return REFRESH_TOKEN.test(value);
}

/**
 * Codes, refresh tokens and session ids carry 256 random bits, so an unsalted SHA-256 makes the
 * stored form useless to a reader of the database while still letting an index find the row.
 */
export function hashOpaqueToken(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
