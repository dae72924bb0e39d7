import type { CookieSerializeOptions } from '@fastify/cookie';

/**
 * `__Host-` cookies (RFC 6265bis 4.1.3.2): Secure, Path=/, no Domain, so no other host or path
 * can set or read them. Lax keeps them off cross-site POSTs; HttpOnly keeps them from scripts.
 */
export const SESSION_COOKIE = '__Host-svc_session';
export const CSRF_COOKIE = '__Host-svc_csrf';

export const BROWSER_COOKIE_OPTIONS: CookieSerializeOptions = {
  path: '/',
  secure: true,
  httpOnly: true,
  sameSite: 'lax',
};
