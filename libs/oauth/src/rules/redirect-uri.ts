/** Loopback IP literals a native app may listen on (RFC 8252 7.3); `localhost` is refused (8.3). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]']);

const LOCALHOST_NAME = /(^|\.)localhost\.?$/;

/**
 * An http URI on a loopback IP literal, split into what must match exactly (scheme, host, and
 * the rest of the string as typed: path and query) and the port, which may differ.
 */
const LOOPBACK_URI = /^(http:\/\/(?:127\.0\.0\.1|\[::1\]))(?::(\d{1,5}))?([/?].*)?$/s;

/**
 * What a client may register as a redirect URI (OAuth 2.0 Security BCP, RFC 9700 4.1): an
 * absolute https URL, or http on a loopback IP literal for native apps (RFC 8252 7.3); no
 * fragment, no user information, no wildcard, never the name `localhost` (RFC 8252 8.3).
 * Returns what is wrong, or null.
 *
 * `localhostAllowed`: for a first-party web app whose address the operator configured (the
 * console, ADR 0042, at `http://localhost:8080/console/` by default), not a native app picking
 * a port: the name `localhost` itself, over http or https, matched exactly like any other URI.
 */
export function checkRedirectUri(
  raw: string,
  options: { localhostAllowed?: boolean } = {},
): string | null {
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
  if (options.localhostAllowed && url.hostname === 'localhost') {
    return url.protocol === 'http:' || url.protocol === 'https:' ? null : 'must use http or https';
  }
  if (LOCALHOST_NAME.test(url.hostname)) {
    return (
      'must not use the host name localhost (RFC 8252 8.3): use the loopback IP literal ' +
      'http://127.0.0.1 or http://[::1]; the port may then be any (RFC 8252 7.3)'
    );
  }
  if (url.protocol === 'https:') {
    return null;
  }
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) {
    return null;
  }
  return 'must use https (http only on a loopback IP literal, 127.0.0.1 or [::1], for native apps)';
}

/**
 * Redirect URIs are compared as exact strings (RFC 9700 4.1.3): no prefix or pattern matching.
 * The one exception is RFC 8252 7.3: a native app listens on whatever loopback port it gets, so
 * an http URI on 127.0.0.1 or [::1] matches a registered one that differs only in its port.
 */
export function isRegisteredRedirectUri(registered: readonly string[], presented: string): boolean {
  if (registered.includes(presented)) {
    return true;
  }
  const loopback = withoutLoopbackPort(presented);
  return loopback !== null && registered.some((uri) => withoutLoopbackPort(uri) === loopback);
}

/** A loopback http URI without its port (null for anything else, or for an impossible port). */
function withoutLoopbackPort(uri: string): string | null {
  const match = LOOPBACK_URI.exec(uri);
  if (!match) {
    return null;
  }
  const [, origin, port, rest = ''] = match;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) {
    return null;
  }
  return `${origin}${rest}`;
}
