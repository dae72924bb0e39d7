import type { Scope } from './scopes';

/**
 * The tenant console as an OAuth client of our own authorization server (ADR 0042): public (no
 * secret, PKCE), first-party, limited to the one scope the console's routes need. The auth app
 * keeps its row in oauth_clients up to date at start; the API tells the console these values
 * (`/console/config.json`), so both read them from here and cannot drift apart.
 */
export const CONSOLE_CLIENT = {
  id: 'svc-console',
  name: 'svc webhooks console',
  scopes: ['webhooks:manage'] as readonly Scope[],
} as const;

/** Where the authorization server sends the console back: `<CONSOLE_URL>callback`, exactly. */
export function consoleRedirectUri(consoleUrl: string): string {
  return `${consoleUrl.endsWith('/') ? consoleUrl : `${consoleUrl}/`}callback`;
}
