import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Principal } from '@svc/identity';
import { CurrentPrincipal, RequireScopes } from '../authentication/require-scopes.decorator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiAuthenticatedProblems, ApiProblem } from '../openapi/api-docs.decorators';
import { RecoverWebhookRequest, RecoveryResponse } from './dto/recover-webhook.request';
import { RegisterWebhookRequest } from './dto/register-webhook.request';
import { UpdateWebhookRequest } from './dto/update-webhook.request';
import {
  ListWebhooksQuery,
  WebhookEndpointPage,
  WebhookEndpointResponse,
} from './dto/webhook-endpoint.response';
import { readEndpointHealth } from '../endpoint-stats/endpoint-health';
import { DataSource } from 'typeorm';
import { EndpointRecoveryService } from './endpoint-recovery.service';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { CommandContext, commandContextOf } from '../audit/command-context';

const context = (principal: Principal, request: FastifyRequest): CommandContext =>
  commandContextOf(principal, request);

@ApiTags('webhooks')
@ApiAuthenticatedProblems('webhooks:manage')
@RequireScopes('webhooks:manage')
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly recovery: EndpointRecoveryService,
    private readonly dataSource: DataSource,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiCreatedResponse({
    type: WebhookEndpointResponse,
    description: 'Registered; the endpoint is active.',
    headers: { Location: { description: 'Path of the new endpoint', schema: { type: 'string' } } },
  })
  @ApiProblem(413, 'Request body too large.')
  @ApiProblem(415, 'The body is not application/json.')
  async register(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Body() body: RegisterWebhookRequest,
  ): Promise<WebhookEndpointResponse> {
    const endpoint = await this.endpoints.register(context(principal, request), body);
    void reply.header('location', `/v1/webhooks/${endpoint.id}`);
    return WebhookEndpointResponse.of(endpoint);
  }

  @Get()
  @ApiOkResponse({
    type: WebhookEndpointPage,
    description: "The tenant's endpoints in order of registration.",
  })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListWebhooksQuery,
  ): Promise<WebhookEndpointPage> {
    const page = await this.endpoints.list(principal, query, WebhookEndpointResponse.of);
    if (query.include !== 'health') {
      return page;
    }
    const health = await readEndpointHealth(
      this.dataSource,
      page.data.map((endpoint) => endpoint.id),
    );
    return {
      ...page,
      data: page.data.map((endpoint) => ({ ...endpoint, health: health.get(endpoint.id) })),
    };
  }

  @Get(':id')
  @ApiOkResponse({ type: WebhookEndpointResponse })
  @ApiProblem(404, 'No such endpoint for this tenant.')
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<WebhookEndpointResponse> {
    return WebhookEndpointResponse.of(await this.endpoints.get(principal, id));
  }

  @Patch(':id')
  @ApiOkResponse({ type: WebhookEndpointResponse })
  @ApiProblem(404, 'No such endpoint for this tenant.')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Param('id') id: string,
    @Body() body: UpdateWebhookRequest,
  ): Promise<WebhookEndpointResponse> {
    return WebhookEndpointResponse.of(
      await this.endpoints.update(context(principal, request), id, body),
    );
  }

  @Post(':id/recover')
  @HttpCode(200)
  @ApiOkResponse({
    type: RecoveryResponse,
    description:
      'The endpoint is active; re-driven deliveries are due now. Re-drives go in batches of 100 and stop at a cap per call; `more_to_redrive` says whether to call again.',
  })
  @ApiProblem(404, 'No such endpoint for this tenant.')
  async recover(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Param('id') id: string,
    @Body() body: RecoverWebhookRequest,
  ): Promise<RecoveryResponse> {
    // Parsed by the validation pipe (IsInstant): a valid Date, or absent.
    const since = body.redrive_abandoned_since ?? null;
    const { endpoint, redriven, more } = await this.recovery.recover(
      context(principal, request),
      id,
      since,
    );
    return {
      endpoint: WebhookEndpointResponse.of(endpoint),
      redriven_deliveries: redriven,
      more_to_redrive: more,
    };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted; no further deliveries are made to it.' })
  @ApiProblem(404, 'No such endpoint for this tenant.')
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Param('id') id: string,
  ): Promise<void> {
    await this.endpoints.delete(context(principal, request), id);
  }
}
