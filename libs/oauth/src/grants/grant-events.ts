import type { Scope } from '@svc/contracts';

/**
 * The events of a grant's stream (stream id = grant id, `grt_…`). A grant is one consent of one
 * user to one client; its refresh tokens form one family. Every event names who (tenant, user),
 * the client and the family, so a security review can replay what happened.
 */
export const GRANT_EVENT_TYPES = {
  authorized: 'oauth_grant.authorized',
  tokensIssued: 'oauth_grant.tokens_issued',
  authorizationCodeReused: 'oauth_grant.authorization_code_reused',
  refreshTokenReused: 'oauth_grant.refresh_token_reused',
  revoked: 'oauth_grant.revoked',
} as const;

export type GrantRevocationReason =
  'authorization_code_reused' | 'refresh_token_reused' | 'revoked_by_client';

export interface GrantParties {
  grant_id: string;
  tenant_id: string;
  user_id: string;
  client_id: string;
}

/** The user allowed the client these scopes; an authorization code was issued. */
export interface GrantAuthorized extends GrantParties {
  scopes: Scope[];
  redirect_uri: string;
  code_expires_at: string;
}

export interface TokensIssued extends GrantParties {
  scopes: Scope[];
  via: 'authorization_code' | 'refresh_token';
  access_token_id: string;
  access_token_expires_at: string;
  refresh_token_id: string;
  /** For a refresh: the token it consumed. */
  consumed_refresh_token_id?: string;
}

export interface AuthorizationCodeReused extends GrantParties {
  first_used_at: string;
}

export interface RefreshTokenReused extends GrantParties {
  refresh_token_id: string;
  consumed_at: string;
}

export interface GrantRevoked extends GrantParties {
  reason: GrantRevocationReason;
}
