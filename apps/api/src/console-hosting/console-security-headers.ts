/** What the console's policy depends on: where users sign in, and who may frame the console. */
export interface ConsolePolicySettings {
  /** The authorization server's issuer URL (`AUTH_ISSUER`). */
  issuer: string;
  /** Origins (or `'self'`) allowed to show the console in a frame; nobody when empty. */
  frameAncestors: readonly string[];
}

/**
 * The console's Content-Security-Policy (ADR 0042): its own files only, no inline script or
 * style, no `eval`; calls to the API (`'self'`) and to the authorization server's token and
 * revocation endpoints; navigation to its sign-in; framed only by the configured origins.
 */
export function consoleContentSecurityPolicy(settings: ConsolePolicySettings): string {
  const issuerOrigin = new URL(settings.issuer).origin;
  const ancestors =
    settings.frameAncestors.length > 0 ? settings.frameAncestors.join(' ') : "'none'";
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${issuerOrigin}`,
    "font-src 'self'",
    "base-uri 'none'",
    `form-action 'self' ${issuerOrigin}`,
    `frame-ancestors ${ancestors}`,
  ].join('; ');
}

/**
 * Headers every console response carries. No Referer leaves the console (a portal link's page
 * has had its token in the fragment, which browsers never send, but paths name endpoints).
 * The opener policy cuts off any window that opened the console; the sign-in is a same-window
 * navigation, which it does not affect. X-Frame-Options only when nobody may frame the console:
 * it cannot list origins, and browsers that know `frame-ancestors` ignore it anyway.
 */
export function consoleSecurityHeaders(settings: ConsolePolicySettings): Record<string, string> {
  return {
    'content-security-policy': consoleContentSecurityPolicy(settings),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    ...(settings.frameAncestors.length === 0 ? { 'x-frame-options': 'DENY' } : {}),
  };
}
