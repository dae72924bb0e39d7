import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Principal } from '@svc/identity';
import { CurrentPrincipal, RequireScopes } from '../authentication/require-scopes.decorator';
import { ApiAuthenticatedProblems, ApiProblem } from '../openapi/api-docs.decorators';
import { EndpointStatsQuery, EndpointStatsResponse } from './endpoint-stats.dto';
import { EndpointStatsService } from './endpoint-stats.service';

@ApiTags('delivery log')
@ApiAuthenticatedProblems('webhooks:manage')
@RequireScopes('webhooks:manage')
@Controller('v1/webhooks')
export class EndpointStatsController {
  constructor(private readonly stats: EndpointStatsService) {}

  @Get(':id/stats')
  @ApiOkResponse({
    type: EndpointStatsResponse,
    description:
      'Attempts to this endpoint per hour by outcome, with latency p50 and p99, over the last 24 hours (24 buckets) or 7 days (168 buckets), and the totals and success rate of the window. Read from an index range on the endpoint and time of the attempts.',
  })
  @ApiProblem(404, 'No such endpoint for this tenant.')
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: EndpointStatsQuery,
  ): Promise<EndpointStatsResponse> {
    return this.stats.stats(principal, id, query.window ?? '24h');
  }
}
