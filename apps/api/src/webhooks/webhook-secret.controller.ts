import { Body, Controller, Header, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Principal } from '@svc/identity';
import type { FastifyRequest } from 'fastify';
import { CurrentPrincipal, RequireScopes } from '../authentication/require-scopes.decorator';
import { ApiAuthenticatedProblems, ApiProblem } from '../openapi/api-docs.decorators';
import { DEFAULT_SECRET_OVERLAP_SECONDS, RotateSecretRequest } from './dto/rotate-secret.request';
import { RotateSecretResponse } from './dto/rotate-secret.response';
import { WebhookEndpointResponse } from './dto/webhook-endpoint.response';
import { WebhookSecretService } from './webhook-secret.service';
import { commandContextOf } from '../audit/command-context';

@ApiTags('webhooks')
@ApiAuthenticatedProblems('webhooks:manage')
@RequireScopes('webhooks:manage')
@Controller('v1/webhooks')
export class WebhookSecretController {
  constructor(private readonly secrets: WebhookSecretService) {}

  @Post(':id/secret/rotate')
  @HttpCode(200)
  // The answer may hold a generated secret: no cache along the way may keep it.
  @Header('cache-control', 'no-store')
  @ApiOkResponse({
    type: RotateSecretResponse,
    description:
      'Rotated: deliveries sent from now on carry the new secret in X-SVC-Signature-256 and, in webhook-signature, signatures by the new secret and (until previous_secret_expires_at) by the replaced one. A secret still overlapping from an earlier rotation stops: at most two sign. `secret` is in the answer only when the service generated it.',
    headers: { 'Cache-Control': { description: 'no-store', schema: { type: 'string' } } },
  })
  @ApiProblem(404, 'No such endpoint for this tenant.')
  @ApiProblem(409, 'The endpoint was changed by another request at the same time; retry.')
  @ApiProblem(413, 'Request body too large.')
  @ApiProblem(415, 'The body is not application/json.')
  async rotate(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Param('id') id: string,
    @Body() body: RotateSecretRequest,
  ): Promise<RotateSecretResponse> {
    const { endpoint, generatedSecret } = await this.secrets.rotate(
      commandContextOf(principal, request),
      id,
      {
        secret: body.secret,
        overlapSeconds: body.overlap_seconds ?? DEFAULT_SECRET_OVERLAP_SECONDS,
      },
    );
    return {
      endpoint: WebhookEndpointResponse.of(endpoint),
      ...(generatedSecret !== undefined && { secret: generatedSecret }),
      previous_secret_expires_at: endpoint.previousSecretExpiresAt?.toISOString() ?? null,
    };
  }
}
