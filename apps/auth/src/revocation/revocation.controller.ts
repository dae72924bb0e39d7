import { Controller, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  AccessTokenVerifier,
  GrantsService,
  isRefreshToken,
  looksLikeJwt,
  OAuthClientsService,
} from '@svc/oauth';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthMetrics } from '../auth-metrics';
import { formParameters, required, requireRegisteredClient } from '../token/form-parameters';
import { OAuthError, sendOAuthError, sendOAuthJson } from '../token/oauth-error';

/** Verifies access tokens with this server's own keys, for revocation. */
export const OWN_ACCESS_TOKENS = Symbol('OWN_ACCESS_TOKENS');

/**
 * Token revocation (RFC 7009). A refresh token or an access token revokes its whole grant
 * (RFC 7009 2.1: the grant's other tokens go with it). Unknown tokens, and tokens of another
 * client, get the same 200 as a revoked one, so the endpoint says nothing about them.
 */
@ApiExcludeController()
@Controller('oauth/revoke')
export class RevocationController {
  constructor(
    private readonly clients: OAuthClientsService,
    private readonly grants: GrantsService,
    @Inject(OWN_ACCESS_TOKENS) private readonly accessTokens: AccessTokenVerifier,
    private readonly metrics: AuthMetrics,
  ) {}

  @Post()
  async revoke(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    try {
      const parameters = formParameters(request);
      const token = required(parameters, 'token');
      const clientId = await requireRegisteredClient(this.clients, parameters);
      if (await this.revokeGrantOf(token, clientId)) {
        this.metrics.grantsRevoked.inc({ reason: 'revoked_by_client' });
      }
      return sendOAuthJson(reply, 200, {});
    } catch (error) {
      if (error instanceof OAuthError) {
        return sendOAuthError(reply, error);
      }
      throw error;
    }
  }

  private async revokeGrantOf(token: string, clientId: string): Promise<boolean> {
    if (isRefreshToken(token)) {
      return this.grants.revokeByRefreshToken(token, clientId);
    }
    if (looksLikeJwt(token)) {
      const verified = await this.accessTokens.verify(token);
      return verified?.grantId ? this.grants.revokeGrant(verified.grantId, clientId) : false;
    }
    return false;
  }
}
