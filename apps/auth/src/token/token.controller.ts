import { Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  GrantsService,
  InvalidGrantError,
  InvalidScopeError,
  isCodeVerifier,
  IssuedTokens,
  isRefreshToken,
  OAuthClientsService,
} from '@svc/oauth';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthMetrics, TokenGrantType } from '../auth-metrics';
import { formParameters, required, requireRegisteredClient } from './form-parameters';
import { OAuthError, sendOAuthError, sendOAuthJson } from './oauth-error';

/**
 * The token endpoint (spec 4.4, RFC 6749 4.1.3 and 6): the authorization-code exchange with the
 * PKCE verifier, and refresh with rotation. Public clients identify themselves by client_id.
 */
@ApiExcludeController()
@Controller('oauth/token')
export class TokenController {
  constructor(
    private readonly clients: OAuthClientsService,
    private readonly grants: GrantsService,
    private readonly metrics: AuthMetrics,
  ) {}

  @Post()
  async token(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    let grantType: TokenGrantType = 'other';
    try {
      const parameters = formParameters(request);
      const requested = required(parameters, 'grant_type');
      grantType =
        requested === 'authorization_code' || requested === 'refresh_token' ? requested : 'other';
      const clientId = await requireRegisteredClient(this.clients, parameters);
      let issued: IssuedTokens;
      if (requested === 'authorization_code') {
        issued = await this.exchangeCode(parameters, clientId);
      } else if (requested === 'refresh_token') {
        issued = await this.refresh(parameters, clientId);
      } else {
        throw new OAuthError(
          'unsupported_grant_type',
          'grant_type must be authorization_code or refresh_token',
        );
      }
      this.metrics.tokenRequests.inc({ grant_type: grantType, outcome: 'issued' });
      return sendOAuthJson(reply, 200, {
        access_token: issued.accessToken,
        token_type: 'Bearer',
        expires_in: issued.expiresIn,
        refresh_token: issued.refreshToken,
        scope: issued.scopes.join(' '),
      });
    } catch (error) {
      const refusal = toOAuthError(error);
      this.metrics.tokenRequests.inc({ grant_type: grantType, outcome: refusal.error });
      if (error instanceof InvalidGrantError && error.revoked) {
        this.metrics.grantsRevoked.inc({ reason: error.revoked });
      }
      return sendOAuthError(reply, refusal);
    }
  }

  private exchangeCode(parameters: Record<string, string>, clientId: string) {
    const code = required(parameters, 'code');
    const redirectUri = required(parameters, 'redirect_uri');
    const codeVerifier = required(parameters, 'code_verifier');
    if (!isCodeVerifier(codeVerifier)) {
      throw new OAuthError(
        'invalid_grant',
        'code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9 and - . _ ~',
      );
    }
    return this.grants.exchangeCode({ code, clientId, redirectUri, codeVerifier });
  }

  private refresh(parameters: Record<string, string>, clientId: string) {
    const refreshToken = required(parameters, 'refresh_token');
    if (!isRefreshToken(refreshToken)) {
      throw new OAuthError('invalid_grant', 'the refresh token is not valid for this client');
    }
    const scope = parameters.scope;
    return this.grants.refresh({
      refreshToken,
      clientId,
      ...(scope !== undefined ? { scopes: scope.split(' ').filter((s) => s.length > 0) } : {}),
    });
  }
}

function toOAuthError(error: unknown): OAuthError {
  if (error instanceof OAuthError) {
    return error;
  }
  if (error instanceof InvalidGrantError) {
    return new OAuthError('invalid_grant', error.message);
  }
  if (error instanceof InvalidScopeError) {
    return new OAuthError('invalid_scope', error.message);
  }
  throw error;
}
