import { newId, Scope } from '@svc/contracts';
import { appendToStream } from '@svc/event-store';
import { DataSource, EntityManager } from 'typeorm';
import { verifierMatches } from '../rules/pkce';
import { ACCESS_TOKEN_LIFETIME_SECONDS, AccessTokenIssuer } from '../tokens/access-tokens';
import {
  AuthorizationCodeReused,
  GRANT_EVENT_TYPES,
  GrantAuthorized,
  GrantRevocationReason,
  RefreshTokenReused,
  TokensIssued,
} from './grant-events';
import {
  appendGrantEvents,
  grantParties,
  GrantRow,
  lockGrant,
  revokeLockedGrant,
} from './grant-stream';
import { generateOpaqueSecret, generateRefreshToken, hashOpaqueToken } from './opaque-tokens';

/** RFC 6749 4.1.2 recommends at most ten minutes; the issue asks for 60 s. */
export const AUTHORIZATION_CODE_LIFETIME_SECONDS = 60;
/** A grant stays usable while it is refreshed at least once in this time (ADR 0014). */
export const REFRESH_TOKEN_LIFETIME_SECONDS = 30 * 24 * 3600;

/** The request cannot be granted: RFC 6749 5.2 `invalid_grant`, with a description. */
export class InvalidGrantError extends Error {
  readonly error = 'invalid_grant';
  constructor(
    description: string,
    /** Set when presenting the code or token revoked its grant (reuse). */
    readonly revoked?: GrantRevocationReason,
  ) {
    super(description);
  }
}

/** A refresh asked for scopes other than those granted: RFC 6749 5.2 `invalid_scope`. */
export class InvalidScopeError extends Error {
  readonly error = 'invalid_scope';
}

export interface IssuedTokens {
  grantId: string;
  accessToken: string;
  refreshToken: string;
  scopes: Scope[];
  expiresIn: number;
}

type Outcome = { refused: string; revoked?: GrantRevocationReason } | { issued: IssuedTokens };

/**
 * Grants, their single-use authorization codes and rotating refresh tokens. Each operation is
 * one transaction that changes the rows and appends what happened to the grant's stream.
 */
export class GrantsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly accessTokens: AccessTokenIssuer,
  ) {}

  /** The user consented: a new grant and its authorization code (returned once, stored hashed). */
  async authorize(input: {
    tenantId: string;
    userId: string;
    clientId: string;
    scopes: Scope[];
    redirectUri: string;
    codeChallenge: string;
  }): Promise<{ grantId: string; code: string }> {
    const grantId = newId('grt');
    const code = generateOpaqueSecret();
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO oauth_grants (id, tenant_id, user_id, client_id, scopes, stream_version)
         VALUES ($1, $2, $3, $4, $5, 1)`,
        [grantId, input.tenantId, input.userId, input.clientId, input.scopes],
      );
      const [{ expires_at }] = await manager.query<{ expires_at: Date }[]>(
        `INSERT INTO oauth_authorization_codes (code_hash, grant_id, redirect_uri, code_challenge, expires_at)
         VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))
         RETURNING expires_at`,
        [
          hashOpaqueToken(code),
          grantId,
          input.redirectUri,
          input.codeChallenge,
          AUTHORIZATION_CODE_LIFETIME_SECONDS,
        ],
      );
      const data: GrantAuthorized = {
        grant_id: grantId,
        tenant_id: input.tenantId,
        user_id: input.userId,
        client_id: input.clientId,
        scopes: input.scopes,
        redirect_uri: input.redirectUri,
        code_expires_at: expires_at.toISOString(),
      };
      await appendToStream(manager, grantId, 0, [
        { type: GRANT_EVENT_TYPES.authorized, data: { ...data } },
      ]);
    });
    return { grantId, code };
  }

  /**
   * RFC 6749 4.1.3 with RFC 7636 4.6: the code is consumed only by an exchange that matches its
   * client, redirect URI, PKCE challenge and lifetime; presenting a consumed code revokes the
   * grant, and with it every token issued from it.
   */
  async exchangeCode(input: {
    code: string;
    clientId: string;
    redirectUri: string;
    codeVerifier: string;
  }): Promise<IssuedTokens> {
    const codeHash = hashOpaqueToken(input.code);
    const outcome = await this.dataSource.transaction(async (manager): Promise<Outcome> => {
      const [row] = await manager.query<
        {
          grant_id: string;
          redirect_uri: string;
          code_challenge: string;
          consumed_at: Date | null;
          expired: boolean;
          client_id: string;
        }[]
      >(
        `SELECT c.grant_id, c.redirect_uri, c.code_challenge, c.consumed_at,
                c.expires_at <= now() AS expired, g.client_id
           FROM oauth_authorization_codes c JOIN oauth_grants g ON g.id = c.grant_id
          WHERE c.code_hash = $1
            FOR UPDATE OF c`,
        [codeHash],
      );
      if (!row || row.client_id !== input.clientId) {
        return { refused: 'the authorization code is not valid for this client' };
      }
      if (row.consumed_at) {
        const grant = await lockGrant(manager, row.grant_id);
        const reused: AuthorizationCodeReused = {
          ...grantParties(grant),
          first_used_at: row.consumed_at.toISOString(),
        };
        await revokeLockedGrant(manager, grant, 'authorization_code_reused', [
          { type: GRANT_EVENT_TYPES.authorizationCodeReused, data: { ...reused } },
        ]);
        return {
          refused: 'the authorization code was used already; the tokens issued from it are revoked',
          revoked: 'authorization_code_reused' as const,
        };
      }
      if (row.expired) {
        return { refused: 'the authorization code has expired' };
      }
      if (row.redirect_uri !== input.redirectUri) {
        return { refused: 'redirect_uri differs from the one in the authorization request' };
      }
      if (!verifierMatches(input.codeVerifier, row.code_challenge)) {
        return { refused: 'code_verifier does not match the code_challenge' };
      }
      const grant = await lockGrant(manager, row.grant_id);
      if (grant.revoked_at) {
        return { refused: 'the grant has been revoked' };
      }
      await manager.query(
        `UPDATE oauth_authorization_codes SET consumed_at = now() WHERE code_hash = $1`,
        [codeHash],
      );
      return { issued: await this.issueTokens(manager, grant, 'authorization_code') };
    });
    if ('refused' in outcome) {
      throw new InvalidGrantError(outcome.refused, outcome.revoked);
    }
    return outcome.issued;
  }

  /**
   * RFC 6749 6 with RFC 9700 4.14.2 rotation: the presented token is consumed by one conditional
   * update, so of two concurrent refreshes only one can succeed; presenting a consumed token is
   * taken as theft and revokes the whole family.
   */
  async refresh(input: {
    refreshToken: string;
    clientId: string;
    /** RFC 6749 6: a refresh may name the scopes again; it may not change them (ADR 0014). */
    scopes?: readonly string[];
  }): Promise<IssuedTokens> {
    const tokenHash = hashOpaqueToken(input.refreshToken);
    const outcome = await this.dataSource.transaction(async (manager): Promise<Outcome> => {
      const [consumed] = await manager.query<[{ id: string; grant_id: string }[], number]>(
        `UPDATE oauth_refresh_tokens t SET consumed_at = now()
           FROM oauth_grants g
          WHERE t.token_hash = $1 AND t.consumed_at IS NULL AND t.expires_at > now()
            AND g.id = t.grant_id AND g.revoked_at IS NULL AND g.client_id = $2
          RETURNING t.id, t.grant_id`,
        [tokenHash, input.clientId],
      );
      if (consumed.length === 1) {
        const grant = await lockGrant(manager, consumed[0].grant_id);
        if (input.scopes && !sameScopes(input.scopes, grant.scopes)) {
          // Thrown inside the transaction: it rolls back, and the token stays unused.
          throw new InvalidScopeError(
            `a refresh keeps the granted scopes: ${grant.scopes.join(' ')}`,
          );
        }
        return {
          issued: await this.issueTokens(manager, grant, 'refresh_token', consumed[0].id),
        };
      }
      const [token] = await manager.query<
        {
          id: string;
          grant_id: string;
          consumed_at: Date | null;
          client_id: string;
          revoked_at: Date | null;
        }[]
      >(
        `SELECT t.id, t.grant_id, t.consumed_at, g.client_id, g.revoked_at
           FROM oauth_refresh_tokens t JOIN oauth_grants g ON g.id = t.grant_id
          WHERE t.token_hash = $1`,
        [tokenHash],
      );
      if (!token || token.client_id !== input.clientId) {
        return { refused: 'the refresh token is not valid for this client' };
      }
      if (token.revoked_at) {
        return { refused: 'the grant has been revoked' };
      }
      if (token.consumed_at) {
        const grant = await lockGrant(manager, token.grant_id);
        const reused: RefreshTokenReused = {
          ...grantParties(grant),
          refresh_token_id: token.id,
          consumed_at: token.consumed_at.toISOString(),
        };
        await revokeLockedGrant(manager, grant, 'refresh_token_reused', [
          { type: GRANT_EVENT_TYPES.refreshTokenReused, data: { ...reused } },
        ]);
        return {
          refused: 'the refresh token was used already; every token of its grant is revoked',
          revoked: 'refresh_token_reused' as const,
        };
      }
      return { refused: 'the refresh token has expired' };
    });
    if ('refused' in outcome) {
      throw new InvalidGrantError(outcome.refused, outcome.revoked);
    }
    return outcome.issued;
  }

  /**
   * RFC 7009: revokes the grant a refresh token (or, by grant id, an access token) belongs to,
   * when it was issued to `clientId`. Returns whether anything was revoked.
   */
  async revokeByRefreshToken(refreshToken: string, clientId: string): Promise<boolean> {
    const [token] = await this.dataSource.query<{ grant_id: string }[]>(
      `SELECT grant_id FROM oauth_refresh_tokens WHERE token_hash = $1`,
      [hashOpaqueToken(refreshToken)],
    );
    return token ? this.revokeGrant(token.grant_id, clientId) : false;
  }

  async revokeGrant(grantId: string, clientId: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const grant = await lockGrant(manager, grantId);
      if (grant.client_id !== clientId || grant.revoked_at) {
        return false;
      }
      await revokeLockedGrant(manager, grant, 'revoked_by_client', []);
      return true;
    });
  }

  private async issueTokens(
    manager: EntityManager,
    grant: GrantRow,
    via: TokensIssued['via'],
    consumedRefreshTokenId?: string,
  ): Promise<IssuedTokens> {
    const refreshToken = generateRefreshToken();
    const refreshTokenId = newId('rtk');
    const accessTokenId = newId('tok');
    const issuedAt = new Date();
    await manager.query(
      `INSERT INTO oauth_refresh_tokens (id, token_hash, grant_id, expires_at)
       VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
      [refreshTokenId, hashOpaqueToken(refreshToken), grant.id, REFRESH_TOKEN_LIFETIME_SECONDS],
    );
    const accessToken = await this.accessTokens.issue(
      {
        tenantId: grant.tenant_id,
        userId: grant.user_id,
        clientId: grant.client_id,
        scopes: grant.scopes,
        grantId: grant.id,
      },
      issuedAt,
      accessTokenId,
    );
    const issued: TokensIssued = {
      ...grantParties(grant),
      scopes: grant.scopes,
      via,
      access_token_id: accessTokenId,
      access_token_expires_at: new Date(
        Math.floor(issuedAt.getTime() / 1000) * 1000 + ACCESS_TOKEN_LIFETIME_SECONDS * 1000,
      ).toISOString(),
      refresh_token_id: refreshTokenId,
      ...(consumedRefreshTokenId ? { consumed_refresh_token_id: consumedRefreshTokenId } : {}),
    };
    await appendGrantEvents(manager, grant.id, [
      { type: GRANT_EVENT_TYPES.tokensIssued, data: { ...issued } },
    ]);
    return {
      grantId: grant.id,
      accessToken,
      refreshToken,
      scopes: grant.scopes,
      expiresIn: ACCESS_TOKEN_LIFETIME_SECONDS,
    };
  }
}

const sameScopes = (requested: readonly string[], granted: readonly string[]) =>
  new Set(requested).size === granted.length && requested.every((s) => granted.includes(s));
