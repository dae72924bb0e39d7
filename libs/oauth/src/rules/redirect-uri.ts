const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * What a client may register as a redirect URI (OAuth 2.0 Security BCP, RFC 9700 4.1): an
 * absolute https URL, or http on a loopback host for native apps (RFC 8252 7.3); no fragment,
 * no user information, no wildcard. Returns what is wrong, or null.
 */
export function checkRedirectUri(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.hash !== '' || raw.includes('#')) {
    return 'must not contain a fragment';
  }
  if (url.username !== '' || url.password !== '') {
    return 'must not contain user information';
  }
  if (raw.includes('*')) {
    return 'must not contain wildcards';
  }
  if (url.protocol === 'https:') {
    return null;
  }
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) {
    return null;
  }
  return 'must use https (http only on a loopback host, for native apps)';
}

/** Redirect URIs are compared as exact strings (RFC 9700 4.1.3): no prefix or pattern matching. */
export function isRegisteredRedirectUri(registered: readonly string[], presented: string): boolean {
  return registered.includes(presented);
}
