import { CanActivate, ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Scope } from '@svc/contracts';
import { PUBLIC_ROUTE } from '@svc/http';
import type { FastifyRequest } from 'fastify';
import {
  AccessTokenVerifier,
  ApiKeysService,
  looksLikeJwt,
  looksLikePortalSessionToken,
  PortalSessionsService,
  type Principal,
} from '@svc/identity';
import { authProblems } from './auth-problems';
import { findMisplacedCredential } from './misplaced-credentials';
import {
  AuthenticatedRequest,
  READ_ONLY_SESSION_ALLOWED,
  REQUIRED_SCOPES,
} from './require-scopes.decorator';

/** RFC 6750 2.1: the scheme is case-insensitive and the credential one b64token. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** What a read-only portal session may do: read. */
const READING_METHODS = new Set(['GET', 'HEAD']);

/**
 * Authenticates every non-public route by `Authorization: Bearer <credential>` only (an API key,
 * an OAuth access token where the app provides a verifier, or a portal session where the app
 * provides them), then checks the route's scopes, and that a read-only portal session only reads.
 * A credential anywhere else is refused before it can authenticate.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(ApiKeysService) private readonly apiKeys: ApiKeysService,
    @Optional() @Inject(AccessTokenVerifier) private readonly accessTokens?: AccessTokenVerifier,
    @Optional()
    @Inject(PortalSessionsService)
    private readonly portalSessions?: PortalSessionsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) {
      return true;
    }
    const required = this.reflector.getAllAndOverride<Scope[] | undefined>(
      REQUIRED_SCOPES,
      targets,
    );
    if (!required) {
      throw new Error(`${context.getClass().name}.${context.getHandler().name} declares no scopes`);
    }
    const request = context.switchToHttp().getRequest<FastifyRequest & AuthenticatedRequest>();
    const misplaced = findMisplacedCredential(request.query, request.body);
    if (misplaced) {
      throw authProblems.credentialsOutsideHeader(misplaced);
    }
    if (authorizationHeaderCount(request.raw.rawHeaders) > 1) {
      throw authProblems.duplicateAuthorization();
    }
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') {
      throw authProblems.missingCredentials();
    }
    const credential = BEARER.exec(header)?.[1];
    const principal = credential ? await this.authenticate(credential) : null;
    if (!principal) {
      throw authProblems.invalidToken();
    }
    const missing = required.filter((scope) => !principal.scopes.includes(scope));
    if (missing.length > 0) {
      throw authProblems.insufficientScope(missing);
    }
    if (
      principal.readOnly &&
      !READING_METHODS.has(request.method) &&
      !this.reflector.getAllAndOverride<boolean>(READ_ONLY_SESSION_ALLOWED, targets)
    ) {
      throw authProblems.readOnlySession();
    }
    request.principal = principal;
    return true;
  }

  /**
   * A portal session (`svc_ps_…`, looked up in the database on every request: no cache, so that
   * an ended or expired session stops at once), an OAuth access token (a JWT) when the app
   * accepts them, otherwise an API key.
   */
  private async authenticate(credential: string): Promise<Principal | null> {
    if (looksLikePortalSessionToken(credential)) {
      return this.portalSessions ? this.portalSessions.authenticate(credential) : null;
    }
    if (!this.accessTokens || !looksLikeJwt(credential)) {
      return this.apiKeys.authenticate(credential);
    }
    const token = await this.accessTokens.verify(credential);
    return token
      ? {
          kind: 'access_token',
          credentialId: token.tokenId,
          tenantId: token.tenantId,
          scopes: token.scopes,
          sandbox: false,
          userId: token.userId,
          clientId: token.clientId,
        }
      : null;
  }
}

/** Node keeps only the first of repeated Authorization headers; the raw list has them all. */
function authorizationHeaderCount(rawHeaders: string[]): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index].toLowerCase() === 'authorization') {
      count += 1;
    }
  }
  return count;
}
