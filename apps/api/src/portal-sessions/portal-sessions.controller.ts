import { Body, Controller, Delete, Header, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, ApiConfig } from '@svc/config';
import { problems, PublicRoute } from '@svc/http';
import { PortalSessionsService, type Principal } from '@svc/identity';
import { authProblems } from '../authentication/auth-problems';
import {
  AllowReadOnlySession,
  CurrentPrincipal,
  RequireScopes,
} from '../authentication/require-scopes.decorator';
import { ApiAuthenticatedProblems, ApiProblem } from '../openapi/api-docs.decorators';
import type { FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import { commandContextOf } from '../audit/command-context';
import { recordRequestedAction, REQUESTED_ACTION_TYPES } from '../audit/requested-actions';
import { environmentOf } from '../webhooks/webhook-endpoints.service';
import {
  ExchangePortalLinkRequest,
  MintPortalSessionRequest,
  PortalLinkResponse,
  PortalSessionResponse,
} from './portal-sessions.dto';

const NO_STORE = { 'Cache-Control': { description: 'no-store', schema: { type: 'string' } } };

/**
 * Portal sessions (ADR 0042): a platform's backend mints a one-time link to the console for its
 * tenant, the console exchanges it for a session token, and the session can end itself.
 */
@ApiTags('portal sessions')
@Controller('v1/portal-sessions')
export class PortalSessionsController {
  constructor(
    private readonly sessions: PortalSessionsService,
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: ApiConfig,
  ) {}

  @Post()
  @HttpCode(201)
  @RequireScopes('webhooks:manage')
  @ApiProblem(403, 'Or the credential is a portal session: a session cannot mint another.')
  @ApiAuthenticatedProblems('webhooks:manage')
  @Header('cache-control', 'no-store')
  @ApiCreatedResponse({
    type: PortalLinkResponse,
    description:
      "A one-time link to the console for the credential's tenant and environment. Only an API key or an access token may mint one; a portal session may not (403).",
    headers: NO_STORE,
  })
  async mint(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Body() body: MintPortalSessionRequest,
  ): Promise<PortalLinkResponse> {
    // A session minting sessions would outlive itself: a link opened from the console would give
    // a fresh hour, and a read-only session could open a writable one. Links come from backends.
    if (principal.kind === 'portal_session') {
      throw authProblems.credentialKindRefused(
        'A portal session cannot open another. Mint portal links from your backend with an API key or an access token.',
      );
    }
    const readOnly = body.read_only ?? false;
    const returnUrl = body.return_url ?? null;
    const link = await this.dataSource.transaction(async (manager) => {
      const minted = await this.sessions.mintLink(
        {
          tenantId: principal.tenantId,
          environment: environmentOf(principal),
          readOnly,
          returnUrl,
          createdBy: principal.credentialId,
        },
        manager,
      );
      await recordRequestedAction(manager, commandContextOf(principal, request), {
        type: REQUESTED_ACTION_TYPES.portalSessionMinted,
        data: {
          link_id: minted.id,
          read_only: minted.readOnly,
          return_url: returnUrl,
          expires_at: minted.expiresAt.toISOString(),
        },
      });
      return minted;
    });
    return {
      // In the fragment: browsers send no fragment to any server, so no log, proxy or Referer
      // ever sees the token.
      url: `${this.config.console.url}#portal=${link.token}`,
      expires_at: link.expiresAt.toISOString(),
      read_only: link.readOnly,
    };
  }

  @Post('exchange')
  @PublicRoute()
  @HttpCode(201)
  @Header('cache-control', 'no-store')
  @ApiCreatedResponse({
    type: PortalSessionResponse,
    description:
      'The link is used up and its session opened. No credential is needed: the link token is the credential, and it works once.',
    headers: NO_STORE,
  })
  @ApiProblem(400, 'The body is not {"token": "<string>"}.')
  @ApiProblem(
    401,
    'The link is invalid, already used or expired; for a link that was minted with a return_url, the problem carries it as `return_url`.',
  )
  async exchange(@Body() body: ExchangePortalLinkRequest): Promise<PortalSessionResponse> {
    const session = await this.sessions.exchange(body.token);
    if (!session) {
      throw authProblems.invalidPortalLink(await this.sessions.returnUrlOfLink(body.token));
    }
    return {
      session_token: session.token,
      expires_at: session.expiresAt.toISOString(),
      read_only: session.readOnly,
      environment: session.environment,
      tenant_id: session.tenantId,
      return_url: session.returnUrl,
    };
  }

  @Delete('current')
  @HttpCode(204)
  @RequireScopes('webhooks:manage')
  @AllowReadOnlySession()
  @ApiAuthenticatedProblems('webhooks:manage')
  @ApiNoContentResponse({
    description:
      'The portal session that sent the request has ended (sign-out): its token fails from the next request. Allowed to read-only sessions.',
  })
  @ApiProblem(404, 'The credential is not a portal session.')
  async end(@CurrentPrincipal() principal: Principal): Promise<void> {
    if (principal.kind !== 'portal_session') {
      throw problems.notFound(
        'Only a portal session ends itself here; this credential is not one (revoke an API key instead).',
      );
    }
    await this.sessions.end(principal.credentialId);
  }
}
