import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Principal } from '@svc/identity';
import { CurrentPrincipal, RequireScopes } from '../authentication/require-scopes.decorator';
import { ApiAuthenticatedProblems, ApiProblem } from '../openapi/api-docs.decorators';
import { UndeliveredDelivery, UndeliveredPage, UndeliveredQuery } from './undelivered.dto';
import { UndeliveredService } from './undelivered.service';

@ApiTags('delivery log')
@ApiAuthenticatedProblems('webhooks:manage')
@RequireScopes('webhooks:manage')
@Controller('v1/deliveries')
export class UndeliveredController {
  constructor(private readonly undelivered: UndeliveredService) {}

  @Get()
  @ApiOkResponse({
    type: UndeliveredPage,
    description:
      "Deliveries to the caller's endpoints (of its environment) that did not get through: abandoned, or still failing and due to be retried; newest first by the time of their event, with the failure of their last attempt. Test events are not listed. Read from an index range of such deliveries, one page at a time.",
  })
  @ApiProblem(404, 'endpoint_id names no endpoint of this tenant.')
  list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: UndeliveredQuery,
  ): Promise<UndeliveredPage> {
    return this.undelivered.list(principal, query, UndeliveredDelivery.ofRow);
  }
}
