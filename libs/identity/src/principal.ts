import type { Scope } from '@svc/contracts';

/** Who is calling: every request handler works on behalf of exactly one tenant. */
export interface Principal {
  kind: 'api_key';
  credentialId: string;
  tenantId: string;
  scopes: readonly Scope[];
  sandbox: boolean;
}
