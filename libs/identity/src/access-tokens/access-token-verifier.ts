import { isScope, Scope } from '@svc/contracts';
import { JWTPayload, jwtVerify, JWTVerifyGetKey } from 'jose';

/**
 * The resource-server half of OAuth (spec 5.2, RFC 9068): what the registration API needs to
 * accept an access token. The authorization server (`@svc/oauth`) issues what this verifies.
 */

/** The JWS algorithm of access tokens. */
export const SIGNING_ALGORITHM = 'ES256';
/** RFC 9068 2.1: the media type of a JWT access token. */
export const ACCESS_TOKEN_TYPE = 'at+jwt';

export interface AccessTokenGrant {
  tenantId: string;
  userId: string;
  clientId: string;
  scopes: readonly Scope[];
  /** The grant (refresh-token family) the token was issued from; revoking it revokes the token. */
  grantId?: string;
}

export interface VerifiedAccessToken extends AccessTokenGrant {
  tokenId: string;
  expiresAt: Date;
}

/**
 * Verifies access tokens with the authorization server's published keys (fetched once and
 * cached, not per request): signature, `typ` at+jwt, issuer, audience and expiry. Any failure is
 * null: the caller answers 401 invalid_token without saying which check failed.
 */
export class AccessTokenVerifier {
  constructor(
    private readonly keys: JWTVerifyGetKey,
    private readonly issuer: string,
    private readonly audience: string,
    /** Revocation (code or refresh-token reuse, RFC 7009) reaches tokens through their grant. */
    private readonly grantIsRevoked?: (grantId: string) => Promise<boolean>,
  ) {}

  async verify(token: string): Promise<VerifiedAccessToken | null> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        algorithms: [SIGNING_ALGORITHM],
        typ: ACCESS_TOKEN_TYPE,
        issuer: this.issuer,
        audience: this.audience,
        requiredClaims: ['sub', 'exp', 'iat', 'jti', 'client_id', 'scope', 'tenant_id'],
      }));
    } catch {
      return null;
    }
    const { sub, jti, exp, client_id, scope, tenant_id, grant_id } = payload as JWTPayload &
      Record<string, unknown>;
    if (
      typeof client_id !== 'string' ||
      typeof scope !== 'string' ||
      typeof tenant_id !== 'string' ||
      (grant_id !== undefined && typeof grant_id !== 'string')
    ) {
      return null;
    }
    if (grant_id !== undefined && this.grantIsRevoked && (await this.grantIsRevoked(grant_id))) {
      return null;
    }
    return {
      tenantId: tenant_id,
      userId: sub!,
      clientId: client_id,
      scopes: scope.split(' ').filter(isScope),
      tokenId: jti!,
      expiresAt: new Date(exp! * 1000),
      ...(grant_id !== undefined ? { grantId: grant_id } : {}),
    };
  }
}

/** A JWS compact serialisation: three base64url parts. API keys never look like this. */
export function looksLikeJwt(credential: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(credential);
}
