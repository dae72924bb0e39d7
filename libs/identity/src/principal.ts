import type { Scope } from '@svc/contracts';

/** Who is calling: every request handler works on behalf of exactly one tenant. */
export interface Principal {
  /**
   * An API key of a backend, an OAuth access token of an application acting for a user, or a
   * portal session of the console opened by a link a platform minted (ADR 0042).
   */
  kind: 'api_key' | 'access_token' | 'portal_session';
  /** The key id (`key_…`), the token id (`tok_…`) or the portal session id (`ps_…`). */
  credentialId: string;
  /** For API keys: what a person recognises the key by (`svc keys list`), never the key. */
  credentialHint?: string;
  tenantId: string;
  scopes: readonly Scope[];
  sandbox: boolean;
  /** For access tokens: the user the application acts for, and the application. */
  userId?: string;
  clientId?: string;
  /** For portal sessions minted read-only: the guard lets only GET and HEAD through. */
  readOnly?: boolean;
}
