import { Body, Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Principal } from '@svc/identity';
import type { FastifyRequest } from 'fastify';
import { CurrentPrincipal, RequireScopes } from '../authentication/require-scopes.decorator';
import { DeliveryResponse } from '../delivery-log/delivery-log.dto';
import { ApiAuthenticatedProblems, ApiProblem } from '../openapi/api-docs.decorators';
import { ReplayEndpointRequest, ReplayEndpointResponse } from './delivery-replay.dto';
import { DeliveryReplayService } from './delivery-replay.service';
import { commandContextOf } from '../audit/command-context';

@ApiTags('delivery log')
@ApiAuthenticatedProblems('webhooks:manage')
@RequireScopes('webhooks:manage')
@Controller('v1')
export class DeliveryReplayController {
  constructor(private readonly replay: DeliveryReplayService) {}

  @Post('deliveries/:delivery_id/replay')
  @HttpCode(200)
  @ApiOkResponse({
    type: DeliveryResponse,
    description:
      'The delivery is sent again, whatever its status (succeeded, abandoned, cancelled, or pending: brought forward): it is pending, with a new run of attempts due at once; attempt numbers go on counting. The same event id is sent (X-SVC-Event-Id, webhook-id), so a receiver can drop what it already has.',
  })
  @ApiProblem(404, 'No such delivery for this tenant, or its endpoint was deleted.')
  @ApiProblem(
    409,
    'The endpoint is disabled (recover it first), an attempt of the delivery is in flight, or the engine changed it at the same time; retry.',
  )
  @ApiProblem(410, 'The delivery or its event is past the retention of delivery data (30 days).')
  async replayOne(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Param('delivery_id') deliveryId: string,
  ): Promise<DeliveryResponse> {
    return DeliveryResponse.of(
      await this.replay.replayOne(commandContextOf(principal, request), deliveryId),
    );
  }

  @Post('webhooks/:id/replay')
  @HttpCode(200)
  @ApiOkResponse({
    type: ReplayEndpointResponse,
    description:
      "Every delivery to the endpoint whose event's time is in [from, to) is sent again, whatever its status, oldest first (test events aside, and any with an attempt in flight, which is its re-send). Batches of 100, at most a cap per call (WEBHOOK_REPLAY_LIMIT, 10,000); while `more_to_replay`, call again with the same range and `next_cursor`.",
  })
  @ApiProblem(404, 'No such endpoint for this tenant.')
  @ApiProblem(409, 'The endpoint is disabled: recover it first.')
  @ApiProblem(413, 'Request body too large.')
  @ApiProblem(415, 'The body is not application/json.')
  async replayEndpoint(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Param('id') id: string,
    @Body() body: ReplayEndpointRequest,
  ): Promise<ReplayEndpointResponse> {
    const { replayed, more, next } = await this.replay.replayEndpoint(
      commandContextOf(principal, request),
      id,
      body,
    );
    return { replayed_deliveries: replayed, more_to_replay: more, next_cursor: next };
  }
}
