import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Principal } from '@svc/identity';
import { CurrentPrincipal, RequireScopes } from '../authentication/require-scopes.decorator';
import { ApiAuthenticatedProblems, ApiProblem } from '../openapi/api-docs.decorators';
import { FilterTestRequest, FilterTestResponse } from './dto/filter-test.dto';
import { WebhookFilterTestService } from './webhook-filter-test.service';

@ApiTags('webhooks')
@ApiAuthenticatedProblems('webhooks:manage')
@RequireScopes('webhooks:manage')
@Controller('v1/webhooks')
export class WebhookFilterController {
  constructor(private readonly filterTests: WebhookFilterTestService) {}

  @Post(':id/filter/test')
  @HttpCode(200)
  @ApiOkResponse({
    type: FilterTestResponse,
    description:
      "Whether the sample envelope passes the endpoint's payload filter (ADR 0046), and which clause decided; with `filter` in the body, a filter to try before saving it (what a console's filter editor would send), validated as registration validates it. Without any filter: matched, decided_by null. Nothing is published, delivered or changed; the event type is not checked against the endpoint's events.",
  })
  @ApiProblem(404, 'No such endpoint for this tenant (in the environment of the credential).')
  @ApiProblem(413, 'Request body too large.')
  @ApiProblem(415, 'The body is not application/json.')
  async test(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: FilterTestRequest,
  ): Promise<FilterTestResponse> {
    const outcome = await this.filterTests.test(principal, id, body);
    return { matched: outcome.matched, decided_by: outcome.decidedBy, filter: outcome.filter };
  }
}
