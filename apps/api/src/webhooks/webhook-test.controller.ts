import { Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { TEST_EVENT_TYPE } from '@svc/deliveries';
import type { Principal } from '@svc/identity';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal, RequireScopes } from '../authentication/require-scopes.decorator';
import { AttemptResponse } from '../delivery-log/delivery-log.dto';
import { ApiAuthenticatedProblems, ApiProblem } from '../openapi/api-docs.decorators';
import { TestEventPendingResponse } from './dto/webhook-test.response';
import { WebhookTestService } from './webhook-test.service';
import { commandContextOf } from '../audit/command-context';

@ApiTags('webhooks')
@ApiAuthenticatedProblems('webhooks:manage')
@RequireScopes('webhooks:manage')
@Controller('v1/webhooks')
export class WebhookTestController {
  constructor(private readonly tests: WebhookTestService) {}

  @Post(':id/test')
  @HttpCode(200)
  @ApiOkResponse({
    type: AttemptResponse,
    description:
      'A signed `webhook.test` event (data: `endpoint_id`, `message`) was sent to the endpoint at once, whatever its status and whether or not it subscribes to webhook.test; this is its attempt, recorded in the delivery log like any other. A test gets one attempt, never retried, and changes nothing about the endpoint: a failing test neither degrades nor disables it, a succeeding one does not reactivate it.',
    headers: {
      Location: {
        description: 'The deliveries of the test event: /v1/events/{event_id}/deliveries',
        schema: { type: 'string' },
      },
    },
  })
  @ApiAcceptedResponse({
    type: TestEventPendingResponse,
    description:
      'The test event is on its way but its attempt was not recorded within the wait (the delivery timeout plus 5 s): follow it at the Location, or in GET /v1/webhooks/{id}/attempts.',
    headers: {
      Location: {
        description: 'The deliveries of the test event: /v1/events/{event_id}/deliveries',
        schema: { type: 'string' },
      },
    },
  })
  @ApiProblem(404, 'No such endpoint for this tenant (in the environment of the credential).')
  @ApiProblem(
    429,
    'A test event to this endpoint is still in flight; Retry-After says when the next may be sent.',
  )
  async test(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Param('id') id: string,
  ): Promise<AttemptResponse | TestEventPendingResponse> {
    const outcome = await this.tests.send(commandContextOf(principal, request), id);
    const eventId = outcome.sent ? outcome.attempt.eventId : outcome.eventId;
    void reply.header('location', `/v1/events/${eventId}/deliveries`);
    if (outcome.sent) {
      return AttemptResponse.of({ ...outcome.attempt, eventType: TEST_EVENT_TYPE });
    }
    void reply.code(202);
    return { delivery_id: outcome.deliveryId, event_id: outcome.eventId, status: 'pending' };
  }
}
