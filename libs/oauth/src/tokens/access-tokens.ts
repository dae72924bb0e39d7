import { newId } from '@svc/contracts';
import { ACCESS_TOKEN_TYPE, AccessTokenGrant, SIGNING_ALGORITHM } from '@svc/identity';
import { SignJWT } from 'jose';
import { SigningKey } from './signing-keys';

/** Spec 5.2 and 8: access tokens expire one hour after issue. */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;
/** Issues RFC 9068 JWT access tokens signed with the first signing key. */
export class AccessTokenIssuer {
  constructor(
    private readonly keys: readonly SigningKey[],
    private readonly issuer: string,
    private readonly audience: string,
  ) {}

  issue(grant: AccessTokenGrant, now = new Date(), tokenId = newId('tok')): Promise<string> {
    const key = this.keys[0];
    const issuedAt = Math.floor(now.getTime() / 1000);
    return new SignJWT({
      client_id: grant.clientId,
      scope: grant.scopes.join(' '),
      tenant_id: grant.tenantId,
      ...(grant.grantId ? { grant_id: grant.grantId } : {}),
    })
      .setProtectedHeader({ alg: SIGNING_ALGORITHM, typ: ACCESS_TOKEN_TYPE, kid: key.kid })
      .setIssuer(this.issuer)
      .setAudience(this.audience)
      .setSubject(grant.userId)
      .setJti(tokenId)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + ACCESS_TOKEN_LIFETIME_SECONDS)
      .sign(key.privateKey);
  }
}

/**
 * Verifying access tokens is the resource server's half and lives in `@svc/identity`; it is
 * re-exported here for the authorization server, which checks its own tokens at revocation.
 */
export {
  ACCESS_TOKEN_TYPE,
  AccessTokenVerifier,
  looksLikeJwt,
  type AccessTokenGrant,
  type VerifiedAccessToken,
} from '@svc/identity';
