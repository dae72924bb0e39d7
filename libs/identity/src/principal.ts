import type { Scope } from '@svc/contracts';

/** Who is calling: every request handler works on behalf of exactly one tenant. */
export interface Principal {
  /** An API key of a backend, or an OAuth access token of an application acting for a user. */
  kind: 'api_key' | 'access_token';
  /** The key id (`key_…`) or the token id (`tok_…`). */
  credentialId: string;
  tenantId: string;
  scopes: readonly Scope[];
  sandbox: boolean;
  /** For access tokens: the user the application acts for, and the application. */
  userId?: string;
  clientId?: string;
}
