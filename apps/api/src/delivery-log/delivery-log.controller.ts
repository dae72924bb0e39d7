import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Principal } from '@svc/identity';
import { CurrentPrincipal, RequireScopes } from '../authentication/require-scopes.decorator';
import { ApiAuthenticatedProblems, ApiProblem } from '../openapi/api-docs.decorators';
import {
  AttemptPage,
  AttemptResponse,
  AttemptsQuery,
  DeliveryList,
  DeliveryResponse,
} from './delivery-log.dto';
import { DeliveryLogService } from './delivery-log.service';

@ApiTags('delivery log')
@ApiAuthenticatedProblems('webhooks:manage')
@RequireScopes('webhooks:manage')
@Controller('v1')
export class DeliveryLogController {
  constructor(private readonly log: DeliveryLogService) {}

  @Get('webhooks/:id/attempts')
  @ApiOkResponse({
    type: AttemptPage,
    description:
      'Attempts to this endpoint, newest first in the order they were recorded (attempts made milliseconds apart may be recorded in the other order).',
  })
  @ApiProblem(404, 'No such endpoint for this tenant.')
  attempts(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: AttemptsQuery,
  ): Promise<AttemptPage> {
    return this.log.attempts(principal, id, query, AttemptResponse.of);
  }

  @Get('events/:event_id/deliveries')
  @ApiOkResponse({
    type: DeliveryList,
    description: 'The deliveries of one event, one per subscribed endpoint.',
  })
  deliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('event_id') eventId: string,
  ): Promise<DeliveryList> {
    return this.log.deliveriesOfEvent(principal, eventId, DeliveryResponse.of);
  }
}
