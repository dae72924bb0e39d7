import { createHash, randomBytes } from 'node:crypto';

/**
 * The two secrets of a portal session (ADR 0042): the one-time link token a platform's backend
 * mints and puts in the console URL's fragment, and the session token the console exchanges it
 * for and then sends as `Authorization: Bearer`. Both are the prefix plus 256 bits from the
 * CSPRNG, base64url (43 characters), as the auth server's refresh tokens.
 */
export const PORTAL_LINK_PREFIX = 'svc_pl_';
export const PORTAL_SESSION_PREFIX = 'svc_ps_';

const PORTAL_LINK_TOKEN = /^svc_pl_[A-Za-z0-9_-]{43}$/;
const PORTAL_SESSION_TOKEN = /^svc_ps_[A-Za-z0-9_-]{43}$/;

/** At most this long, as a webhook URL: enough for any real address, bounded for storage. */
export const RETURN_URL_MAX_LENGTH = 2048;

const randomPart = () => randomBytes(32).toString('base64url');

export function generatePortalLinkToken(): string {
  return PORTAL_LINK_PREFIX + randomPart();
}

export function generatePortalSessionToken(): string {
  return PORTAL_SESSION_PREFIX + randomPart();
}

export function isPortalLinkToken(value: string): boolean {
  return PORTAL_LINK_TOKEN.test(value);
}

export function isPortalSessionToken(value: string): boolean {
  return PORTAL_SESSION_TOKEN.test(value);
}

/** Whether a Bearer credential is meant as a portal session (well-formed or not). */
export function looksLikePortalSessionToken(value: string): boolean {
  return value.startsWith(PORTAL_SESSION_PREFIX);
}

/**
 * Both tokens carry 256 random bits, so an unsalted SHA-256 makes the stored form useless to a
 * reader of the database while still letting a unique index find the row; nothing compares the
 * raw tokens, only the database compares digests.
 */
export function hashPortalToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Where the console sends a user whose session ended: an absolute https URL, or http on the local
 * machine only (a platform developing against a local stack); no user information, since the
 * console shows the address and a password in it would be on screen.
 */
export function isAcceptableReturnUrl(text: string): boolean {
  if (text.length > RETURN_URL_MAX_LENGTH || !URL.canParse(text)) {
    return false;
  }
  const url = new URL(text);
  if (url.username !== '' || url.password !== '') {
    return false;
  }
  return (
    url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))
  );
}
