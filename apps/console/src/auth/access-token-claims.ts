/**
 * What the console shows about a user's access token: its tenant and scopes. Read from the JWT's
 * payload without verifying it: the API verifies every request; the console only labels its
 * header and hides actions the token's scopes do not allow.
 */
export interface AccessTokenClaims {
  tenantId: string | null;
  scopes: string[];
  /** Seconds since the epoch, if the token says. */
  expiresAt: number | null;
}

function base64UrlDecode(segment: string): string {
  const base64 = segment.replace(/-/g, '+').replace(/_/g, '/');
  const padded = base64 + '='.repeat((4 - (base64.length % 4)) % 4);
  const bytes = Uint8Array.from(atob(padded), (character) => character.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/** The claims of a JWT access token; empty ones for anything that is not a readable JWT. */
export function accessTokenClaims(token: string): AccessTokenClaims {
  const empty: AccessTokenClaims = { tenantId: null, scopes: [], expiresAt: null };
  const parts = token.split('.');
  if (parts.length !== 3) {
    return empty;
  }
  try {
    const payload = JSON.parse(base64UrlDecode(parts[1])) as Record<string, unknown>;
    return {
      tenantId: typeof payload.tenant_id === 'string' ? payload.tenant_id : null,
      scopes:
        typeof payload.scope === 'string' ? payload.scope.split(' ').filter((s) => s !== '') : [],
      expiresAt: typeof payload.exp === 'number' ? payload.exp : null,
    };
  } catch {
    return empty;
  }
}
